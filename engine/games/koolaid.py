"""Kool-Aid Man: BCD score in hundreds at $81/$80; over when $D1 reads $80; no lives (ALE ``Koolaid``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, G_TERMINAL, LEFT, NOOP, RIGHT, UP, UPLEFT, UPRIGHT, Game,
                   decimal_score2, lives_zero, ram, reset_common, set_reward_from_score)

lives = lives_zero


@jit
def step(s):
    set_reward_from_score(s, 100 * decimal_score2(s, 0x81, 0x80))
    s[G_TERMINAL] = 1 if ram(s, 0xD1) == 0x80 else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="koolaid", md5="534e23210dd1993c828d944c6ac4d9fb", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
)
