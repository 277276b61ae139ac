"""ale-py's ``AtariVectorEnv`` (0.12.1), compiled: the same options, defaults, preprocessing, autoreset
modes, seeding and outputs, so ``gym.make_vec("ArcadeLab/<Game>-v5", ...)`` is a drop-in for
``gym.make_vec("ALE/<Game>-v5", ...)``.

Each environment ("lane") is ALE with frame skip 1 driven the way ale-py's preprocessed environment
drives it: an agent step plays up to ``frameskip`` frames, stopping early at game over, at the frame
limit or (``episodic_life``) at a lost life; the last two frames it plays are kept (as grey levels or
RGB) and max-pooled, resized by area averaging into a ring of ``stack_num`` frames. A reset is ALE's
``reset_game``, FIRE where the game has it, then a random number of NOOPs drawn from the lane's own
mt19937 (libstdc++'s ``uniform_int_distribution``); a seeded reset first reloads the cartridge with ALE
seeded by that seed, as ale-py does. Their quirks are kept: a step ended early shows the frames kept
before it, and with ``episodic_life`` a lost life resets the whole game.

Frames nobody looks at write no pixels: only the two kept frames of a step draw, and a step whose kept
frame does not start fresh, end and cover the screen window is replayed with every frame drawn (as
``ale_core.act_observed``). Every lane's step, reset and output is one compiled call; each thread steps
its own share of the lanes and then helps with the others' (``Lanes.run``).
"""
from __future__ import annotations

import os
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import ale_core, crew
from ._jit import fetch_add, jit
from .env import Env, paddle_delta
from .layout import E_EPFRAME, E_FRAME, T_FBCUR, T_FRAMES, T_LASTUPD, T_PARTIAL, T_STOPDISP
from .observe import lut_into, rgb_into
from .palettes import NTSC, NTSC_GRAY, PAL, PAL_GRAY
from .preprocess import Resize, linearize, max_into, resize_frame
from .rng import mt_next, mt_seed
from .vector import lane_rows, usable_cores

# P: the options every kernel reads
P_SKIP, P_MAXPOOL, P_NOOP_MAX, P_FIRE, P_EPISODIC, P_LIFE_INFO, P_CLIP, P_MAX_STEPS, P_SAME_STEP, P_GRAY, \
    P_RESIZE, P_RAW_N, P_HEIGHT = range(13)
# ST: each lane's episode (PreprocessedEnv's fields)
ST_ELAPSED, ST_OVER, ST_LIVES, ST_LOST, ST_REWARD, ST_HEAD = range(6)
# O: the outputs per lane, as int32 rows
O_ENV_ID, O_REWARD, O_TERM, O_TRUNC, O_LIVES, O_FRAME, O_EPFRAME = range(7)
JOB_STEP, JOB_RESET, JOB_REPORT, JOB_NONE = range(4)  # JOB_NONE: the lane is left as it is, outputs too
COUNTER_STRIDE = 8  # int64 slots between two threads' job counters: one cache line each
U32 = 0xFFFFFFFF
_FULL_DELTA = paddle_delta(1.0)  # a paddle at full strength


@jit
def uniform_below(rng, n):
    """libstdc++'s ``uniform_int_distribution<int>(0, n - 1)`` over mt19937 (Lemire's multiply-shift with
    rejection; one draw when ``n`` <= 1, as there)."""
    r = n if n > 0 else 1
    product = mt_next(rng, 0, 1) * r
    low = product & U32
    if low < r:
        threshold = ((1 << 32) - r) % r
        while low < threshold:
            product = mt_next(rng, 0, 1) * r
            low = product & U32
    return product >> 32


@jit
def _capture(s, fb, raw_row, P, gray_lut, rgb_lut):
    screen = fb[s[T_FBCUR], :P[P_HEIGHT] * 160]
    if P[P_GRAY] != 0:
        lut_into(screen, gray_lut, raw_row)
    else:
        rgb_into(screen, rgb_lut, raw_row)


@jit
def _process_screen(i, RAW, STACK, ST, P, rp, xs, xw, ys, yw, scratch):
    """Pool the two kept frames into the first, then resize (or copy) it into the ring's next slot.
    ``scratch`` is the calling thread's: one per thread, not per lane, stays in that core's cache (eight
    lanes' 180 KB each did not, and their resizes took half as long again)."""
    raw0 = RAW[i, 0]
    if P[P_MAXPOOL]:
        max_into(raw0, RAW[i, 1])
    head = ST[i, ST_HEAD]
    dst = STACK[i, head]
    if P[P_RESIZE]:
        resize_frame(raw0, dst, rp, xs, xw, ys, yw, scratch)
    else:
        for k in range(dst.shape[0]):
            dst[k] = raw0[k]
    ST[i, ST_HEAD] = (head + 1) % STACK.shape[1]


