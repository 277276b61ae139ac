"""Yars' Revenge: 6-digit BCD score ($E2 low); lives in $9E's high nibble, over at 0; FIRE starts. Modes
0/$20/$40/$60 at $E3, after one unconditional SELECT (ALE ``YarsRevenge``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import FIRE, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xE2, 0xE1, 0xE0))
    n = ram(s, 0x9E) >> 4
    s[G_TERMINAL] = 1 if n == 0 else 0
    s[G_LIVES] = n


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    core.press_select(s, rom, fb, 2)
    while ram(s, 0xE3) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="yars_revenge", md5="c5930d0e8cdae3e037349bfa08e871be", step=step, reset=reset, lives=lives,
    modes=(0, 0x20, 0x40, 0x60), difficulties=(0, 1), starting_actions=(FIRE,), set_mode=set_mode,
)
