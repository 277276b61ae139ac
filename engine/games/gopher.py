"""Gopher: 6-digit BCD score ($B2 low .. $B0 high); lives = carrots left (bits 0-2 of $B4); game over
with none (ALE ``Gopher``). Mode selection starts with a RESET. Starts with FIRE."""
from __future__ import annotations

import numpy as np

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE, Game,
                   decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

CARROTS = np.array([0, 1, 1, 2, 1, 2, 2, 3], dtype=np.int64)
lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xB2, 0xB1, 0xB0))
    bits = ram(s, 0xB4) & 0x7
    s[G_TERMINAL] = 1 if bits == 0 else 0
    s[G_LIVES] = CARROTS[bits]


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    core.soft_reset(s, rom, fb)
    while ram(s, 0xD3) != mode:
        core.press_select(s, rom, fb, 5)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="gopher", md5="c16c79aad6272baffb8aae9a7fff0864", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, UPFIRE, RIGHTFIRE, LEFTFIRE), modes=(0, 2),
    difficulties=(0, 1), starting_actions=(FIRE,), set_mode=set_mode,
)
