"""Montezuma's Revenge: 6-digit BCD score; lives in the low bits of $BA; over when $BA is 0 and $FE reads
$60 (ALE ``MontezumaRevenge``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x95, 0x94, 0x93))
    n = ram(s, 0xBA)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xFE) == 0x60) else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 6


GAME = Game(id="montezuma_revenge", md5="3347a6dd59049b15a38394aa2dafa585", step=step, reset=reset, lives=lives)