@jit(inline="always")
def _copy(dst, src):
    for k in range(src.shape[0]):
        dst[k] = src[k]


@jit
def _frame_exact(partial_before, frames_before, s):
    """Whether a frame drawn alone is what drawing every frame gives: it started fresh, ended, and
    covered the screen window."""
    return partial_before == 0 and s[T_FRAMES] - frames_before == 1 and s[T_LASTUPD] >= s[T_STOPDISP]


@jit
def _play(s, rom, fb, r, action, delta, raw, P, gray_lut, rgb_lut, lives0, elapsed0, draw_all):
    """Up to ``frameskip`` frames of one agent step; returns (reward, frames played, game over, life lost,
    exact). Without ``draw_all`` only the kept frames draw; ``exact`` is False when one of them was not
    exact (the caller replays the step drawn)."""
    skip = P[P_SKIP]
    reward = 0
    elapsed = elapsed0
    over = False
    lost = False
    for skip_id in range(skip, 0, -1):
        kept = skip_id <= 2
        partial0 = s[T_PARTIAL]
        frames0 = s[T_FRAMES]
        tail = ale_core.DRAW_ALL if (draw_all or kept) else 0
        reward += ale_core.act(s, rom, fb, r, action, ale_core.PLAYER_B_NOOP, delta, 0, tail)
        over = ale_core.is_terminal(s)
        elapsed += 1
        now = ale_core.lives(s)
        lost = now < lives0 and now > 0
        if over or elapsed >= P[P_MAX_STEPS] or (P[P_EPISODIC] != 0 and lost):
            break
        if kept:
            if not draw_all and not _frame_exact(partial0, frames0, s):
                return reward, elapsed, over, lost, False
            _capture(s, fb, raw[skip_id - 1], P, gray_lut, rgb_lut)
    return reward, elapsed, over, lost, True


@jit
def _lane_step(i, S, rom, FB, R, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT, DELTA, P, gray_lut, rgb_lut,
               rp, xs, xw, ys, yw, scratch):
    s = S[i]
    r = R[i]
    draw_all = DRAWALL[i] != 0
    if not draw_all:
        _copy(SNAP[i], s)
        _copy(RSNAP[i], r)
    reward, elapsed, over, lost, exact = _play(s, rom, FB[i], r, ACT[i], DELTA[i], RAW[i], P, gray_lut, rgb_lut,
                                               ST[i, ST_LIVES], ST[i, ST_ELAPSED], draw_all)
    if not exact:
        _copy(s, SNAP[i])
        _copy(r, RSNAP[i])
        DRAWALL[i] = 1
        reward, elapsed, over, lost, exact = _play(s, rom, FB[i], r, ACT[i], DELTA[i], RAW[i], P, gray_lut,
                                                   rgb_lut, ST[i, ST_LIVES], ST[i, ST_ELAPSED], True)
    ST[i, ST_ELAPSED] = elapsed
    ST[i, ST_OVER] = 1 if over else 0
    ST[i, ST_LOST] = 1 if lost else 0
    _process_screen(i, RAW, STACK, ST, P, rp, xs, xw, ys, yw, scratch)
    ST[i, ST_LIVES] = ale_core.lives(s)
    if P[P_CLIP]:
        reward = -1 if reward < -1 else (1 if reward > 1 else reward)
    ST[i, ST_REWARD] = reward


@jit
def _lane_reset(i, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, P, gray_lut, rgb_lut,
                rp, xs, xw, ys, yw, scratch):
    """ALE's reset_game, FIRE (where the game has it), the random NOOPs, then a fresh ring."""
    s = S[i]
    fb = FB[i]
    r = R[i]
    ale_core.reset_for_observer(s, rom, fb, r, SNAP[i], RSNAP[i], DRAWALL[i] != 0)
    fire = P[P_FIRE]
    full = ale_core.PADDLE_DELTA
    if fire:
        ale_core.act(s, rom, fb, r, ale_core.FIRE, ale_core.PLAYER_B_NOOP, full, 0, ale_core.DRAW_ALL)
    noops = uniform_below(NR[i], P[P_NOOP_MAX]) - fire
    while noops > 0:
        ale_core.act(s, rom, fb, r, ale_core.NOOP, ale_core.PLAYER_B_NOOP, full, 0, ale_core.DRAW_ALL)
        if ale_core.is_terminal(s):
            ale_core.reset_for_observer(s, rom, fb, r, SNAP[i], RSNAP[i], DRAWALL[i] != 0)
        noops -= 1
    STACK[i, :, :] = 0
    ST[i, ST_HEAD] = 0
    _capture(s, fb, RAW[i, 0], P, gray_lut, rgb_lut)
    RAW[i, 1, :] = 0
    _process_screen(i, RAW, STACK, ST, P, rp, xs, xw, ys, yw, scratch)
    ST[i, ST_ELAPSED] = 0
    ST[i, ST_REWARD] = 0
    ST[i, ST_OVER] = 0
    ST[i, ST_LIVES] = ale_core.lives(s)
    ST[i, ST_LOST] = 0


