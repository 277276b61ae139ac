"""Video Chess: on white's turn ($E1 == $82) the byte $EE tells checkmate: 0 = black mated (+1), 1 = white
mated (-1), either ends the game; modes 0-4 at $EA (ALE ``VideoChess``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_LIVES, G_REWARD, G_TERMINAL, LEFT, NOOP, RIGHT, UP, UPLEFT,
                   UPRIGHT, Game, lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    s[G_REWARD] = 0
    if ram(s, 0xE1) == 0x82:
        mate = ram(s, 0xEE)
        if mate == 0x00:
            s[G_REWARD] = 1
            s[G_TERMINAL] = 1
        elif mate == 0x01:
            s[G_REWARD] = -1
            s[G_TERMINAL] = 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 1


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xEA) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="video_chess", md5="f0b7db930ca0e548c41a97160b9f6275", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=(0, 1, 2, 3, 4), set_mode=set_mode,
)
