"""Berzerk: 6-digit BCD score at $DD-$DF; lives byte $DA (+1), $FF at game over (ALE ``Berzerk``).
Mode selection first plays 20 NOOP steps."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, NOOP, PLAYER_B_NOOP, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

PADDLE_DELTA = 23000
lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 95, 94, 93))
    b = ram(s, 0xDA)
    s[G_TERMINAL] = 1 if b == 0xFF else 0
    s[G_LIVES] = b + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    for _ in range(20):
        core.act(s, rom, fb, erng, NOOP, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1 << 30)
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="berzerk", md5="136f75c4dd02c29283752b7e5799f978", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(1, 10)) + (0x10, 0x11, 0x12), set_mode=set_mode,
)
