"""`arcade-lab bench --pipelines`: agent steps/s of the Gymnasium paths researchers run, ours next to
ale-py's in one run.

Each path is built twice, once on ``ArcadeLab/<Game>`` ids and once on ale-py's, with the same keyword
arguments and wrappers. Both play the same seeded random actions from ``reset(seed=0)``, resetting when an
episode ends. After a short untimed warm-up, each round times both sides over the same steps, the two
taking turns every ``CHUNK_STEPS`` steps (``timed_round``), and each side's best round counts: machine
load only ever slows a run down, and taking turns this often exposes both sides to it alike. What a
step does is whatever the path's outermost wrapper does: one ``env.step`` of the stack.
"""
from __future__ import annotations

import importlib.util
import json
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

PIPELINE_GAMES = ["breakout", "pong", "seaquest"]
SIDES = ("ours", "ale-py")
WARMUP_STEPS = 20
CHUNK_STEPS = 50


class Missing(Exception):
    """A path whose library is not installed: its row says so instead of a ratio."""


def _ids(game: str, side: str) -> str:
    from .engine.registration import NAMESPACE, game_name

    return f"{NAMESPACE}/{game_name(game)}-v5" if side == "ours" else f"ALE/{game_name(game)}-v5"


def _make(env_id: str, **kwargs):
    import ale_py
    import gymnasium as gym

    from . import engine  # noqa: F401  (registers the ArcadeLab ids)

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)  # no banner amid the table
    gym.register_envs(ale_py)
    return gym.make(env_id, **kwargs)


def _v5_rgb(game: str, side: str):
    return _make(_ids(game, side))


def _v5_gray(game: str, side: str):
    return _make(_ids(game, side), obs_type="grayscale")


def _preprocessed(game: str, side: str, **kwargs):
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

    env = _make(_ids(game, side), frameskip=1, **kwargs)
    return FrameStackObservation(AtariPreprocessing(env, frame_skip=4, screen_size=84, noop_max=30), 4)


def _sb3(game: str, side: str):
    if importlib.util.find_spec("stable_baselines3") is None:
        raise Missing("stable_baselines3")
    from stable_baselines3.common.atari_wrappers import AtariWrapper

    # what SB3's NoFrameskip-v4 examples make, for every game: no frame skip, no sticky actions
    return AtariWrapper(_make(_ids(game, side), frameskip=1, repeat_action_probability=0.0))


class _EnvPoolOne:
    """One EnvPool environment behind the single-environment step/reset the timing loop calls."""

    def __init__(self, pool):
        self.pool = pool
        self.action_space = pool.action_space

    def close(self):
        getattr(self.pool, "close", lambda: None)()

    def reset(self, seed=None):
        return self.pool.reset()

    def step(self, action):
        obs, rew, term, trunc, info = self.pool.step(np.array([action]))
        return obs, rew[0], bool(term[0]), bool(trunc[0]), info


def _envpool(game: str, side: str):
    """EnvPool's Atari env (84x84 grayscale, 4 stacked, frame skip 4, 30 no-ops, no sticky actions) against
    our Gymnasium stack doing the same; EnvPool takes ale-py's column."""
    if importlib.util.find_spec("envpool") is None:
        raise Missing("envpool")
    if side == "ours":
        return _preprocessed(game, side, repeat_action_probability=0.0)
    import envpool

    from .engine.registration import game_name

    return _EnvPoolOne(envpool.make_gymnasium(f"{game_name(game)}-v5", num_envs=1, seed=0,
                                              repeat_action_probability=0.0, episodic_life=False,
                                              reward_clip=False))


# (name, builder(game, side) -> env)
PIPELINES: list[tuple[str, Callable]] = [
    ("v5 rgb", _v5_rgb),
    ("v5 grayscale", _v5_gray),
    ("AtariPreprocessing+FrameStack(4)", _preprocessed),
    ("SB3 AtariWrapper", _sb3),
    ("EnvPool", _envpool),
]


@dataclass
class Row:
    pipeline: str
    game: str
    ours: float | None = None
    theirs: float | None = None
    missing: str | None = None

    @property
    def ratio(self) -> float | None:
        return None if self.ours is None else self.ours / self.theirs


