"""Turmoil: score = (4 BCD digits at $89/$8A plus the byte $D3) * 10; lives at $B9; over when they are 0 and
$C5 reads 1; FIRE starts; modes 0-8 at $EA (ALE ``Turmoil``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE,
                   UP, UPLEFT, UPRIGHT, Game, decimal_score2, lives_unless_terminal, ram, reset_common,
                   set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 10 * (decimal_score2(s, 0x89, 0x8A) + ram(s, 0xD3)))
    n = ram(s, 0xB9)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xC5) == 0x01) else 0
    s[G_LIVES] = n


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xEA) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="turmoil", md5="7a5463545dfb2dcfdafa6074b2f2c15e", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT, RIGHTFIRE,
                     LEFTFIRE),
    modes=tuple(range(9)), starting_actions=(FIRE,), set_mode=set_mode,
)
