"""Defender: six score digits in the low nibbles of $9C-$A1 ($A = blank 0); lives at $C2
(ALE ``Defender``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, lives_unless_terminal, ram, reset_common,
                   set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    score = 0
    weight = 1
    for i in range(6):
        d = ram(s, 0x9C + i) & 0x0F
        if d == 0x0A:
            d = 0
        score += d * weight
        weight *= 10
    set_reward_from_score(s, score)
    n = ram(s, 0xC2)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x9B) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="defender", md5="0f643c34e40e3f1daafd9c524d3ffe64", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(1, 10)) + (16,), difficulties=(0, 1), set_mode=set_mode,
)
