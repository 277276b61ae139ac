"""Pong (Video Olympics): player minus computer score; game over at 21 (ALE ``Pong``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_REWARD, G_SCORE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game,
                   lives_zero, ram, reset_common)


lives = lives_zero


@jit
def step(s):
    cpu = ram(s, 13)
    player = ram(s, 14)
    score = player - cpu
    s[G_REWARD] = score - s[G_SCORE]
    s[G_SCORE] = score
    s[G_TERMINAL] = 1 if (cpu == 21 or player == 21) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x96) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="pong", md5="60e0ea3cbe0913d39803477945e9e5ec", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
    modes=(0, 1), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