@jit
def _episode_over(i, ST, P):
    return (ST[i, ST_OVER] != 0 or ST[i, ST_ELAPSED] >= P[P_MAX_STEPS]
            or (P[P_EPISODIC] != 0 and ST[i, ST_LOST] != 0))


@jit
def _report(i, slot, S, STACK, ST, P, O, OBS):
    term = ST[i, ST_OVER] != 0 or ((P[P_LIFE_INFO] != 0 or P[P_EPISODIC] != 0) and ST[i, ST_LOST] != 0)
    O[O_ENV_ID, slot] = i
    O[O_REWARD, slot] = ST[i, ST_REWARD]
    O[O_TERM, slot] = 1 if term else 0
    O[O_TRUNC, slot] = 1 if (ST[i, ST_ELAPSED] >= P[P_MAX_STEPS] and not term) else 0
    O[O_LIVES, slot] = ST[i, ST_LIVES]
    O[O_FRAME, slot] = S[i, E_FRAME]
    O[O_EPFRAME, slot] = S[i, E_EPFRAME]
    linearize(STACK[i], ST[i, ST_HEAD], OBS[slot])


@jit
def _next_job(t, bounds, counters):
    """The next job for thread ``t``: from its own share while one is left, then from the others'."""
    parts = bounds.shape[0] - 1
    for k in range(parts):
        part = (t + k) % parts
        j = bounds[part] + fetch_add(counters, part * COUNTER_STRIDE)
        if j < bounds[part + 1]:
            return j
    return -1


@jit
def _work(t, bounds, counters, jobs, kinds, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT, DELTA,
          P, gray_lut, rgb_lut, rp, xs, xw, ys, yw, SCR, O, OBS, FINAL):
    """Thread ``t`` runs this loop over the jobs of its own share (``jobs[bounds[t]:bounds[t + 1]]``), then
    takes what is left of the others'. A job: step (or, in NEXT_STEP mode, reset a lane whose episode is
    over), reset, or report a lane as it stands; the lane's outputs go to its own slot."""
    same_step = P[P_SAME_STEP] != 0
    scratch = SCR[t]
    while True:
        j = _next_job(t, bounds, counters)
        if j < 0:
            break
        i = jobs[j]
        kind = kinds[j]
        if kind == JOB_REPORT:
            _report(i, i, S, STACK, ST, P, O, OBS)
        elif kind == JOB_RESET or (not same_step and _episode_over(i, ST, P)):
            _lane_reset(i, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, P, gray_lut, rgb_lut,
                        rp, xs, xw, ys, yw, scratch)
            _report(i, i, S, STACK, ST, P, O, OBS)
        else:
            _lane_step(i, S, rom, FB, R, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT, DELTA, P, gray_lut, rgb_lut,
                       rp, xs, xw, ys, yw, scratch)
            if same_step and _episode_over(i, ST, P):
                # the episode's last observation and outcome, then the new episode's observation
                linearize(STACK[i], ST[i, ST_HEAD], FINAL[i])
                _report(i, i, S, STACK, ST, P, O, OBS)
                reward = O[O_REWARD, i]
                term = O[O_TERM, i]
                trunc = O[O_TRUNC, i]
                _lane_reset(i, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, P, gray_lut, rgb_lut,
                            rp, xs, xw, ys, yw, scratch)
                _report(i, i, S, STACK, ST, P, O, OBS)
                O[O_REWARD, i] = reward
                O[O_TERM, i] = term
                O[O_TRUNC, i] = trunc
            else:
                _report(i, i, S, STACK, ST, P, O, OBS)
                if same_step and (O[O_TERM, i] != 0 or O[O_TRUNC, i] != 0):
                    # a life lost with life_loss_info and no reset: the final observation is this one
                    linearize(STACK[i], ST[i, ST_HEAD], FINAL[i])


@jit
def _serve(t, ctl, bounds, counters, jobs, kinds, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT,
           DELTA, P, gray_lut, rgb_lut, rp, xs, xw, ys, yw, SCR, O, OBS, FINAL):
    """Helper ``t`` of a :class:`crew.Crew`: its share of every call until the crew stops."""
    gen = 0
    while True:
        gen = crew.park(ctl, gen)
        if gen < 0:
            return
        _work(t, bounds, counters, jobs, kinds, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT,
              DELTA, P, gray_lut, rgb_lut, rp, xs, xw, ys, yw, SCR, O, OBS, FINAL)
        crew.done(ctl)


