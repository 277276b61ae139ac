"""Crossbow: 6-digit BCD score ($8D low .. $8B high); game over when $E7 reads $82. The mode byte is
$8D - 1 as an unsigned byte (ALE ``Crossbow``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_TERMINAL, Game, decimal_score3, lives_default, ram, reset_common,
                   set_reward_from_score)

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x8D, 0x8C, 0x8B))
    s[G_TERMINAL] = 1 if ram(s, 0xE7) == 0x82 else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ((ram(s, 0x8D) - 1) & 0xFF) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="crossbow", md5="8cd26dcf249456fe4aeb8db42d49df74", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 2, 4, 6), difficulties=(0, 1), set_mode=set_mode,
)
