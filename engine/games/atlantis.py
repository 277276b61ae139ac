"""Atlantis: BCD score x100 (digit bytes $A2/$A3/$A1); lives at $F1, $FF at game over, when the last
frame's score change is discarded (ALE ``Atlantis``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFTFIRE, NOOP, RIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score3(s, 0xA2, 0xA3, 0xA1) * 100
    n = ram(s, 0xF1)
    s[G_LIVES] = n
    if n == 0xFF:
        s[G_TERMINAL] = 1
        s[G_REWARD] = 0
    else:
        s[G_TERMINAL] = 0
        s[G_REWARD] = score - s[G_SCORE]
        s[G_SCORE] = score


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 6


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x8D) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="atlantis", md5="9ad36e699ef6f45d9eb6c4cf90475c9f", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHTFIRE, LEFTFIRE), modes=(0, 1, 2, 3), set_mode=set_mode,
)
