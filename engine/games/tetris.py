"""Tetris: 4-digit BCD score at $F1 (low) / $F2; only increases are rewarded; over when $F3 bit 7 is set,
which also forgets the score (ALE ``Tetris``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, G_X, LEFT, NOOP, RIGHT, Game,
                   decimal_score2, lives_unless_terminal, ram, reset_common)

G_STARTED = G_X

lives = lives_unless_terminal   # the lives field stays 0


@jit
def step(s):
    score = decimal_score2(s, 0x71, 0x72)
    s[G_REWARD] = score - s[G_SCORE] if score > s[G_SCORE] else 0
    s[G_SCORE] = score
    s[G_STARTED] = 1
    over = (ram(s, 0x73) & 0x80) != 0
    s[G_TERMINAL] = 1 if over else 0
    if over:
        s[G_SCORE] = 0
        s[G_STARTED] = 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 0
    s[G_STARTED] = 0


GAME = Game(
    id="tetris", md5="b0e1ee07fbc73493eac5651a52f90f00", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, DOWN),
)
