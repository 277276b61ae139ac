"""Agents by name: ``make_agent("sarsa:bass", env, seed)``. Used by the CLI, the app and evaluation.

Specs: ``random``, ``const:A``, ``perturb:A`` (A = ALE action 0..17), ``sarsa:FEATURES`` (basic, bass,
disco, lsh, ram, blobprost), ``uct``, ``bfs``, ``brute`` (Machado et al. 2018's determinism exploiter). Imports
are lazy so that listing names never compiles anything.
"""
from __future__ import annotations

FEATURE_SETS = ("basic", "bass", "disco", "lsh", "ram", "blobprost")


class UnknownAgent(ValueError):
    pass


def agent_specs() -> list[str]:
    return (["random"] + [f"const:{a}" for a in range(18)] + [f"perturb:{a}" for a in range(18)]
            + [f"sarsa:{f}" for f in FEATURE_SETS] + ["uct", "bfs", "brute"])


def _action_arg(spec: str, arg: str) -> int:
    try:
        a = int(arg)
    except ValueError:
        raise UnknownAgent(f"agent {spec!r}: the action must be an integer 0..17") from None
    if not 0 <= a < 18:
        raise UnknownAgent(f"agent {spec!r}: the action must be 0..17")
    return a


def make_agent(spec: str, env=None, seed: int = 0, **params):
    """Build an agent from its spec. ``env`` is required by planners (UCT, BFS) and by the screen feature
    sets that estimate a background from sampled screens (Basic, BASS, DISCO)."""
    if spec.strip().lower().startswith("ext:"):
        # an agent in another process or language (docs/agent-protocol.md); the command keeps its case
        from .external import make_external_agent
        return make_external_agent(spec.strip(), env, seed)
    kind, _, arg = spec.strip().lower().partition(":")
    if kind == "random" and not arg:
        from .baselines import RandomAgent
        return RandomAgent(seed)
    if kind == "const":
        from .baselines import ConstAgent
        return ConstAgent(_action_arg(spec, arg), seed)
    if kind == "perturb":
        from .baselines import PerturbAgent
        return PerturbAgent(_action_arg(spec, arg), seed)
    if kind == "sarsa":
        if arg not in FEATURE_SETS:
            raise UnknownAgent(f"agent {spec!r}: feature set must be one of {', '.join(FEATURE_SETS)}")
        from .sarsa import SarsaAgent
        return SarsaAgent.for_env(arg, env, seed=seed, **params)
    if kind == "brute" and not arg:
        from .brute import BruteAgent
        return BruteAgent(seed, **params)
    if kind in ("uct", "bfs") and not arg:
        if env is None:
            raise UnknownAgent(f"agent {spec!r} plans with the emulator: it needs an env")
        from .search import BFSAgent, UCTAgent
        return (UCTAgent if kind == "uct" else BFSAgent)(env, seed=seed, **params)
    raise UnknownAgent(f"unknown agent {spec!r}; known: random, const:A, perturb:A, "
                       f"sarsa:{{{','.join(FEATURE_SETS)}}}, uct, bfs, brute, ext:cmd:COMMAND, ext:tcp:HOST:PORT")