@jit
def _lead(ctl, bounds, counters, jobs, kinds, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT,
          DELTA, P, gray_lut, rgb_lut, rp, xs, xw, ys, yw, SCR, O, OBS, FINAL):
    """The calling thread's part of a crew's call: start the helpers, run share 0, wait for them."""
    target = crew.start(ctl)
    _work(0, bounds, counters, jobs, kinds, S, rom, FB, R, NR, SNAP, RSNAP, DRAWALL, RAW, STACK, ST, ACT,
          DELTA, P, gray_lut, rgb_lut, rp, xs, xw, ys, yw, SCR, O, OBS, FINAL)
    crew.join(ctl, target)


def _entropy_seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


class Lanes:
    """The arrays and the compiled stepping behind :class:`ArcadeLabVectorEnv` (no Gymnasium)."""

    def __init__(self, game: str, num_envs: int, *, frameskip: int, stack_num: int, img_height: int,
                 img_width: int, grayscale: bool, maxpool: bool, noop_max: int, use_fire_reset: bool,
                 episodic_life: bool, life_loss_info: bool, reward_clipping: bool, max_episode_steps: int,
                 repeat_action_probability: float, full_action_space: bool, same_step: bool,
                 num_threads: int, mode=None, difficulty=None):
        self._load = dict(mode=mode, difficulty=difficulty, frameskip=1,
                          repeat_action_probability=repeat_action_probability, max_num_frames_per_episode=0,
                          full_action_space=full_action_space)
        self.game = game
        proto = Env(game, seed=0, **self._load)
        self.proto = proto
        self.num_envs = n = num_envs
        self.action_set = np.array(proto.legal_actions() if full_action_space else proto.minimal_actions(),
                                   dtype=np.int64)
        has_fire = bool(np.any(self.action_set == ale_core.FIRE))
        self.rom = proto.console.rom
        self.height = h = proto.console.height
        cn = 1 if grayscale else 3
        self.frame_shape = (img_height, img_width) if grayscale else (img_height, img_width, 3)
        resize = (img_height, img_width) != (h, 160)
        self.resize = Resize(h, 160, img_height, img_width, cn) if resize else Resize(h, 160, h, 160, cn)
        self.P = np.zeros(13, dtype=np.int64)
        self.P[[P_SKIP, P_MAXPOOL, P_NOOP_MAX, P_FIRE, P_EPISODIC, P_LIFE_INFO, P_CLIP, P_MAX_STEPS, P_SAME_STEP,
                P_GRAY, P_RESIZE, P_RAW_N, P_HEIGHT]] = [
            frameskip, maxpool, noop_max, use_fire_reset and has_fire, episodic_life, life_loss_info,
            reward_clipping, max_episode_steps, same_step, grayscale, resize, h * 160 * cn, h]
        self.S = lane_rows(proto.console.s, n)
        self.FB = np.repeat(proto.console.fb[None], n, axis=0)
        self.R = lane_rows(proto.rng, n)
        self.NR = np.zeros_like(self.R)
        for i in range(n):  # unseeded, as ale-py's lanes before a seeded reset
            mt_seed(self.R[i], 0, 1, _entropy_seed())
            mt_seed(self.NR[i], 0, 1, _entropy_seed())
        self.SNAP = np.zeros_like(self.S)
        self.RSNAP = np.zeros_like(self.R)
        self.DRAWALL = np.zeros(n, dtype=np.int64)
        self.RAW = np.zeros((n, 2, h * 160 * cn), dtype=np.uint8)
        obs_size = img_height * img_width * cn
        self.STACK = np.zeros((n, stack_num, obs_size), dtype=np.uint8)
        self.ST = np.zeros((n, 6), dtype=np.int64)
        self.ST[:, ST_ELAPSED] = max_episode_steps + 1  # never reset: over, as in ale-py
        self.ACT = np.zeros(n, dtype=np.int64)
        self.DELTA = np.full(n, _FULL_DELTA, dtype=np.int64)
        self.O = np.zeros((7, n), dtype=np.int32)
        self.OBS = np.zeros((n, stack_num * obs_size), dtype=np.uint8)
        self.FINAL = np.zeros_like(self.OBS)
        self.gray_lut = PAL_GRAY if proto.console.pal else NTSC_GRAY
        self.rgb_lut = PAL if proto.console.pal else NTSC
        self._jobs = np.zeros(n, dtype=np.int64)
        self._kinds = np.zeros(n, dtype=np.int64)
        self.num_threads = int(num_threads) or usable_cores()
        self._threads = min(self.num_threads, n)
        self.SCR = self.resize.scratch(self._threads)
        self._bounds = np.zeros(self._threads + 1, dtype=np.int64)
        self._counters = np.zeros(self._threads * COUNTER_STRIDE, dtype=np.int64)
        self._helpers: list[ThreadPoolExecutor] = []
        self._crew = None
        self._all_step = False
        rz = self.resize
        self._args = (self._bounds, self._counters, self._jobs, self._kinds, self.S, self.rom, self.FB, self.R,
                      self.NR, self.SNAP, self.RSNAP, self.DRAWALL, self.RAW, self.STACK, self.ST, self.ACT,
                      self.DELTA, self.P, self.gray_lut, self.rgb_lut, rz.params, rz.xs, rz.xw, rz.ys, rz.yw,
                      self.SCR, self.O, self.OBS, self.FINAL)
        if self._threads > 1 and crew.available():
            self._crew = crew.Crew(_serve, self._threads - 1, self._args)

    def reload(self, i: int, seed: int) -> None:
        """ALE's ``setInt("random_seed", seed)`` and ``loadROM`` for lane ``i``, and its NOOP generator
        seeded with the same value."""
        env = Env(self.game, seed=seed & U32, **self._load)
        s = env.console.s
        self.S[i, :s.shape[0]] = s
        self.FB[i] = env.console.fb
        self.R[i, :env.rng.shape[0]] = env.rng
        mt_seed(self.NR[i], 0, 1, seed & U32)

    def run(self, kinds: np.ndarray, all_step: bool | None = None) -> None:
        """One job per lane (``kinds[i]`` for lane ``i``; none for ``JOB_NONE``). Each thread has its own
        share of the lanes, the same on every call, and takes from the others' only when its own is done:
        a lane stepped by the same core each time finds its frames and state in that core's cache (lanes
        handed out from one shared counter moved between cores: 2-3 % slower on 8 lanes and 2 threads).
        Resets go first within each share, as they cost the most."""
        threads = self._threads
        if all_step is None:
            all_step = bool((kinds == JOB_STEP).all())
        if not (all_step and self._all_step):  # a plain step of every lane keeps the last order
            chosen = np.flatnonzero(kinds != JOB_NONE)
            home = chosen * threads // self.num_envs
            order = chosen[np.lexsort((kinds[chosen] != JOB_RESET, home))]
            self._jobs[:len(order)] = order
            self._kinds[:len(order)] = kinds[order]
            self._bounds[:] = np.searchsorted(home, np.arange(threads + 1))  # home rises with the lane
            self._all_step = all_step
        self._counters[:] = 0
        args = self._args
        busy = self.num_envs if all_step else int(np.count_nonzero((kinds == JOB_STEP) | (kinds == JOB_RESET)))
        helpers = min(threads, busy) - 1
        if helpers > 0 and self._crew is not None:
            _lead(self._crew.ready(), *args)
            return
        if helpers <= 0:
            _work(0, *args)
            return
        # one single-thread executor per helper, so that share t is always stepped by the same thread
        while len(self._helpers) < helpers:
            self._helpers.append(ThreadPoolExecutor(1, thread_name_prefix="arcade-lab-vector"))
        futures = [self._helpers[k].submit(_work, k + 1, *args) for k in range(helpers)]
        _work(0, *args)
        for f in futures:
            f.result()

    def close(self) -> None:
        if self._crew is not None:
            self._crew.stop()
        for pool in self._helpers:
            pool.shutdown(wait=True)
        self._helpers.clear()


