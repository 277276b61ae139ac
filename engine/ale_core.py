"""ALE's environment layer, compiled: actions to input events, ``emulate``, ``pressSelect``,
``softReset``, ``act`` with frame skip and sticky actions, and the reset choreography.

Everything here mirrors ``StellaEnvironment``/``ALEState`` of ALE 0.12.1 and runs without returning to
Python, so search and batched stepping stay compiled. The game's rules are reached through
``games._dispatch`` (step after every emulated frame).
"""
from __future__ import annotations

import numpy as np

from ._jit import jit
from .games import _dispatch as dispatch
from .games.base import FIRE, G_REWARD, G_TERMINAL, NOOP, PLAYER_B_NOOP  # noqa: F401  (FIRE: env reads ale_core.FIRE)
from .games.base import RESET as RESET_ACTION
from .layout import (
    EV_J_UP, EV_J_DOWN, EV_J_LEFT, EV_J_RIGHT, EV_J_FIRE, EV_P_FIRE, EV_P_RES, EV_RESET, EV_SELECT,
    EV_DIFF_A, EV_DIFF_B, E_FRAME, E_EPFRAME, E_MODE, E_DIFF, E_PADDLE, E_PADDLE_MIN, E_PADDLE_MAX,
    E_LAST_ACT, E_LAST_DELTA, E_FRAMESKIP, E_STICKY_THRESH, E_USE_PADDLES, E_PAL, E_GAME, E_MAXFRAMES,
    E_TRUNC_LIFE, E_MAXLIVES, NODRAW, T_FBCUR, T_FRAMES, T_LASTUPD, T_PARTIAL, T_STOPDISP,
)
from .machine import latch_inputs, run_frame, system_reset
from .observe import lut_into, rgb_into
from .rng import mt_next

PADDLE_DELTA = 23000
PADDLE_MIN = 27450
PADDLE_MAX = 790196
INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1

# Per action (0..17, the same for player B at 18..35): [up, down, left, right, fire] and paddle direction.
_JOY = np.array([
    [0, 0, 0, 0, 0], [0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0],
    [1, 0, 0, 1, 0], [1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 1, 1, 0, 0], [1, 0, 0, 0, 1], [0, 0, 0, 1, 1],
    [0, 0, 1, 0, 1], [0, 1, 0, 0, 1], [1, 0, 0, 1, 1], [1, 0, 1, 0, 1], [0, 1, 0, 1, 1], [0, 1, 1, 0, 1],
], dtype=np.int64)
JOYSTICK_TABLE = _JOY  # per ALE action 0..17: up, down, left, right, fire


@jit
def _reset_keys(s):
    """ALE ``resetKeys``: release everything, then re-apply the difficulty switches."""
    s[EV_RESET] = 0
    s[EV_SELECT] = 0
    for p in range(2):
        s[EV_J_UP + p] = 0
        s[EV_J_DOWN + p] = 0
        s[EV_J_LEFT + p] = 0
        s[EV_J_RIGHT + p] = 0
        s[EV_J_FIRE + p] = 0
        s[EV_P_FIRE + p] = 0
    d = s[E_DIFF]
    s[EV_DIFF_A] = d & 1
    s[EV_DIFF_B] = 0 if d & 1 else 1
    s[EV_DIFF_A + 1] = (d & 2) >> 1
    s[EV_DIFF_B + 1] = 0 if d & 2 else 1


@jit
def set_paddles(s, left, right):
    s[E_PADDLE] = left
    s[E_PADDLE + 1] = right
    s[EV_P_RES] = left
    s[EV_P_RES + 1] = right


@jit
def reset_paddles(s):
    mid = (s[E_PADDLE_MIN] + s[E_PADDLE_MAX]) // 2
    set_paddles(s, mid, mid)


@jit
def _paddle_step(action, delta):
    """Signed resistance change for one player's action (RIGHT-type: less resistance)."""
    a = action % 18
    if _JOY[a, 3]:
        return -delta
    if _JOY[a, 2]:
        return delta
    return 0


@jit
def apply_action(s, a_action, b_action, a_delta, b_delta):
    """Input events for one frame (ALE ``applyActionJoysticks``/``applyActionPaddles``)."""
    _reset_keys(s)
    if s[E_USE_PADDLES]:
        lo = s[E_PADDLE_MIN]
        hi = s[E_PADDLE_MAX]
        left = s[E_PADDLE]
        right = s[E_PADDLE + 1]
        if a_action < 18:
            left += _paddle_step(a_action, a_delta)
        if 18 <= b_action < 36:
            right += _paddle_step(b_action, b_delta)
        left = lo if left < lo else (hi if left > hi else left)
        right = lo if right < lo else (hi if right > hi else right)
        set_paddles(s, left, right)
        if a_action == RESET_ACTION or b_action == RESET_ACTION:
            s[EV_RESET] = 1
        if a_action < 18 and _JOY[a_action, 4]:
            s[EV_P_FIRE] = 1
        if 18 <= b_action < 36 and _JOY[b_action - 18, 4]:
            s[EV_P_FIRE + 1] = 1
    else:
        for p in range(2):
            act = a_action if p == 0 else b_action
            if act == RESET_ACTION:
                s[EV_RESET] = 1
                continue
            k = act - 18 * p
            if 0 <= k < 18:
                s[EV_J_UP + p] = _JOY[k, 0]
                s[EV_J_DOWN + p] = _JOY[k, 1]
                s[EV_J_LEFT + p] = _JOY[k, 2]
                s[EV_J_RIGHT + p] = _JOY[k, 3]
                s[EV_J_FIRE + p] = _JOY[k, 4]
    latch_inputs(s)


