"""Frostbite: 6-digit BCD score ($CA low .. $C8 high); lives = low nibble of $CC + 1; game over with
none left and bit 7 of $F1 set (ALE ``Frostbite``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xCA, 0xC9, 0xC8))
    n = ram(s, 0xCC) & 0x0F
    s[G_TERMINAL] = 1 if (n == 0 and (ram(s, 0xF1) & 0x80) != 0) else 0
    s[G_LIVES] = n + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="frostbite", md5="4ca73eb959299471788f0b685c3ba0b5", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 2), set_mode=set_mode,
)