class VectorInterface:
    """ale-py's ``ALEVectorInterface`` over :class:`Lanes`: ``reset(indices, seeds)``,
    ``send(action_ids, paddle_strengths)`` and ``recv()``.

    With ``batch_size`` below the number of lanes it is asynchronous as ale-py's: ``send`` starts the
    lanes of the last batch on a thread of their own and returns at once, and ``recv`` hands back the
    next ``batch_size`` lanes whose results are ready, oldest first (``env_id`` says which). Each lane's
    results stay in its own slot until they are handed back, so lanes in flight never overwrite them."""

    def __init__(self, lanes: Lanes, batch_size: int, obs_shape: tuple):
        self.lanes = lanes
        self.num_envs = n = lanes.num_envs
        self.batch_size = batch_size or n
        self._frame_shape = obs_shape
        self._ready: deque[int] = deque()        # lanes whose results wait to be handed back
        self._in_flight: deque = deque()         # (future, lanes) per send not yet received
        self._last = np.arange(n)                # the lanes the next send's actions are for
        self._pending = False
        self._reset_once = False
        self._driver = ThreadPoolExecutor(1, thread_name_prefix="arcade-lab-vector-send") \
            if self.batch_size < n else None
        self._step_all = np.full(n, JOB_STEP, dtype=np.int64)
        self._every = np.arange(n)
        self.owner = None  # a weak reference to the vector environment over it (handle())

    @property
    def asynchronous(self) -> bool:
        return self._driver is not None

    def get_action_set(self) -> list[int]:
        """The ALE action ids the action indices of ``send`` stand for."""
        return [int(a) for a in self.lanes.action_set]

    def get_num_envs(self) -> int:
        return self.num_envs

    def get_observation_shape(self) -> tuple:
        """One environment's observation: (stack, height, width), and 3 colours last for RGB."""
        return tuple(self._frame_shape)

    def handle(self) -> np.ndarray:
        """The 8 bytes naming this environment to the XLA functions of its vector environment's
        ``xla()`` (``engine.vector_xla``)."""
        owner = self.owner() if self.owner is not None else None
        if owner is None:
            raise RuntimeError("this vector interface belongs to no open vector environment")
        from .vector_xla import handle_of

        return handle_of(owner)

    def reset(self, reset_indices, reset_seeds):
        """Reset the lanes ``reset_indices``, reloading the cartridge for each seed >= 0 (ALE seeded by
        it); the others are reported as they stand. Returns (observations, info)."""
        lanes, n = self.lanes, self.num_envs
        idx = np.asarray(reset_indices, dtype=np.int64).reshape(-1)
        seeds = np.asarray(reset_seeds, dtype=np.int64).reshape(-1)
        if idx.shape != seeds.shape:
            raise ValueError(f"one seed per reset index: {len(idx)} indices, {len(seeds)} seeds")
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"env_id out of range [0, {n}): {idx.tolist()}")
        if len(np.unique(idx)) != len(idx):
            raise ValueError(f"duplicate env_id in reset indices: {idx.tolist()}")
        if len(idx) != n:
            if self.asynchronous:
                raise ValueError("a partial reset (reset_mask) needs every lane's results in hand, which "
                                 "asynchronous batches (batch_size < num_envs) do not keep")
            if not self._reset_once:
                raise RuntimeError(f"The first reset() must reset every environment (got {len(idx)} of {n})")
        self._settle()
        for i, s in zip(idx.tolist(), seeds.tolist()):
            if s >= 0:  # ale-py: a negative seed leaves the lane's generators as they are
                lanes.reload(i, s)
        kinds = np.full(n, JOB_REPORT, dtype=np.int64)
        kinds[idx] = JOB_RESET
        lanes.run(kinds)
        self._reset_once = True
        self._pending = False
        self._ready = deque(range(n))
        obs, *_, info = self._hand_back(final=False)
        return obs, info

    def send(self, action_ids: np.ndarray, paddle_strengths: np.ndarray | None) -> None:
        """Actions (indices into the action set) and paddle strengths (None: full strength) for the lanes
        of the last batch."""
        if not self._reset_once:
            raise RuntimeError("send() called before reset()")
        if self._pending:
            raise RuntimeError("send() called twice without recv()")
        lanes, to = self.lanes, self._last
        lanes.ACT[to] = lanes.action_set[np.asarray(action_ids, dtype=np.int64)]
        if paddle_strengths is None:
            lanes.DELTA[to] = _FULL_DELTA
        else:
            lanes.DELTA[to] = (np.float32(23000.0) * np.abs(np.asarray(paddle_strengths, np.float32))).astype(np.int64)
        if len(to) == self.num_envs:  # a full batch: every lane, in order (_hand_back)
            kinds = self._step_all
        else:
            kinds = np.full(self.num_envs, JOB_NONE, dtype=np.int64)
            kinds[to] = JOB_STEP
        self._pending = True
        if self.asynchronous:
            self._in_flight.append((self._driver.submit(lanes.run, kinds), to))
        else:
            self._kinds = kinds

    def recv(self):
        """The next batch: (observations, rewards, terminations, truncations, info)."""
        if not self._pending:
            raise RuntimeError("recv() called without actions sent")
        self._pending = False
        if not self.asynchronous:
            self.lanes.run(self._kinds, self._kinds is self._step_all or None)
            self._ready.extend(range(self.num_envs))
        while len(self._ready) < self.batch_size:
            future, stepped = self._in_flight.popleft()
            future.result()
            self._ready.extend(stepped.tolist())
        return self._hand_back(final=self.lanes.P[P_SAME_STEP] != 0)

    def _settle(self) -> None:
        while self._in_flight:
            future, _ = self._in_flight.popleft()
            future.result()

    def _hand_back(self, final: bool):
        lanes, b = self.lanes, self.batch_size
        if b == self.num_envs:  # every lane, in order (the ready queue only holds a batch at a time)
            self._ready.clear()
            ids = self._every
            O = lanes.O.copy()
            obs = lanes.OBS.copy()
        else:
            ids = np.array([self._ready.popleft() for _ in range(b)], dtype=np.int64)
            O = lanes.O[:, ids]
            obs = lanes.OBS[ids]
        self._last = ids
        shape = (b, *self._frame_shape)
        obs = obs.reshape(shape)
        term = O[O_TERM].astype(np.bool_)
        trunc = O[O_TRUNC].astype(np.bool_)
        info = {"env_id": O[O_ENV_ID], "lives": O[O_LIVES], "frame_number": O[O_FRAME],
                "episode_frame_number": O[O_EPFRAME]}
        if final and (term.any() or trunc.any()):
            done = term | trunc
            fin = np.zeros(shape, dtype=np.uint8)
            fin[done] = lanes.FINAL[ids].reshape(shape)[done]
            info["final_obs"] = fin
        return obs, O[O_REWARD], term, trunc, info

    def close(self) -> None:
        if self._driver is not None:
            self._settle()
            self._driver.shutdown(wait=True)
            self._driver = None
        self.lanes.close()


