"""Keystone Kapers: 4-digit BCD score, lives at $96; RESET held one frame to start (ALE ``KeystoneKapers``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWNFIRE, G_LIVES, G_TERMINAL, RESET, Game, decimal_score2, lives_unless_terminal,
                   NOOP, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0x9C, 0x9B))
    n = ram(s, 0x96)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x88) == 0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="keystone_kapers", md5="6c1f3f2e359dbf55df462ccbcdd2f6bf", step=step, reset=reset, lives=lives,
    minimal_actions=tuple(range(NOOP, DOWNFIRE + 1)),
    starting_actions=(RESET,),
)
