"""Backgammon (paddles): +1 when all 15 player checkers are borne off, -1 when the computer's are; the
counts are signed bytes summed as 8-bit values (ALE ``Backgammon``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import FIRE, G_REWARD, G_TERMINAL, LEFT, RIGHT, Game, lives_default, ram, reset_common

lives = lives_default


@jit(inline="always")
def _s8(v):
    v &= 0xFF
    return v - 256 if v >= 128 else v


@jit
def step(s):
    player_out = _s8(-_s8(ram(s, 0x80)))
    computer_out = _s8(ram(s, 0x8E))
    player_in = 0
    computer_in = 0
    for lo, hi in ((0x81, 0x8D), (0x8F, 0x9B)):
        for addr in range(lo, hi + 1):
            p = _s8(ram(s, addr))
            if p > 0:
                computer_in = _s8(computer_in + p)
            elif p < 0:
                player_in = _s8(player_in - p)
    if computer_in + computer_out == 15 and player_in + player_out == 15:
        if player_out == 15:
            s[G_TERMINAL] = 1
            s[G_REWARD] = 1
        elif computer_out == 15:
            s[G_TERMINAL] = 1
            s[G_REWARD] = -1


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xDC) != 3:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="backgammon", md5="8556b42aa05f94bc29ff39c39b11bff4", step=step, reset=reset, lives=lives,
    minimal_actions=(FIRE, RIGHT, LEFT), difficulties=(3,), set_mode=set_mode, paddle_max=1000000,
)
