"""Centipede: 6-digit BCD score at $F4-$F6 (decreases give 0 reward); lives from bits 4-6 of $ED;
game over when bit 6 of $A6 is set (ALE ``Centipede``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score3(s, 118, 117, 116)
    r = score - s[G_SCORE]
    s[G_SCORE] = score
    s[G_REWARD] = 0 if r < 0 else r
    s[G_LIVES] = ((ram(s, 0xED) >> 4) & 0x7) + 1
    s[G_TERMINAL] = 1 if (ram(s, 0xA6) & 0x40) != 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xA7) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="centipede", md5="91c2098e88a6b13f977af8c003e0bca5", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0x16, 0x56), set_mode=set_mode,
)