@jit
def emulate(s, rom, fb, a_action, b_action, a_delta, b_delta, n, draw):
    """``n`` frames with fixed actions, the game's rules stepped after each (ALE ``emulate``)."""
    g = s[E_GAME]
    for _ in range(n):
        apply_action(s, a_action, b_action, a_delta, b_delta)
        run_frame(s, rom, fb, draw)
        dispatch.game_step(s, g)


@jit
def soft_reset(s, rom, fb):
    """Hold the console RESET switch for 4 frames; the sticky 'previous action' becomes NOOP."""
    emulate(s, rom, fb, RESET_ACTION, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 4, True)
    s[E_LAST_ACT] = NOOP
    s[E_LAST_ACT + 1] = PLAYER_B_NOOP


@jit
def press_select(s, rom, fb, n):
    """Hold SELECT for ``n`` frames (rules not stepped), then one NOOP frame; counts as one frame."""
    _reset_keys(s)
    s[EV_SELECT] = 1
    latch_inputs(s)
    for _ in range(n):
        run_frame(s, rom, fb, True)
    emulate(s, rom, fb, NOOP, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1, True)
    s[E_FRAME] += 1
    s[E_EPFRAME] += 1


@jit
def lives(s):
    return dispatch.game_lives(s, s[E_GAME])


@jit
def is_truncated(s):
    if s[E_MAXFRAMES] > 0 and s[E_EPFRAME] >= s[E_MAXFRAMES]:
        return True
    if s[E_TRUNC_LIFE] and lives(s) < s[E_MAXLIVES]:
        return True
    return False


@jit
def is_terminal(s):
    return s[G_TERMINAL] != 0 or is_truncated(s)


@jit
def one_step_act(s, rom, fb, a_action, b_action, a_delta, b_delta, draw):
    if is_terminal(s):
        return 0
    g = s[E_GAME]
    if a_action < PLAYER_B_NOOP and not dispatch.game_legal(g, a_action):
        a_action = NOOP
    elif a_action == RESET_ACTION:
        a_action = NOOP
    if b_action < RESET_ACTION and not dispatch.game_legal(g, b_action - PLAYER_B_NOOP):
        b_action = PLAYER_B_NOOP
    elif b_action == RESET_ACTION:
        b_action = PLAYER_B_NOOP
    emulate(s, rom, fb, a_action, b_action, a_delta, b_delta, 1, draw)
    s[E_FRAME] += 1
    s[E_EPFRAME] += 1
    return s[G_REWARD]


@jit
def act(s, rom, fb, erng, a_action, b_action, a_delta, b_delta, draw_tail):
    """ALE ``act``: frame_skip frames; per frame two environment-RNG draws decide (independently for
    each player) whether the new action replaces the previous one. Reward summed and clamped to int.
    Only the last ``draw_tail`` frames write pixels (collisions are computed on every frame)."""
    total = 0
    skip = s[E_FRAMESKIP]
    thresh = s[E_STICKY_THRESH]
    for k in range(skip):
        if mt_next(erng, 0, 1) >= thresh:
            s[E_LAST_ACT] = a_action
            s[E_LAST_DELTA] = a_delta
        if mt_next(erng, 0, 1) >= thresh:
            s[E_LAST_ACT + 1] = b_action
            s[E_LAST_DELTA + 1] = b_delta
        draw = k >= skip - draw_tail
        total += one_step_act(s, rom, fb, s[E_LAST_ACT], s[E_LAST_ACT + 1], s[E_LAST_DELTA],
                              s[E_LAST_DELTA + 1], draw)
    return INT_MIN if total < INT_MIN else (INT_MAX if total > INT_MAX else total)


DRAW_ALL = 1 << 30  # a ``draw_tail`` longer than any frame skip


@jit(inline="always")
def _copy(dst, src):
    for k in range(src.shape[0]):
        dst[k] = src[k]


