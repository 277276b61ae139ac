"""Galaxian: 6-digit BCD score ($AE low .. $AC high) wrapping at 1000000; game over when bit 7 of $BF is
set; lives = $B9 + 1 (ALE ``Galaxian``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game,
                   decimal_score3, lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score3(s, 0xAE, 0xAD, 0xAC)
    r = score - s[G_SCORE]
    if r < 0:
        r = (1000000 - s[G_SCORE]) + score
    s[G_REWARD] = r
    s[G_SCORE] = score
    over = (ram(s, 0xBF) & 0x80) != 0
    s[G_TERMINAL] = 1 if over else 0
    s[G_LIVES] = 0 if over else ram(s, 0xB9) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xB3) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="galaxian", md5="211774f4c5739042618be8ff67351177", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE), modes=tuple(range(1, 10)),
    difficulties=(0, 1), set_mode=set_mode,
)
