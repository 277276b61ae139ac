"""Miniature Golf: no score; when the hole number ($AF) changes, the reward is par minus the strokes taken
on the finished hole, and hole 0 ends the game (ALE ``MiniatureGolf``).

Fields: the hole number, its par (from $88 while it is non-zero), strokes carried over from stroke-counter
resets, the last stroke counter ($87) and the stroke total when the hole began."""
from __future__ import annotations

from .._jit import jit
from .base import G_REWARD, G_TERMINAL, G_X, Game, bcd, lives_default, ram, reset_common

G_HOLE = G_X
G_PAR = G_X + 1
G_CARRIED = G_X + 2
G_STROKES = G_X + 3
G_AT_START = G_X + 4

lives = lives_default


@jit
def step(s):
    s[G_REWARD] = 0
    strokes = bcd(ram(s, 0x87))
    par = bcd(ram(s, 0x88))
    hole = bcd(ram(s, 0xAF))
    if hole != s[G_HOLE]:
        taken = s[G_STROKES] + s[G_CARRIED] - s[G_AT_START]
        if taken > 0:
            s[G_REWARD] = s[G_PAR] - taken
        if hole == 0:
            s[G_TERMINAL] = 1
        s[G_HOLE] = hole
        s[G_CARRIED] = 0
        s[G_AT_START] = s[G_STROKES]
    if par != 0:
        s[G_PAR] = par
    else:
        if strokes < s[G_STROKES]:
            s[G_CARRIED] += s[G_STROKES]
        s[G_STROKES] = strokes


@jit
def reset(s):
    reset_common(s)
    s[G_HOLE] = 0
    s[G_PAR] = 0
    s[G_CARRIED] = 0
    s[G_STROKES] = 0
    s[G_AT_START] = 0


GAME = Game(
    id="miniature_golf", md5="df62a658496ac98a3aa4a6ee5719c251", step=step, reset=reset, lives=lives,
    difficulties=(0, 1),
)
