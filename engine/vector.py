"""Many machines stepped by compiled calls on the package's own threads.

Each environment is one row of ``S`` (the flat machine state), its own frame buffers and environment RNG;
they share the ROM bytes. One call applies every environment's action for its frame skip, writes the
observations into preallocated arrays and auto-resets finished environments on their next step
(Gymnasium's NEXT_STEP autoreset), never returning to Python per frame.

The threads are the calling one and ``num_threads - 1`` helpers; each runs ``_work``, a nogil kernel
taking environments from a shared counter. numba's own threading layer is not used: its OpenMP workers
spin while they wait, so on a machine busy with other programs two threads ran several times slower than
one. The helpers wait in compiled code (``crew``: briefly polling, then asleep in the kernel), or where
crews do not run, in a thread pool.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import ale_core, crew
from ._jit import fetch_add, jit
from .env import Env, paddle_delta
from .observe import rgb_into
from .layout import E_EPFRAME, E_FRAME, RAM0, T_FBCUR
from .palettes import NTSC, NTSC_GRAY, PAL, PAL_GRAY

OBS_RGB, OBS_GRAY, OBS_RAM, OBS_NONE = range(4)

# Each environment's state and RNG rows end in a gap nothing touches. Without it the last slots of one
# state row (written on most TIA accesses: DEFER_CLK, the line's collision cover) and the first of the
# next (the CPU registers) share a cache line, and two threads stepping neighbouring environments pass it
# back and forth: 8 environments on 2 cores stepped 8-20 % slower.
ROW_GAP = 16  # int64 slots: two cache lines


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def lane_rows(row: np.ndarray, n: int) -> np.ndarray:
    """``row`` repeated for ``n`` environments, each followed by ``ROW_GAP`` spare slots."""
    out = np.zeros((n, row.shape[0] + ROW_GAP), dtype=row.dtype)
    out[:, :row.shape[0]] = row
    return out


def gray_pairs(gray_lut: np.ndarray) -> np.ndarray:
    """Two pixels' grey levels per lookup: entry ``v`` holds the levels of the two palette bytes that read
    as the 16-bit word ``v`` (in this machine's byte order) — half the lookups of one per pixel."""
    pairs = np.arange(65536, dtype=np.uint16).view(np.uint8).reshape(-1, 2)
    return np.ascontiguousarray(gray_lut[pairs]).reshape(-1).view(np.uint16)


@jit
def _step_one(i, S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
              height, rgb_lut, gray_lut, SNAP, RSNAP, drawall):
    s = S[i]
    fb = FB[i]
    if done[i]:
        ale_core.reset_for_observer(s, rom, fb, R[i], SNAP[i], RSNAP[i], drawall[i] != 0)
        rewards[i] = 0
        done[i] = 0
    elif obs_kind > OBS_GRAY:
        # RAM observations: no pixel is ever looked at (collisions are still computed)
        rewards[i] = ale_core.act(s, rom, fb, R[i], actions[i], ale_core.PLAYER_B_NOOP, deltas[i], 0, 0)
    else:
        # only the observed last frame draws (replayed fully drawn where that is not exact)
        r, d = ale_core.act_observed(s, rom, fb, R[i], actions[i], deltas[i], SNAP[i], RSNAP[i],
                                     drawall[i] != 0)
        drawall[i] = 1 if d else 0
        rewards[i] = r
    term = s[ale_core.G_TERMINAL] != 0
    trunc = ale_core.is_truncated(s) and not term
    terms[i] = term
    truncs[i] = trunc
    if term or trunc:
        done[i] = 1
    lives[i] = ale_core.lives(s)
    frames[i, 0] = s[E_FRAME]
    frames[i, 1] = s[E_EPFRAME]
    _write_obs(s, fb, obs, i, obs_kind, height, rgb_lut, gray_lut)


@jit
def _queue(done, order):
    """Environments in the order threads take them: resets (~70 frames each, a step is 4) first."""
    k = 0
    for first in (True, False):
        for i in range(done.shape[0]):
            if (done[i] != 0) == first:
                order[k] = i
                k += 1


@jit
def _work(S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
          height, rgb_lut, gray_lut, SNAP, RSNAP, drawall, order, counter, resets_only):
    # Every thread runs this loop, taking the next environment from a shared counter when it is free:
    # steps differ in cost (a reset, a replayed step), and a fixed split would leave one core waiting on
    # the other. ``resets_only[0]``: only the environments marked done are stepped (VectorEnv.reset).
    # (``obs_kind`` and ``resets_only`` are one-element arrays: a crew's helpers hold the arguments for good.)
    n = S.shape[0]
    kind = obs_kind[0]
    only_resets = resets_only[0] != 0
    while True:
        j = fetch_add(counter, 0)
        if j >= n:
            break
        i = order[j]
        if only_resets and not done[i]:
            continue
        _step_one(i, S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs,
                  kind, height, rgb_lut, gray_lut, SNAP, RSNAP, drawall)


@jit
def _serve(t, ctl, S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
           height, rgb_lut, gray_lut, SNAP, RSNAP, drawall, order, counter, resets_only):
    """A helper of :class:`crew.Crew`: takes environments from the shared counter on every call."""
    gen = 0
    while True:
        gen = crew.park(ctl, gen)
        if gen < 0:
            return
        _work(S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
              height, rgb_lut, gray_lut, SNAP, RSNAP, drawall, order, counter, resets_only)
        crew.done(ctl)


@jit
def _lead(ctl, S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
          height, rgb_lut, gray_lut, SNAP, RSNAP, drawall, order, counter, resets_only):
    target = crew.start(ctl)
    _work(S, rom, FB, R, actions, deltas, done, rewards, terms, truncs, lives, frames, obs, obs_kind,
          height, rgb_lut, gray_lut, SNAP, RSNAP, drawall, order, counter, resets_only)
    crew.join(ctl, target)


@jit
def _write_obs(s, fb, obs, i, obs_kind, height, rgb_lut, gray_lut):
    if obs_kind == OBS_RAM:
        for k in range(128):
            obs[i, k] = s[RAM0 + k]
    elif obs_kind == OBS_GRAY:  # gray_lut: gray_pairs' table, two pixels at a time (rows are 160 wide)
        src = fb[s[T_FBCUR]].view(np.uint16)
        dst = obs[i].view(np.uint16)
        for k in range(height * 80):
            dst[k] = gray_lut[src[k]]
    elif obs_kind == OBS_RGB:
        rgb_into(fb[s[T_FBCUR], :height * 160], rgb_lut, obs[i])


class VectorEnv:
    """N copies of one game, stepped together (ALE semantics per copy, seeds ``seed + i``), without
    preprocessing. The Gymnasium vector environment (ale-py's ``AtariVectorEnv``) is
    ``engine.ale_vector.ArcadeLabVectorEnv``."""

    def __init__(self, game: str, num_envs: int, *, obs_type: str = "grayscale", frameskip: int = 4,
                 repeat_action_probability: float = 0.25, max_num_frames_per_episode: int = 108_000,
                 full_action_space: bool = False, mode=None, difficulty=None, seed: int = 0,
                 num_threads: int = 0):
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        if num_threads < 0:
            raise ValueError(f"num_threads must be >= 0 (0: one per core), got {num_threads}")
        self.num_threads = int(num_threads) or usable_cores()
        self._pool: ThreadPoolExecutor | None = None
        kinds = {"rgb": OBS_RGB, "grayscale": OBS_GRAY, "ram": OBS_RAM, "none": OBS_NONE}
        if obs_type not in kinds:
            raise ValueError(f"obs_type must be one of {sorted(kinds)}, got {obs_type!r}")
        self.obs_kind = kinds[obs_type]
        self.num_envs = num_envs
        proto = Env(game, frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                    max_num_frames_per_episode=max_num_frames_per_episode, full_action_space=full_action_space,
                    mode=mode, difficulty=difficulty, seed=seed)
        self.proto = proto
        self.action_set = np.array(proto.action_set(), dtype=np.int64)
        self.rom = proto.console.rom
        self.height = proto.console.height
        self.S = lane_rows(proto.console.s, num_envs)
        self.FB = np.repeat(proto.console.fb[None], num_envs, axis=0)
        self.R = lane_rows(proto.rng, num_envs)
        from .rng import mt_seed

        for i in range(num_envs):
            mt_seed(self.R[i], 0, 1, (seed + i) & 0xFFFFFFFF)
        pal = proto.console.pal
        self.rgb_lut = PAL if pal else NTSC
        self.gray_lut = gray_pairs(PAL_GRAY if pal else NTSC_GRAY)
        size = {OBS_RGB: self.height * 160 * 3, OBS_GRAY: self.height * 160, OBS_RAM: 128, OBS_NONE: 1}[self.obs_kind]
        self.obs = np.zeros((num_envs, size), dtype=np.uint8)
        self.done = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros(num_envs, dtype=np.int64)
        self.terms = np.zeros(num_envs, dtype=np.bool_)
        self.truncs = np.zeros(num_envs, dtype=np.bool_)
        self.lives = np.zeros(num_envs, dtype=np.int64)
        self.frames = np.zeros((num_envs, 2), dtype=np.int64)
        self._deltas = np.full(num_envs, paddle_delta(1.0), dtype=np.int64)
        self._snap = np.zeros_like(self.S)
        self._rsnap = np.zeros_like(self.R)
        self._drawall = np.zeros(num_envs, dtype=np.int64)
        self._order = np.zeros(num_envs, dtype=np.int64)
        self._counter = np.zeros(1, dtype=np.int64)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._resets_only = np.zeros(1, dtype=np.int64)
        # what every call passes: the same arrays each time (a crew's helpers hold them), their contents set
        self._args = (self.S, self.rom, self.FB, self.R, self._actions, self._deltas, self.done, self.rewards,
                      self.terms, self.truncs, self.lives, self.frames, self.obs, np.array([self.obs_kind]),
                      self.height, self.rgb_lut, self.gray_lut, self._snap, self._rsnap, self._drawall,
                      self._order, self._counter, self._resets_only)
        self._helpers = min(self.num_threads, num_envs) - 1
        self._crew = None
        if self._helpers > 0 and crew.available():
            self._crew = crew.Crew(_serve, self._helpers, self._args)
        self.reset()

    def observations(self) -> np.ndarray:
        if self.obs_kind == OBS_RGB:
            return self.obs.reshape(self.num_envs, self.height, 160, 3)
        if self.obs_kind == OBS_GRAY:
            return self.obs.reshape(self.num_envs, self.height, 160)
        return self.obs

    def reset(self, mask=None) -> np.ndarray:
        m = np.ones(self.num_envs, dtype=np.int64) if mask is None else np.asarray(mask, dtype=np.int64)
        self.done[m != 0] = 1  # a done environment's next step is its reset
        self._run(self.action_set[np.zeros(self.num_envs, dtype=np.int64)], True)
        return self.observations()

    def _run(self, actions: np.ndarray, resets_only: bool) -> None:
        _queue(self.done, self._order)
        self._counter[0] = 0
        self._actions[:] = actions
        self._resets_only[0] = resets_only
        args = self._args
        if self._helpers <= 0:
            _work(*args)
            return
        if self._crew is not None:
            _lead(self._crew.ready(), *args)
            return
        # The calling thread works too; the helpers wait on a lock between calls rather than spinning, so
        # a busy machine's other programs get the cores they leave idle.
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._helpers, thread_name_prefix="arcade-lab-vector")
        futures = [self._pool.submit(_work, *args) for _ in range(self._helpers)]
        _work(*args)
        for f in futures:
            f.result()

    def __getstate__(self):
        raise TypeError("a VectorEnv cannot be copied or pickled: its lanes run on this process's threads; "
                        "make another with the same arguments")

    def close(self) -> None:
        """Stop the worker threads (they also stop with the process)."""
        if self._crew is not None:
            self._crew.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def step(self, action_indices) -> tuple:
        """Actions are indices into the action set; returns (obs, rewards, terminated, truncated, lives)."""
        idx = np.asarray(action_indices)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"actions are integer indices into the action set, got {idx.dtype} {action_indices!r}")
        idx = idx.astype(np.int64, copy=False)
        if idx.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {idx.shape}")
        if idx.min() < 0 or idx.max() >= len(self.action_set):
            raise ValueError(f"action indices must be in [0, {len(self.action_set)})")
        self._run(self.action_set[idx], False)
        return self.observations(), self.rewards.copy(), self.terms.copy(), self.truncs.copy(), self.lives.copy()


def __getattr__(name):
    # The Gymnasium vector environment (ale-py's AtariVectorEnv) lives in ``ale_vector``, loaded by name so
    # that this module's compiled code does not depend on that module's source.
    if name == "ArcadeLabVectorEnv":
        import importlib

        cls = importlib.import_module(f"{__package__}.ale_vector").ArcadeLabVectorEnv
        globals()[name] = cls
        return cls
    raise AttributeError(name)
