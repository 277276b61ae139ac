"""Kangaroo: BCD score x100 ($A8 low, $A7 high); lives = bits 0-2 of $AD + 1, $AD = $FF at game over
(ALE ``Kangaroo``). Mode m reads m or m + $80 at $BA."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score2, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0xA8, 0xA7) * 100)
    b = ram(s, 0xAD)
    s[G_TERMINAL] = 1 if b == 0xFF else 0
    s[G_LIVES] = (b & 0x7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    cur = ram(s, 0xBA)
    while cur != mode and cur != mode + 0x80:
        core.press_select(s, rom, fb, 2)
        cur = ram(s, 0xBA)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="kangaroo", md5="4326edb70ff20d0ee5ba58fa5cb09d60", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1), set_mode=set_mode,
)
