"""``arcade-lab warm``: compile (or load) every kernel the app and the agents use, once, up front.

The first start otherwise compiles the emulator (about six minutes on two cores) and the first attach of each
agent kind compiles its kernels. ``make dist`` runs this into the bundle's own cache folder, which a fresh
installation copies on its first start (see ``engine._jit``), so users never wait for the compiler.
"""
from __future__ import annotations

import argparse
import time

# Tiny budgets: only compilation matters here, not play.
AGENTS = (
    ("random", {}),
    ("sarsa:basic", {"n_samples": 20}),
    ("sarsa:bass", {"n_samples": 20}),
    ("sarsa:disco", {"n_samples": 20}),
    ("sarsa:lsh", {"n_samples": 20}),
    ("sarsa:ram", {"n_samples": 20}),
    ("sarsa:blobprost", {"capacity": 1 << 16}),   # the kernels do not depend on the slot capacity
    ("uct", {"simulations": 4, "depth_frames": 20}),
    ("bfs", {"frames": 50}),
)


def warm(game: str = "pong", agents: bool = True, out=print) -> dict:
    """Load or compile the kernels; returns seconds per part (the emulator, then each agent kind)."""
    from arcade_lab.engine.env import Env

    times = {}
    t = time.perf_counter()
    env = Env(game, repeat_action_probability=0.0, seed=0)
    env.reset()
    for _ in range(10):
        env.act(0)
    env.restore_state(env.clone_state())
    times["emulator"] = time.perf_counter() - t
    from arcade_lab.engine._jit import mark_cache_warm

    mark_cache_warm()
    out(f"emulator: {times['emulator']:.1f} s")
    if agents:
        from .agents.base import RunConfig, Runner
        from .agents.registry import make_agent

        for spec, params in AGENTS:
            t = time.perf_counter()
            runner = Runner(RunConfig(game, max_frames=60, record_start_state=False))
            agent = make_agent(spec, runner.env, seed=0, **params)
            for _ in runner.episodes(agent, 1):
                pass
            times[spec] = time.perf_counter() - t
            out(f"{spec}: {times[spec]:.1f} s")
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="arcade-lab warm", description=__doc__.splitlines()[0])
    p.add_argument("--game", default="pong")
    p.add_argument("--no-agents", action="store_true", help="only the emulator")
    a = p.parse_args(argv)
    from arcade_lab.engine._jit import cache_dir

    t = time.perf_counter()
    warm(a.game, not a.no_agents)
    print(f"JIT cache ready in {cache_dir()} ({time.perf_counter() - t:.1f} s)")
    return 0
