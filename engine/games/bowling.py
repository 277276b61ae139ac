"""Bowling: BCD score ($A1 low, $A6 high); the game ends after frame 10 ($A4 > $10) (ALE ``Bowling``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_TERMINAL, NOOP, UP, UPFIRE, Game, decimal_score2, lives_zero, ram,
                   reset_common, set_reward_from_score)

lives = lives_zero


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0xA1, 0xA6))
    s[G_TERMINAL] = 1 if ram(s, 0xA4) > 0x10 else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 2) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="bowling", md5="c9b7afad3bfd922e006a6bfc1d4f3fe7", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE), modes=(0, 2, 4), difficulties=(0, 1),
    set_mode=set_mode,
)
