"""Amidar: 6-digit BCD score; lives in the low nibble of $D6, which reads $80 at game over (ALE ``Amidar``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE,
                   Game, decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xD9, 0xDA, 0xDB))
    b = ram(s, 0xD6)
    s[G_TERMINAL] = 1 if b == 0x80 else 0
    s[G_LIVES] = b & 0x0F


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="amidar", md5="acb7750b4d0c4bd34969802a7deb2990", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE),
    difficulties=(0, 3),
)
