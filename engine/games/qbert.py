"""Q*bert: $88 is the lives byte (as a signed char); a life is lost when it drops by exactly one; over when it
reads $FE, or 2 right after -1. While over the reward is 0 and the score is not updated (ALE ``QBert``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, FIRE, G_LIVES, G_REWARD, G_TERMINAL, G_X, LEFT, NOOP, RIGHT, UP, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

G_PREV = G_X   # previous lives byte, sign-extended

lives = lives_unless_terminal


@jit
def step(s):
    v = ram(s, 0x88)
    over = v == 0xFE or (v == 0x02 and s[G_PREV] == -1)
    s[G_TERMINAL] = 1 if over else 0
    signed = v - 256 if v >= 128 else v
    if s[G_PREV] - 1 == signed:
        s[G_LIVES] -= 1
    s[G_PREV] = signed
    if over:
        s[G_REWARD] = 0
    else:
        set_reward_from_score(s, decimal_score3(s, 0xDB, 0xDA, 0xD9))


@jit
def reset(s):
    reset_common(s)
    s[G_PREV] = 2
    s[G_LIVES] = 4


GAME = Game(
    id="qbert", md5="484b0076816a104875e00467d431c2d2", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN), difficulties=(0, 1),
)
