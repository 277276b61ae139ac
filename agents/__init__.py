from .registry import agent_specs, make_agent  # noqa: F401  (light: agent modules load lazily)
