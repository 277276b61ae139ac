"""`arcade-lab bench`: our frames/s next to ale-py's, in one run, on the same games and actions.

Each engine plays seeded random minimal-set actions with the given frame skip (sticky actions off) for a
fixed number of emulated frames, resetting on game over. Compilation and ROM loading are excluded from
the timing (each engine first plays a short warm-up). The engines take turns for several rounds and each
side's best run counts (see ``bench_pair``). Also times clone+restore round trips.
"""
from __future__ import annotations

import os
import statistics
import time

import numpy as np

DEFAULT_GAMES = ["alien", "breakout", "enduro", "montezuma_revenge", "ms_pacman", "pitfall", "pong", "qbert",
                 "seaquest", "space_invaders"]


def _actions(env_actions, n, seed):
    rng = np.random.default_rng(seed)
    return [env_actions[int(i)] for i in rng.integers(len(env_actions), size=n)]


def _play(act, game_over, reset, acts, frames: int, frameskip: int) -> float:
    """Frames/s of one run from a reset: ``acts`` in order until ``frames`` frames were emulated."""
    reset()
    t = time.perf_counter()
    done = 0
    for a in acts:
        act(a)
        done += frameskip
        if game_over():
            reset()
        if done >= frames:
            break
    return done / (time.perf_counter() - t)


def _round_trip_us(clone, restore, n: int = 20000) -> float:
    st = clone()
    t = time.perf_counter()
    for _ in range(n):
        st = clone()
        restore(st)
    return (time.perf_counter() - t) / n * 1e6


def blocks_ready(game: str) -> None:
    """Compile ``game``'s hot blocks into the cache first (as ``arcade-lab warm --blocks`` does), so no
    timed run compiles: unless ``--no-blocks`` (``ARCADE_LAB_BLOCKS=0``) times the interpreter alone."""
    from .engine import blocks

    if blocks.enabled():
        blocks.prepare(game)


