"""Gravitar: 6-digit BCD score at $87-$89; game over when $81 reads 1; lives = $84 + 1 (6 on the title
screen) (ALE ``Gravitar``). Mode selection also sets the life count. Starts with 16 FIRE frames."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, FIRE, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 9, 8, 7))
    screen = ram(s, 0x81)
    s[G_TERMINAL] = 1 if screen == 0x01 else 0
    s[G_LIVES] = 6 if screen == 0 else ram(s, 0x84) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 6


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 10)
    if mode == 0 or mode == 2:
        s[G_LIVES] = 6
    elif mode == 1:
        s[G_LIVES] = 15
    elif mode == 3:
        s[G_LIVES] = 100
    elif mode == 4:
        s[G_LIVES] = 25
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="gravitar", md5="8ac18076d01a6b63acf6e2cab4968940", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1, 2, 3, 4), starting_actions=(FIRE,) * 16, set_mode=set_mode,
)
