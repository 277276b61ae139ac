"""Assault: 6-digit BCD score at $80-$82; lives at $E5, game over at 0 (ALE ``Assault``)."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x82, 0x81, 0x80))
    n = ram(s, 0xE5)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(
    id="assault", md5="de78b3a064d374390ac0710f95edde92", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
)
