"""Atlantis II: BCD score ($A1 low .. $A3 high); lives at $F1, $FF at game over, when no reward is given
(ALE ``Atlantis2``; the lives field is not part of its reset)."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFTFIRE, NOOP, RIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    n = ram(s, 0xF1)
    s[G_LIVES] = n
    if n == 0xFF:
        s[G_TERMINAL] = 1
        s[G_REWARD] = 0
    else:
        s[G_TERMINAL] = 0
        score = decimal_score3(s, 0xA1, 0xA2, 0xA3)
        s[G_REWARD] = score - s[G_SCORE]
        s[G_SCORE] = score


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="atlantis2", md5="826481f6fc53ea47c9f272f7050eedf7", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHTFIRE, LEFTFIRE),
)
