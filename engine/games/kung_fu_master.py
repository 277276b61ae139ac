"""Kung-Fu Master: 6-digit BCD score; $9D holds lives (its low bits) and $FF once the game is over
(ALE ``KungFuMaster``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, DOWNLEFT, DOWNLEFTFIRE, DOWNRIGHT, DOWNRIGHTFIRE, G_LIVES, G_TERMINAL, LEFT,
                   LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPLEFTFIRE, UPRIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x9A, 0x99, 0x98))
    n = ram(s, 0x9D)
    s[G_TERMINAL] = 1 if n == 0xFF else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(
    id="kung_fu_master", md5="5b92a93b23523ff16e2789b820e2a4c5", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, DOWNRIGHT, DOWNLEFT, RIGHTFIRE, LEFTFIRE, DOWNFIRE,
                     UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE, DOWNLEFTFIRE),
)
