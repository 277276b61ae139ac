"""Time Pilot: BCD score in hundreds ($8D low, $8F high); over while $A0 is non-zero; lives ($8B's low bits
+ 1) are only taken while the screen byte $80 (low nibble) is 2 (ALE ``TimePilot``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE,
                   Game, decimal_score2, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 100 * decimal_score2(s, 0x8D, 0x8F))
    s[G_TERMINAL] = 1 if ram(s, 0xA0) != 0 else 0
    if (ram(s, 0x80) & 0x0F) == 2:
        s[G_LIVES] = (ram(s, 0x8B) & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


GAME = Game(
    id="time_pilot", md5="fc2104dd2dadf9a6176c1c1c8f87ced9", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE),
    difficulties=(0, 1, 2),
)
