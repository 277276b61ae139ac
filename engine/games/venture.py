"""Venture: BCD score in hundreds ($C8 low, $C7 high); lives in $C6's low bits + 1; over when $C6 is 0,
$CD reads $FF and $BF bit 7 is set (ALE ``Venture``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score2, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 100 * decimal_score2(s, 0xC8, 0xC7))
    n = ram(s, 0xC6)
    over = n == 0 and ram(s, 0xCD) == 0xFF and (ram(s, 0xBF) & 0x80) != 0
    s[G_TERMINAL] = 1 if over else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(
    id="venture", md5="3e899eba0ca8cd2972da1ae5479b4f0d", step=step, reset=reset, lives=lives,
    difficulties=(0, 1, 2, 3),
)
