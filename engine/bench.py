"""`arcade-lab bench`: our frames/s next to ale-py's, in one run, on the same games and actions.

Each engine plays seeded random minimal-set actions with the given frame skip (sticky actions off) for a
fixed number of emulated frames, resetting on game over. Compilation and ROM loading are excluded from
the timing (each engine first plays a short warm-up). Also times clone+restore round trips.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

DEFAULT_GAMES = ["alien", "breakout", "enduro", "montezuma_revenge", "ms_pacman", "pitfall", "pong", "qbert",
                 "seaquest", "space_invaders"]


def _actions(env_actions, n, seed):
    rng = np.random.default_rng(seed)
    return [env_actions[int(i)] for i in rng.integers(len(env_actions), size=n)]


def bench_ours(game: str, frames: int, frameskip: int) -> tuple[float, float]:
    from .env import Env

    env = Env(game, frameskip=frameskip, repeat_action_probability=0.0, seed=0)
    acts = _actions(env.minimal_actions(), frames // frameskip + 1, 1)
    for a in acts[:20]:
        env.act(a)
    env.reset()
    t = time.perf_counter()
    done = 0
    for a in acts:
        env.act(a)
        done += frameskip
        if env.game_over():
            env.reset()
        if done >= frames:
            break
    fps = done / (time.perf_counter() - t)
    st = env.clone_state()
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        st = env.clone_state()
        env.restore_state(st)
    us = (time.perf_counter() - t) / n * 1e6
    return fps, us


def bench_ale(game: str, frames: int, frameskip: int) -> tuple[float, float]:
    import ale_py

    from . import roms

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("frame_skip", frameskip)
    ale.loadROM(str(roms.rom_path(game)))
    acts = _actions(list(ale.getMinimalActionSet()), frames // frameskip + 1, 1)
    t = time.perf_counter()
    done = 0
    for a in acts:
        ale.act(a)
        done += frameskip
        if ale.game_over():
            ale.reset_game()
        if done >= frames:
            break
    fps = done / (time.perf_counter() - t)
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        st = ale.cloneState()
        ale.restoreState(st)
    us = (time.perf_counter() - t) / n * 1e6
    return fps, us


def main(args) -> int:
    games = args.games or DEFAULT_GAMES
    print(f"frames per game: {args.frames}, frame skip {args.frameskip}, random minimal-set actions")
    print(f"{'game':<20} {'ours f/s':>10} {'ale-py f/s':>11} {'ratio':>7} {'ours clone+restore':>19} {'ale-py':>8}")
    ratios = []
    for g in games:
        ours, our_us = bench_ours(g, args.frames, args.frameskip)
        theirs, their_us = bench_ale(g, args.frames, args.frameskip)
        ratios.append(ours / theirs)
        print(f"{g:<20} {ours:10.0f} {theirs:11.0f} {ours / theirs:6.2f}x {our_us:17.2f}µs {their_us:7.2f}µs",
              flush=True)
    print(f"median ratio ours/ale-py: {statistics.median(ratios):.2f}x over {len(games)} games")
    return 0
