"""Seaquest: 6-digit BCD score ($BA low); over when $A3 is non-zero; lives = $BB + 1 (ALE ``Seaquest``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xBA, 0xB9, 0xB8))
    s[G_TERMINAL] = 1 if ram(s, 0xA3) != 0 else 0
    s[G_LIVES] = ram(s, 0xBB) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(
    id="seaquest", md5="240bfbac5163af4df5ae713985386f92", step=step, reset=reset, lives=lives,
    difficulties=(0, 1),
)
