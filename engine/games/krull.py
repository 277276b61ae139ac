"""Krull: 6-digit BCD score; lives from the low bits of $9F; over when $9F, $A2, $80 read 0, 3, $80
(ALE ``Krull``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x9E, 0x9D, 0x9C))
    n = ram(s, 0x9F)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xA2) == 0x03 and ram(s, 0x80) == 0x80) else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(id="krull", md5="4baada22435320d185c95b7dd2bcdb24", step=step, reset=reset, lives=lives)
