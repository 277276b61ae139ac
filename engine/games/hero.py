"""H.E.R.O.: 6-digit BCD score ($B9 low .. $B7 high); lives at $B3 (ALE ``Hero``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xB9, 0xB8, 0xB7))
    n = ram(s, 0xB3)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


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
    id="hero", md5="fca4a5be1251927027f2c24774a02160", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1, 2, 3, 4), set_mode=set_mode,
)
