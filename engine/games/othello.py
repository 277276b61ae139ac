"""Othello: reward follows white's minus black's disc count (BCD $CE, $D0); the game counts as over after
more than 50 consecutive frames with $C0 == 0. Mode m is selected when ($DE - 1) as a byte equals m
(ALE ``Othello``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_TERMINAL, G_X, LEFT, NOOP, RIGHT, UP, UPLEFT, UPRIGHT, Game,
                   bcd, lives_default, ram, reset_common, set_reward_from_score)

G_IDLE = G_X

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, bcd(ram(s, 0xCE)) - bcd(ram(s, 0xD0)))
    if ram(s, 0xC0) == 0:
        s[G_IDLE] += 1
    else:
        s[G_IDLE] = 0
    s[G_TERMINAL] = 1 if s[G_IDLE] > 50 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_IDLE] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ((ram(s, 0xDE) - 1) & 0xFF) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="othello", md5="113cd09c9771ac278544b7e90efe7df2", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=(0, 1, 2), difficulties=(0, 2), set_mode=set_mode,
)
