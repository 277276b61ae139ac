"""Zaxxon: BCD score in hundreds ($E9 low, $E8 high); lives in $EA's low 3 bits, over at 0; modes 0/8/16/24
at $82 (ALE ``Zaxxon``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score2, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 100 * decimal_score2(s, 0xE9, 0xE8))
    n = ram(s, 0xEA) & 7
    s[G_TERMINAL] = 1 if n == 0 else 0
    s[G_LIVES] = n


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x82) != mode:
        core.press_select(s, rom, fb, 10)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="zaxxon", md5="eea0da9b987d661264cce69a7c13c3bd", step=step, reset=reset, lives=lives,
    modes=(0, 8, 16, 24), set_mode=set_mode,
)
