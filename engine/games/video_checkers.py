"""Video Checkers: the game ends when one side has no pieces on the board (32 squares in four runs of 8:
$80, $89, $92, $9B; $10/$20 black, $90/$A0 white): +1 if white is gone, -1 if black is gone, swapped in
the give-away games (modes 11-19, whose game number at $F6 is mode + 6). The reward is only written then
(ALE ``VideoCheckers``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWNLEFT, DOWNRIGHT, FIRE, G_REWARD, G_TERMINAL, G_X, UPLEFT, UPRIGHT, Game, lives_default, ram,
                   reset_common)

G_REVERSE = G_X   # set by set_mode only (never by reset)

lives = lives_default


@jit
def step(s):
    black = 0
    white = 0
    for run in range(4):
        base = 0x80 + 9 * run
        for a in range(base, base + 8):
            v = ram(s, a)
            if v == 0x10 or v == 0x20:
                black += 1
            elif v == 0x90 or v == 0xA0:
                white += 1
    if black == 0:
        s[G_REWARD] = 1 if s[G_REVERSE] else -1
        s[G_TERMINAL] = 1
    elif white == 0:
        s[G_REWARD] = -1 if s[G_REVERSE] else 1
        s[G_TERMINAL] = 1


@jit
def reset(s):
    s[G_REWARD] = 0
    s[G_TERMINAL] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    reverse = mode >= 11
    s[G_REVERSE] = 1 if reverse else 0
    target = mode + 6 if reverse else mode
    while ram(s, 0xF6) != target:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="video_checkers", md5="539d26b6e9df0da8e7465f0f5ad863b7", step=step, reset=reset, lives=lives,
    minimal_actions=(FIRE, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=(1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19), set_mode=set_mode,
)
