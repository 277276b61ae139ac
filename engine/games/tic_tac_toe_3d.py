"""3-D Tic-Tac-Toe: +1/-1 when the program reaches $F310 (winner at $E1: 8 = the player); also over once all
64 cells ($9A-$D9) are filled; terminal is never cleared by a frame; modes 0-8 at $88 (ALE ``TicTacToe3d``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_REWARD, G_TERMINAL, LEFT, NOOP, RIGHT, UP, UPLEFT, UPRIGHT,
                   Game, lives_default, ram, reset_common)

lives = lives_default


@jit
def step(s):
    s[G_REWARD] = 0
    if ram(s, 0xFF) == 0xF3 and ram(s, 0xFE) == 0x10:
        s[G_REWARD] = 1 if ram(s, 0xE1) == 0x08 else -1
        s[G_TERMINAL] = 1
    for a in range(0x9A, 0xDA):
        if ram(s, a) == 0:
            return
    s[G_TERMINAL] = 1


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x88) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="tic_tac_toe_3d", md5="0db4f4150fecf77e4ce72ca4d04c052f", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=tuple(range(9)), difficulties=(0, 2), set_mode=set_mode,
)
