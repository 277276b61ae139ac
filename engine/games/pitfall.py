"""Pitfall!: 6-digit BCD score (starts at 2000); lives from the high nibble of $80 ($A: 3, $8: 2, else 1);
over when it is 0 while the timer at $9E runs; UP for one frame starts (ALE ``Pitfall``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_SCORE, G_TERMINAL, UP, Game, decimal_score3, lives_unless_terminal, ram, \
    reset_common, set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xD7, 0xD6, 0xD5))
    hi = ram(s, 0x80) >> 4
    s[G_TERMINAL] = 1 if (hi == 0 and ram(s, 0x9E) != 0) else 0
    s[G_LIVES] = 3 if hi == 0xA else (2 if hi == 0x8 else 1)


@jit
def reset(s):
    reset_common(s)
    s[G_SCORE] = 2000
    s[G_LIVES] = 3


GAME = Game(
    id="pitfall", md5="3e90cf23106f2e08b2781e41299de556", step=step, reset=reset, lives=lives,
    starting_actions=(UP,),
)