def single_ours(game: str, frames: int, frameskip: int):
    """(run, round trip) timers for our engine: ``run()`` is one timed run's frames/s, ``round_trip()``
    the clone+restore µs."""
    from .engine.env import Env

    blocks_ready(game)
    env = Env(game, frameskip=frameskip, repeat_action_probability=0.0, seed=0)
    acts = _actions(env.minimal_actions(), frames // frameskip + 1, 1)
    for a in acts[:20]:  # warm-up: kernels loaded, caches filled
        env.act(a)
    return (lambda: _play(env.act, env.game_over, env.reset, acts, frames, frameskip),
            lambda: _round_trip_us(env.clone_state, env.restore_state))


def single_ale(game: str, frames: int, frameskip: int):
    """The same timers for ``ale_py.ALEInterface``."""
    import ale_py

    from .engine import roms

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("frame_skip", frameskip)
    ale.loadROM(str(roms.rom_path(game)))
    acts = _actions(list(ale.getMinimalActionSet()), frames // frameskip + 1, 1)
    return (lambda: _play(ale.act, ale.game_over, ale.reset_game, acts, frames, frameskip),
            lambda: _round_trip_us(ale.cloneState, ale.restoreState))


def bench_pair(game: str, frames: int, frameskip: int, rounds: int = 5) -> tuple[float, float, float, float]:
    """(ours f/s, ale-py f/s, ours µs, ale-py µs): the two engines take turns, ``rounds`` runs each, and
    each side's best run counts — on a shared or virtual machine other load only ever slows a run down,
    and interleaving exposes both sides to the same slow patches."""
    (run_o, trip_o), (run_a, trip_a) = single_ours(game, frames, frameskip), single_ale(game, frames, frameskip)
    fo = fa = 0.0
    uo = ua = float("inf")
    for _ in range(max(1, rounds)):
        fo = max(fo, run_o())
        fa = max(fa, run_a())
        uo = min(uo, trip_o())
        ua = min(ua, trip_a())
    return fo, fa, uo, ua


VECTOR_GAMES = ["pong", "breakout", "seaquest"]


def _vector_runner(v, n_actions: int, num_envs: int, steps: int):
    """A function timing ``steps`` batched steps of ``v`` (frames/s); the first 20 steps warm it up."""
    rng = np.random.default_rng(0)
    acts = rng.integers(n_actions, size=(steps + 20, num_envs))
    for k in range(20):  # compile, caches, threads
        v.step(acts[k])

    def run() -> float:
        t = time.perf_counter()
        for k in range(steps):
            v.step(acts[20 + k])
        return steps * num_envs * 4 / (time.perf_counter() - t)
    return run


VECTOR_THREADS = 2


def vector_ours(game: str, num_envs: int, steps: int):
    """Our Gymnasium vector environment at ale-py AtariVectorEnv's default preprocessing (84x84 area
    resize, 4 stacked frames, max-pool, up to 30 NOOPs, FIRE reset, clipped rewards), no sticky actions."""
    from .engine.ale_vector import ArcadeLabVectorEnv

    blocks_ready(game)
    v = ArcadeLabVectorEnv(game, num_envs, num_threads=VECTOR_THREADS)
    v.reset(seed=0)
    return _vector_runner(v, v.single_action_space.n, num_envs, steps), v.close


def vector_ale(game: str, num_envs: int, steps: int):
    """ale-py's threaded AtariVectorEnv at its defaults. Returns (run, close): its threads must be shut
    down after."""
    from ale_py.vector_env import AtariVectorEnv

    v = AtariVectorEnv(game, num_envs, num_threads=VECTOR_THREADS)
    v.reset(seed=0)
    return _vector_runner(v, v.single_action_space.n, num_envs, steps), v.close


def vector_envpool(game: str, num_envs: int, steps: int):
    """EnvPool's Atari vector env at its defaults, with rewards clipped as ale-py's defaults clip them; None
    when EnvPool is not installed or lacks the game."""
    import importlib.util

    if importlib.util.find_spec("envpool") is None:
        return None
    import envpool

    from .engine.registration import game_name

    task = f"{game_name(game)}-v5"
    if task not in envpool.list_all_envs():
        return None
    v = envpool.make_gymnasium(task, num_envs=num_envs, num_threads=VECTOR_THREADS, seed=0, reward_clip=True)
    v.reset()
    return _vector_runner(v, v.action_space.n, num_envs, steps), getattr(v, "close", lambda: None)


def main_vector(num_envs: int, steps: int, rounds: int = 5, games: list[str] | None = None) -> list[float]:
    """Our vector env against ale-py's AtariVectorEnv (and EnvPool's, when installed), game by game."""
    games = games or VECTOR_GAMES
    print(f"\nbatched: {num_envs} environments, {VECTOR_THREADS} threads on {os.cpu_count()} cores, ale-py "
          f"AtariVectorEnv's default preprocessing (frame skip 4, 84x84, 4 stacked, max-pool), {steps} steps; "
          f"best of {rounds} interleaved runs")
    print(f"{'game':<20} {'ours f/s':>10} {'AtariVectorEnv':>15} {'ratio':>7} {'EnvPool':>9} {'ratio':>7}")
    ratios, pool_ratios = [], []
    for g in games:
        runners = [vector_ours(g, num_envs, steps), vector_ale(g, num_envs, steps),
                   vector_envpool(g, num_envs, steps)]
        best = [0.0, 0.0, 0.0]
        try:
            for _ in range(max(1, rounds)):
                for k, r in enumerate(runners):
                    if r is not None:
                        best[k] = max(best[k], r[0]())
        finally:
            for r in reversed(runners):
                if r is not None:
                    r[1]()
        ours, theirs, pool = best
        ratios.append(ours / theirs)
        pool_cols = f"{pool:9.0f} {ours / pool:6.2f}x" if pool else f"{'-':>9} {'-':>7}"
        if pool:
            pool_ratios.append(ours / pool)
        print(f"{g:<20} {ours:10.0f} {theirs:15.0f} {ours / theirs:6.2f}x {pool_cols}", flush=True)
    print(summary(ratios, "batched ratio ours/AtariVectorEnv"))
    if pool_ratios:
        print(summary(pool_ratios, "batched ratio ours/EnvPool"))
    return ratios


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def main_threads(game: str = "pong", num_envs: int = 8, steps: int = 300, load: int = 5,
                 rounds: int = 3) -> list[tuple[str, float]]:
    """The vector env on 1 thread and on one per core, on a quiet machine and beside ``load`` processes
    that spin on the CPU (other users' jobs, a screen recorder): more threads must never be slower."""
    import multiprocessing as mp

    from .engine.vector import VectorEnv, usable_cores

    n_threads = usable_cores()
    envs = {t: VectorEnv(game, num_envs, obs_type="grayscale", frameskip=4, repeat_action_probability=0.0,
                         num_threads=t) for t in sorted({1, n_threads})}
    runs = {t: _vector_runner(v, len(v.action_set), num_envs, steps) for t, v in envs.items()}
    print(f"\nthreads: {game}, {num_envs} environments, frame skip 4, {steps} steps, best of {rounds} "
          f"interleaved runs; load = {load} processes spinning on {os.cpu_count()} cores")
    print(f"{'machine':<8} " + " ".join(f"{f'{t} thread(s) f/s':>18}" for t in runs) + f" {'N/1':>6}")
    rows = []
    for label in ("quiet", "loaded"):
        spinners = []
        if label == "loaded":
            ctx = mp.get_context("spawn")
            spinners = [ctx.Process(target=_spin, args=(3600.0,), daemon=True) for _ in range(load)]
            for p in spinners:
                p.start()
            time.sleep(0.5)
        try:
            best = dict.fromkeys(runs, 0.0)
            for _ in range(rounds):
                for t, run in runs.items():
                    best[t] = max(best[t], run())
        finally:
            for p in spinners:
                p.terminate()
                p.join()
        ratio = best[n_threads] / best[1]
        rows.append((label, ratio))
        print(f"{label:<8} " + " ".join(f"{best[t]:18.0f}" for t in runs) + f" {ratio:5.2f}x", flush=True)
    for v in envs.values():
        v.close()
    return rows


def _games(asked) -> list[str]:
    """The games asked for: ``all`` names every game with ALE rules; none, the default set."""
    if not asked:
        return list(DEFAULT_GAMES)
    if "all" in asked:
        from arcade_lab.engine.roms import list_games

        return list_games()
    from arcade_lab.engine.roms import rom_path

    for game in asked:
        rom_path(game)  # an unknown id stops here, before any table is printed
    return list(asked)


def summary(ratios: list[float], what: str = "ratio ours/ale-py") -> str:
    """The spread of the ratios: the slowest game, the lower quartile and the median."""
    if len(ratios) < 4:
        return f"median {what}: {statistics.median(ratios):.2f}x over {len(ratios)} games"
    q1 = statistics.quantiles(ratios, n=4)[0]
    return (f"{what} over {len(ratios)} games: min {min(ratios):.2f}x, lower quartile {q1:.2f}x, "
            f"median {statistics.median(ratios):.2f}x")


def main(args) -> int:
    if getattr(args, "no_blocks", False):
        os.environ["ARCADE_LAB_BLOCKS"] = "0"  # this process's consoles run the interpreter alone
    if getattr(args, "pipelines", False):
        from .bench_pipelines import PIPELINE_GAMES, main_pipelines

        main_pipelines(args.games or PIPELINE_GAMES, args.steps, max(1, args.rounds), args.json)
        return 0
    if getattr(args, "threads", False):
        main_threads(rounds=max(1, getattr(args, "rounds", 3)))
        return 0
    games = _games(args.games)
    rounds = max(1, getattr(args, "rounds", 5))
    if args.frames > 0:
        single(games, args.frames, args.frameskip, rounds)
    if getattr(args, "vector_envs", 0) != 0:
        n = args.vector_envs if args.vector_envs > 0 else 8
        main_vector(n, args.vector_steps, rounds, _games(args.vector_games) if args.vector_games else None)
    return 0


def single(games: list[str], frames: int, frameskip: int, rounds: int) -> None:
    """One engine against the other, game by game, then the spread of the ratios."""
    print(f"frames per game: {frames}, frame skip {frameskip}, random minimal-set actions; "
          f"best of {rounds} interleaved runs per engine")
    print(f"{'game':<20} {'ours f/s':>10} {'ale-py f/s':>11} {'ratio':>7} {'ours clone+restore':>19} {'ale-py':>8}")
    ratios = []
    for g in games:
        ours, theirs, our_us, their_us = bench_pair(g, frames, frameskip, rounds)
        ratios.append(ours / theirs)
        print(f"{g:<20} {ours:10.0f} {theirs:11.0f} {ours / theirs:6.2f}x {our_us:17.2f}µs {their_us:7.2f}µs",
              flush=True)
    print(summary(ratios))
