"""Skiing: the clock (minutes at $E8, BCD centiseconds at $EA/$E9) is the negative reward; over when $91
reads $FF; fire actions are illegal; 16 DOWN frames start (ALE ``Skiing``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, DOWNLEFTFIRE, DOWNRIGHTFIRE, FIRE, G_REWARD, G_SCORE, G_TERMINAL, LEFT,
                   LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UPFIRE, UPLEFTFIRE, UPRIGHTFIRE, Game, decimal_score2,
                   lives_zero, ram, reset_common)

lives = lives_zero


@jit
def step(s):
    t = 6000 * ram(s, 0xE8) + decimal_score2(s, 0xEA, 0xE9)
    s[G_REWARD] = s[G_SCORE] - t
    s[G_SCORE] = t
    s[G_TERMINAL] = 1 if ram(s, 0x91) == 0xFF else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="skiing", md5="b76fbadc8ffb1f83e2ca08b6fb4d6c9f", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, RIGHT, LEFT),
    illegal_actions=(FIRE, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE, UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE,
                     DOWNLEFTFIRE),
    starting_actions=(DOWN,) * 16,
)
