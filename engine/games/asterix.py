"""Asterix: 6-digit BCD score; the game ends when the death counter hits 1 on the last life
(ALE ``Asterix``). Starts with FIRE."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_LIVES, G_TERMINAL, LEFT, NOOP, RIGHT, UP, UPLEFT, UPRIGHT,
                   Game, decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xE0, 0xDF, 0xDE))
    n = ram(s, 0xD3) & 0x0F
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (ram(s, 0xC7) == 0x01 and n == 1) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="asterix", md5="89a68746eff7f266bbf08de2483abe55", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    starting_actions=(FIRE,),
)
