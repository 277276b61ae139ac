"""Double Dunk: player minus opponent BCD points; game over at 24 points when $FE = $E7 (ALE
``DoubleDunk``). The 16 modes are the four option bits set through the game's menu. Starts with UPFIRE."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, DOWN, G_TERMINAL, LEFT, NOOP, PLAYER_B_NOOP, RIGHT, UPFIRE, Game, bcd, lives_zero,
                   ram, reset_common, set_reward_from_score)

PADDLE_DELTA = 23000
lives = lives_zero


@jit
def step(s):
    mine = bcd(ram(s, 0xF6))
    theirs = bcd(ram(s, 0xF7))
    set_reward_from_score(s, mine - theirs)
    s[G_TERMINAL] = 1 if ((mine >= 24 or theirs >= 24) and ram(s, 0xFE) == 0xE7) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def _play(s, rom, fb, erng, a):
    core.act(s, rom, fb, erng, a, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1 << 30)
    core.act(s, rom, fb, erng, NOOP, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1 << 30)


@jit
def _next_row(s, rom, fb, erng):
    before = ram(s, 0xB0)
    while ram(s, 0xB0) == before:
        _play(s, rom, fb, erng, DOWN)


@jit
def _option(s, rom, fb, erng, bit, on):
    if on:
        while (ram(s, 0x80) & bit) != bit:
            _play(s, rom, fb, erng, RIGHT)
    else:
        while (ram(s, 0x80) & bit) == bit:
            _play(s, rom, fb, erng, LEFT)


@jit
def set_mode(s, rom, fb, erng, mode):
    core.press_select(s, rom, fb, 1)
    _next_row(s, rom, fb, erng)
    _next_row(s, rom, fb, erng)
    _option(s, rom, fb, erng, 0x08, (mode & 1) != 0)
    _next_row(s, rom, fb, erng)
    _option(s, rom, fb, erng, 0x10, (mode & 2) != 0)
    _next_row(s, rom, fb, erng)
    _option(s, rom, fb, erng, 0x04, (mode & 4) != 0)
    _next_row(s, rom, fb, erng)
    _option(s, rom, fb, erng, 0x20, (mode & 8) != 0)
    core.soft_reset(s, rom, fb)
    _play(s, rom, fb, erng, UPFIRE)


GAME = Game(
    id="double_dunk", md5="368d88a6c071caba60b4f778615aae94", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(16)), starting_actions=(UPFIRE,), set_mode=set_mode,
)