# ale-py's continuous actions: [horizontal + 1, vertical + 1, fire] -> ALE action (= index into the full set)
_CONTINUOUS = np.array([[[9, 17], [4, 12], [7, 15]],     # left: down, centre, up
                        [[5, 13], [0, 1], [2, 10]],      # centre
                        [[8, 16], [3, 11], [6, 14]]],    # right
                       dtype=np.int64)


def _make_gym_vector():
    import gymnasium
    from gymnasium import error, spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space

    class ArcadeLabVectorEnv(gymnasium.vector.VectorEnv):
        """ale-py's ``AtariVectorEnv`` over our emulator: the same arguments, defaults and outputs.

        Beyond ale-py: ``mode`` and ``difficulty`` (set after every cartridge load, as the single
        environment does). ``thread_affinity_offset`` is accepted and has no effect. ``self.ale`` is the
        :class:`VectorInterface` under it, as ale-py's ``ALEVectorInterface``."""

        def __init__(self, game: str, num_envs: int = 1, *, batch_size: int = 0, num_threads: int = 0,
                     thread_affinity_offset: int = -1, max_num_frames_per_episode: int = 108000,
                     repeat_action_probability: float = 0.0, full_action_space: bool = False,
                     continuous: bool = False, continuous_action_threshold: float = 0.5,
                     autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, img_height: int = 84,
                     img_width: int = 84, grayscale: bool = True, stack_num: int = 4, frameskip: int = 4,
                     maxpool: bool = True, noop_max: int = 30, episodic_life: bool = False,
                     life_loss_info: bool = False, reward_clipping: bool = True, use_fire_reset: bool = True,
                     mode: int | None = None, difficulty: int | None = None, **unknown):
            if unknown:  # a silently ignored option would run an experiment other than the one asked for
                raise TypeError(f"ArcadeLabVectorEnv got unsupported options: {', '.join(sorted(unknown))} "
                                "(its options are ale-py AtariVectorEnv's, plus mode and difficulty)")
            if type(frameskip) is not int:
                raise error.Error(f"Invalid frameskip type: {type(frameskip)}.")
            if frameskip <= 0:
                raise error.Error(f"Invalid frameskip of {frameskip}, frameskip must be positive.")
            for name, v in (("num_envs", num_envs), ("stack_num", stack_num)):
                if not isinstance(v, (int, np.integer)) or v < 1:
                    raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
            if not isinstance(batch_size, (int, np.integer)) or not 0 <= batch_size <= num_envs:
                raise ValueError(f"batch_size must be an integer in [0, num_envs={num_envs}] (0: num_envs), got "
                                 f"{batch_size!r}")
            if num_threads < 0:
                raise ValueError(f"num_threads must be >= 0 (0: one per core), got {num_threads}")
            if not isinstance(max_num_frames_per_episode, (int, np.integer)) or max_num_frames_per_episode < 1:
                raise ValueError(f"max_num_frames_per_episode must be an integer >= 1, got "
                                 f"{max_num_frames_per_episode!r}")
            if not isinstance(noop_max, (int, np.integer)) or noop_max < 0:
                raise ValueError(f"noop_max must be an integer >= 0, got {noop_max!r}")
            self.autoreset_mode = AutoresetMode(autoreset_mode)
            if self.autoreset_mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
                raise ValueError(f"Invalid autoreset_mode: {self.autoreset_mode.value} (NEXT_STEP or SAME_STEP, "
                                 "as ale-py's)")
            self.lanes = Lanes(game, num_envs, frameskip=frameskip, stack_num=stack_num, img_height=img_height,
                               img_width=img_width, grayscale=grayscale, maxpool=maxpool, noop_max=noop_max,
                               use_fire_reset=use_fire_reset, episodic_life=episodic_life,
                               life_loss_info=life_loss_info, reward_clipping=reward_clipping,
                               max_episode_steps=max_num_frames_per_episode,
                               repeat_action_probability=repeat_action_probability,
                               full_action_space=full_action_space or continuous,
                               same_step=self.autoreset_mode == AutoresetMode.SAME_STEP,
                               num_threads=num_threads, mode=mode, difficulty=difficulty)
            self.num_envs = num_envs
            self.batch_size = batch_size = batch_size or num_envs
            self.continuous = continuous
            self.continuous_action_threshold = continuous_action_threshold
            self.grayscale = grayscale
            self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
            frame_shape = (stack_num, *self.lanes.frame_shape)
            self.ale = VectorInterface(self.lanes, batch_size, frame_shape)
            self.ale.owner = weakref.ref(self)
            self.single_observation_space = spaces.Box(0, 255, shape=frame_shape, dtype=np.uint8)
            if continuous:
                self.single_action_space = spaces.Box(low=np.array([0.0, -np.pi, 0.0], np.float32),
                                                      high=np.array([1.0, np.pi, 1.0], np.float32),
                                                      dtype=np.float32, shape=(3,))
            else:
                self.single_action_space = spaces.Discrete(len(self.lanes.action_set))
            self.observation_space = batch_space(self.single_observation_space, batch_size)
            self.action_space = batch_space(self.single_action_space, batch_size)

        # -- ale-py's interface ------------------------------------------------------------------------
        def reset(self, *, seed: int | np.ndarray | None = None, options: dict | None = None):
            n = self.num_envs
            if options is None or "reset_mask" not in options:
                idx = np.arange(n)
            else:
                mask = options["reset_mask"]
                if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
                    raise TypeError(f"`reset_mask` must be a boolean numpy array, got {type(mask)} with dtype "
                                    f"{getattr(mask, 'dtype', None)}")
                if mask.shape != (n,):
                    raise ValueError(f"`reset_mask` must have shape {(n,)}, got {mask.shape}")
                (idx,) = np.where(mask)
            if seed is None:
                seeds = np.full(len(idx), -1)
            elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
                seeds = np.arange(int(seed), int(seed) + len(idx))
            elif isinstance(seed, np.ndarray):
                if seed.shape != (len(idx),):
                    raise ValueError(f"`seed` must have one entry per sub-environment being reset, expected "
                                     f"shape {(len(idx),)}, got {seed.shape}")
                seeds = seed
            else:
                raise TypeError("Unsupported seed type")
            return self.ale.reset(idx, np.asarray(seeds).astype(np.int64))

        def step(self, actions):
            self.send(actions)
            return self.recv()

        def send(self, actions) -> None:
            """One action per environment of the last batch (ale-py's asynchronous half of ``step``)."""
            lanes = self.lanes
            if self.continuous:
                a = np.asarray(actions)
                if a.dtype != np.float32 or a.shape != (self.batch_size, 3):
                    raise ValueError(f"continuous actions must be float32 of shape {(self.batch_size, 3)}, got "
                                     f"{a.dtype} {a.shape}")
                t = self.continuous_action_threshold
                x, y = a[:, 0] * np.cos(a[:, 1]), a[:, 0] * np.sin(a[:, 1])
                h = -(x < -t).astype(np.int64) + (x > t)
                v = -(y < -t).astype(np.int64) + (y > t)
                idx = _CONTINUOUS[h + 1, v + 1, (a[:, 2] > t).astype(np.int64)]
                strength = a[:, 0]
            else:
                a = np.asarray(actions)
                if not isinstance(actions, np.ndarray) or a.dtype not in (np.int64, np.int32):
                    raise TypeError(f"actions must be an int32 or int64 numpy array, got {type(actions)}"
                                    f" with dtype {getattr(actions, 'dtype', None)}")
                if a.shape != (self.batch_size,):
                    raise ValueError(f"expected {self.batch_size} actions, got shape {a.shape}")
                if a.size and (a.min() < 0 or a.max() >= len(lanes.action_set)):
                    raise ValueError(f"action indices must be in [0, {len(lanes.action_set)}), got {a}")
                idx = a
                strength = None
            self.ale.send(idx, strength)

        def recv(self):
            """The next batch's (observations, rewards, terminations, truncations, info)."""
            return self.ale.recv()

        def get_action_meanings(self) -> list[str]:
            from .games.base import ACTION_MEANINGS

            return [ACTION_MEANINGS[a] for a in self.lanes.action_set]

        def xla(self):
            """ale-py's XLA interface, ``(handle, reset, step)`` callable inside ``jax.jit``
            (``engine.vector_xla``; needs jax: ``pip install "arcade-lab[xla]"``)."""
            from .vector_xla import xla_functions

            return xla_functions(self)

        def close_extras(self, **kwargs):
            self.ale.close()

        def __getstate__(self):
            raise TypeError("a vector environment cannot be copied or pickled (nor can ale-py's): its lanes "
                            "run on this process's threads; make another with the same arguments")

    return ArcadeLabVectorEnv


def __getattr__(name):
    if name == "ArcadeLabVectorEnv":
        cls = _make_gym_vector()
        globals()[name] = cls
        return cls
    raise AttributeError(name)
