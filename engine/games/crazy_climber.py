"""Crazy Climber: four plain decimal digits ($82-$85) x100, decreases give 0 reward; lives at $AA
(ALE ``CrazyClimber``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFT, NOOP, RIGHT, UP,
                   UPLEFT, UPRIGHT, Game, lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = (ram(s, 0x82) + 10 * ram(s, 0x83) + 100 * ram(s, 0x84) + 1000 * ram(s, 0x85)) * 100
    r = score - s[G_SCORE]
    s[G_REWARD] = 0 if r < 0 else r
    s[G_SCORE] = score
    n = ram(s, 0xAA)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="crazy_climber", md5="55ef7b65066428367844342ed59f956c", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=(0, 1, 2, 3), difficulties=(0, 1), set_mode=set_mode,
)
