"""Breakout: BCD score, lives at $B9; the game counts as started once 5 lives show (ALE ``Breakout``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, G_X, LEFT, NOOP, RIGHT, Game, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

G_STARTED = G_X


lives = lives_unless_terminal


@jit
def step(s):
    x = ram(s, 77)
    y = ram(s, 76)
    score = (x & 0x0F) + 10 * ((x & 0xF0) >> 4) + 100 * (y & 0x0F)
    set_reward_from_score(s, score)
    lives_byte = ram(s, 57)
    if not s[G_STARTED] and lives_byte == 5:
        s[G_STARTED] = 1
    s[G_TERMINAL] = 1 if (s[G_STARTED] and lives_byte == 0) else 0
    s[G_LIVES] = lives_byte


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5
    s[G_STARTED] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xB2) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="breakout", md5="f34f08e5eb96e500e851a80be3277a56", step=step, reset=reset,
    lives=lives, minimal_actions=(NOOP, FIRE, RIGHT, LEFT),
    modes=tuple(range(0, 48, 4)), difficulties=(0, 1), set_mode=set_mode,
)
