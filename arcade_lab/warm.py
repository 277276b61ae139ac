"""``arcade-lab warm``: compile (or load) every kernel the app and the agents use, once, up front.

The first start otherwise compiles the emulator and the game's rules, and the first attach of each agent kind
compiles its kernels. ``--portable`` compiles for the target's generic CPU instead of this one, in a child
process of its own (numba reads its CPU setting once per process): ``make wheel`` and ``make dist`` ship that
cache, which any CPU of the target loads, so users never wait for the compiler (see ``engine._jit``).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
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


def _play(game: str) -> None:
    from arcade_lab.engine.env import Env

    env = Env(game, repeat_action_probability=0.0, seed=0)
    env.reset()
    for _ in range(10):
        env.act(0)
    env.restore_state(env.clone_state())


def warm(game: str = "pong", agents: bool = True, out=print, games: tuple[str, ...] = ()) -> dict:
    """Load or compile the kernels; returns seconds per part (the emulator, then each other game's rules,
    then each agent kind)."""
    times = {}
    t = time.perf_counter()
    _play(game)
    times["emulator"] = time.perf_counter() - t
    from arcade_lab.engine._jit import mark_cache_warm

    mark_cache_warm()
    out(f"emulator: {times['emulator']:.1f} s")
    if games:
        t = time.perf_counter()
        for other in games:
            if other != game:
                _play(other)
        times["rules"] = time.perf_counter() - t
        out(f"rules of {len(games)} games: {times['rules']:.1f} s")
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


def _prepare_blocks(game: str) -> tuple[str, str, float]:
    from arcade_lab.engine import blocks

    t = time.perf_counter()
    return game, blocks.prepare(game), time.perf_counter() - t


def warm_blocks(games: tuple[str, ...], jobs: int = 1, out=print) -> None:
    """Compile each game's hot blocks (``engine/blocks.py``) into the cache, ``jobs`` games at a time."""
    if jobs > 1 and len(games) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as ex:
            done = ex.map(_prepare_blocks, games)
            for game, what, seconds in done:
                out(f"blocks of {game}: {what} ({seconds:.1f} s)")
        return
    for game in games:
        game, what, seconds = _prepare_blocks(game)
        out(f"blocks of {game}: {what} ({seconds:.1f} s)")


def _portable_child(argv: list[str]) -> int:
    """Run this command again in a process whose numba compiles for the generic CPU (the setting is the
    child's alone: it is read once, when numba starts)."""
    from arcade_lab.engine._jit import PORTABLE_CPU

    env = dict(os.environ, NUMBA_CPU_NAME=PORTABLE_CPU, NUMBA_CPU_FEATURES="")
    args = [a for a in argv if a != "--portable"]
    return subprocess.call([sys.executable, "-m", "arcade_lab.warm", *args], env=env)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="arcade-lab warm", description=__doc__.splitlines()[0])
    p.add_argument("--game", default="pong")
    p.add_argument("--games", default="", metavar="all|ID,ID,...",
                   help="also the rules of these games (each game's rules compile on its first use otherwise)")
    p.add_argument("--no-agents", action="store_true", help="only the emulator")
    p.add_argument("--blocks", action="store_true",
                   help="also compile the hot blocks of --game and --games (10-30 s a game, cached per ROM)")
    p.add_argument("--jobs", type=int, default=1, help="(--blocks) games compiled in parallel processes")
    p.add_argument("--portable", action="store_true",
                   help="compile for any CPU of this target (what a wheel or bundle ships), in a child process")
    a = p.parse_args(argv)
    if a.portable and os.environ.get("NUMBA_CPU_NAME") is None:
        return _portable_child(argv)
    from arcade_lab.engine._jit import cache_dir, write_sources_mark
    from arcade_lab.engine.roms import list_games

    if a.games == "all":
        games = tuple(list_games())
    else:
        games = tuple(g for g in a.games.split(",") if g)
        unknown = [g for g in games if g not in list_games()]
        if unknown:
            p.error(f"unknown game(s): {', '.join(unknown)} (see arcade-lab games)")
    t = time.perf_counter()
    if a.blocks:  # compiled below, in this process: playing the games must not start compiles of them
        from arcade_lab.engine.blocks_background import compiling_here

        for game in (a.game,) + games:
            compiling_here(game)
    warm(a.game, not a.no_agents, games=games)
    if a.blocks:
        warm_blocks(tuple(dict.fromkeys((a.game,) + games)), max(1, a.jobs))
    write_sources_mark()
    print(f"JIT cache ready in {cache_dir()} ({time.perf_counter() - t:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