@jit
def act_observed(s, rom, fb, erng, action, delta, snap, rsnap, draw_all):
    """``act`` for player A as an observer of the step's last frame sees it: only that frame writes pixels
    (every frame computes collisions). That is exact when the frame covers the screen window. When it
    does not — the game ended mid-skip, the frame stopped above the window's bottom (older frames' rows
    show), or a frame call ran out of instructions (a partial frame: its first rows came from an undrawn
    call, and ALE greys what such a call left) — the step is replayed from ``snap``/``rsnap`` (scratch
    copies of ``s`` and ``erng``) with every frame drawn. Returns (reward, draw_all): ``draw_all`` turns
    true when a full step drew a short frame; the caller then passes it back and every frame is drawn."""
    if draw_all or s[E_FRAMESKIP] <= 1:
        return act(s, rom, fb, erng, action, PLAYER_B_NOOP, delta, 0, DRAW_ALL), draw_all
    _copy(snap, s)
    _copy(rsnap, erng)
    f0 = s[E_FRAME]
    t0 = s[T_FRAMES]
    r = act(s, rom, fb, erng, action, PLAYER_B_NOOP, delta, 0, 1)
    ran = s[E_FRAME] - f0
    skip = s[E_FRAMESKIP]
    if ran > 0 and (ran < skip or s[T_LASTUPD] < s[T_STOPDISP] or s[T_FRAMES] - t0 != ran):
        _copy(s, snap)
        _copy(erng, rsnap)
        return act(s, rom, fb, erng, action, PLAYER_B_NOOP, delta, 0, DRAW_ALL), ran == skip
    return r, False


@jit
def gym_step(s, rom, fb, erng, action, delta, snap, rsnap, draw_all, frames, pixels, rgb, palette, grey, out):
    """A whole Gymnasium step in one compiled call (each call from Python costs about a microsecond, and a
    frame-skip-1 wrapper makes one step per frame): ``frames`` frames of ``action`` as an observer sees
    them (``act_observed``; the environment's own frame skip is put back after), then the observation —
    the first ``pixels`` palette indices of the frame buffer shown, through ``palette`` into RGB when
    ``rgb`` else through ``grey`` — written into ``out`` (flat). Returns (reward, draw_all, terminated,
    truncated, lives)."""
    old = s[E_FRAMESKIP]
    s[E_FRAMESKIP] = frames
    r, d = act_observed(s, rom, fb, erng, action, delta, snap, rsnap, draw_all)
    s[E_FRAMESKIP] = old
    src = fb[s[T_FBCUR], :pixels]
    if rgb:
        rgb_into(src, palette, out)
    else:
        lut_into(src, grey, out)
    return r, d, s[G_TERMINAL] != 0, is_truncated(s), lives(s)


@jit
def _reset_sequence(s, rom, fb, erng, tail_only):
    """ALE ``StellaEnvironment::reset``: soft power cycle, 60 NOOP frames, RESET, the game's rules reset,
    mode selection, RESET again, then the game's starting actions. ``tail_only``: every frame but the last
    two runs undrawn (``NODRAW``) — the two frame buffers then hold what they would after a drawn reset
    when both frames start fresh, end and cover the screen window; returns whether they did."""
    g = s[E_GAME]
    n_start = 0
    while n_start < dispatch.N_START_MAX and dispatch.game_start_action(g, n_start) >= 0:
        n_start += 1
    s[NODRAW] = 1 if tail_only else 0
    s[E_EPFRAME] = 0
    reset_paddles(s)
    system_reset(s, rom, fb, s[E_PAL] != 0)
    emulate(s, rom, fb, NOOP, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 60, True)
    soft_reset(s, rom, fb)
    dispatch.game_reset(s, g)
    dispatch.game_set_mode(s, rom, fb, erng, g, s[E_MODE])
    # the second soft reset's 4 frames, then the starting actions, one frame each; the last two drawn
    exact = True
    total = 4 + n_start
    for j in range(total):
        last_two = j >= total - 2
        if last_two:
            s[NODRAW] = 0
            exact = exact and s[T_PARTIAL] == 0
        a = RESET_ACTION if j < 4 else dispatch.game_start_action(g, j - 4)
        emulate(s, rom, fb, a, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1, True)
        if j == 3:
            s[E_LAST_ACT] = NOOP
            s[E_LAST_ACT + 1] = PLAYER_B_NOOP
        if last_two:
            exact = exact and s[T_PARTIAL] == 0 and s[T_LASTUPD] >= s[T_STOPDISP]
    s[NODRAW] = 0
    return exact


@jit
def env_reset(s, rom, fb, erng):
    """The reset choreography with every frame drawn."""
    _reset_sequence(s, rom, fb, erng, False)


@jit
def env_reset_observed(s, rom, fb, erng, snap, rsnap):
    """``env_reset`` with only its last two frames writing pixels (the ~70 before them are overwritten
    unseen): one per frame buffer, as the next frame (frame skip 1) may be short and show the older
    buffer's rows. Exact when both start fresh, end, and cover the screen window (as in ``act_observed``);
    otherwise the reset is replayed from ``snap``/``rsnap`` with every frame drawn. Returns whether it had
    to be replayed."""
    _copy(snap, s)
    _copy(rsnap, erng)
    if _reset_sequence(s, rom, fb, erng, True):
        return False
    _copy(s, snap)
    _copy(erng, rsnap)
    _reset_sequence(s, rom, fb, erng, False)
    return True


@jit
def reset_for_observer(s, rom, fb, erng, snap, rsnap, draw_all):
    """The reset an environment runs: every frame drawn for a game whose frames do not always cover the
    window (``act_observed``'s ``draw_all``), else ``env_reset_observed``."""
    if draw_all:
        env_reset(s, rom, fb, erng)
    else:
        env_reset_observed(s, rom, fb, erng, snap, rsnap)
