"""Basic Math: the BCD count of right answers is the score; the game ends once $86 is non-zero
(ALE ``BasicMath``; modes 5-8, the first is the default)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, FIRE, G_TERMINAL, LEFT, NOOP, RIGHT, UP, Game, bcd, lives_default, ram, reset_common,
                   set_reward_from_score)

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, bcd(ram(s, 0x84)))
    s[G_TERMINAL] = 1 if bcd(ram(s, 0x86)) != 0 else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xC5) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="basic_math", md5="819aeeb9a2e11deb54e6de334f843894", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN), modes=(5, 6, 7, 8), difficulties=(0, 2, 3),
    set_mode=set_mode,
)
