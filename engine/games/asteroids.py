"""Asteroids: 4-digit BCD score x10 that wraps at 100000; lives in the high nibble of $BC
(ALE ``Asteroids``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE,
                   UP, UPFIRE, UPLEFT, UPLEFTFIRE, UPRIGHT, UPRIGHTFIRE, DOWNFIRE, Game, decimal_score2,
                   lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score2(s, 0xBE, 0xBD) * 10
    r = score - s[G_SCORE]
    if r < 0:
        r += 100000
    s[G_REWARD] = r
    s[G_SCORE] = score
    n = ram(s, 0xBC) >> 4
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="asteroids", md5="ccbd36746ed4525821a8083b0d6d2c2c", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE,
                     UPRIGHTFIRE, UPLEFTFIRE),
    modes=tuple(range(32)) + (0x80,), difficulties=(0, 3), set_mode=set_mode,
)