class _Player:
    """One side of a path: its environment playing ``steps`` seeded random actions from ``reset(seed)``,
    resetting when an episode ends, timed a chunk at a time. It has played a warm-up first, so compilation
    and first-call costs stay out of the timing."""

    def __init__(self, env, steps: int, seed: int = 0):
        self.env, self.seed = env, seed
        self.actions = np.random.default_rng(seed).integers(int(env.action_space.n), size=steps + WARMUP_STEPS)
        self.restart()
        self._play(self.actions[:WARMUP_STEPS])

    def _play(self, actions) -> None:
        env = self.env
        for a in actions:
            _, _, term, trunc, _ = env.step(a)
            if term or trunc:
                env.reset()

    def restart(self) -> None:
        self.env.reset(seed=self.seed)

    def chunk(self, start: int, n: int) -> float:
        """Seconds for timed steps ``start .. start + n``."""
        actions = self.actions[WARMUP_STEPS + start:WARMUP_STEPS + start + n]
        t = time.perf_counter()
        self._play(actions)
        return time.perf_counter() - t


def timed_round(players: list[_Player], steps: int) -> list[float]:
    """Each side's steps/s over one run of ``steps`` steps from ``reset(seed)``. The sides take turns every
    ``CHUNK_STEPS`` steps, the first to go alternating, so a slow patch of a shared machine (they last
    seconds) falls on both alike instead of on whichever side happened to be running."""
    for p in players:
        p.restart()
    seconds = [0.0] * len(players)
    for k, start in enumerate(range(0, steps, CHUNK_STEPS)):
        n = min(CHUNK_STEPS, steps - start)
        order = range(len(players)) if k % 2 == 0 else reversed(range(len(players)))
        for i in order:
            seconds[i] += players[i].chunk(start, n)
    return [steps / t for t in seconds]


def bench_path(name: str, build: Callable, game: str, steps: int, rounds: int) -> Row:
    try:
        envs = [build(game, side) for side in SIDES]
    except Missing as e:
        return Row(name, game, missing=f"{e} not installed")
    best = [0.0, 0.0]
    try:
        players = [_Player(env, steps) for env in envs]
        for _ in range(max(1, rounds)):
            best = [max(b, r) for b, r in zip(best, timed_round(players, steps))]
    finally:
        for env in envs:
            getattr(env, "close", lambda: None)()
    return Row(name, game, best[0], best[1])


def _print_row(r: Row) -> None:
    if r.missing:
        print(f"{r.pipeline:<34} {'-':<12} {r.missing}", flush=True)
    else:
        print(f"{r.pipeline:<34} {r.game:<12} {r.ours:10.0f} {r.theirs:10.0f} {r.ratio:6.2f}x", flush=True)


def main_pipelines(games: list[str], steps: int, rounds: int, json_to: str | None = None) -> list[Row]:
    from .engine import list_games

    unknown = [g for g in games if g not in list_games()]
    if unknown:
        raise SystemExit(f"arcade-lab bench: no Gymnasium id for {', '.join(unknown)}: "
                         "`arcade-lab games` lists the game ids")
    if steps < 1:
        raise SystemExit(f"arcade-lab bench: --steps must be at least 1, got {steps}")
    print(f"Gymnasium paths: agent steps/s from reset(seed=0), {steps} random steps a run; best of {rounds} "
          "interleaved runs per side")
    print(f"{'path':<34} {'game':<12} {'ours':>10} {'ale-py':>10} {'ratio':>7}")
    from .bench import blocks_ready

    for g in games:
        blocks_ready(g)
    rows = []
    for name, build in PIPELINES:
        for g in games:
            rows.append(bench_path(name, build, g, steps, rounds))
            _print_row(rows[-1])
            if rows[-1].missing:
                break  # one line says it for every game
    ratios = [r.ratio for r in rows if r.ratio is not None]
    if ratios:
        print(f"min ratio ours/ale-py: {min(ratios):.2f}x over {len(ratios)} path x game pairs")
    if json_to:
        _save(rows, steps, rounds, json_to)
    return rows


def _save(rows: list[Row], steps: int, rounds: int, json_to: str) -> None:
    doc = {"steps": steps, "rounds": rounds,
           "rows": [{"path": r.pipeline, "game": r.game, "ours_steps_per_s": r.ours, "ale_py_steps_per_s": r.theirs,
                     "ratio": r.ratio, "missing": r.missing} for r in rows]}
    text = json.dumps(doc, indent=1)
    if json_to == "-":
        print(text)
    else:
        with open(json_to, "w") as f:
            f.write(text + "\n")
