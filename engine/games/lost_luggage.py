"""Lost Luggage: 6-digit BCD score; lives at $CA; fire actions are illegal; mode byte $94 = 1 + 3*mode
(ALE ``LostLuggage``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNFIRE, DOWNLEFT, DOWNLEFTFIRE, DOWNRIGHT, DOWNRIGHTFIRE, FIRE, G_LIVES, G_TERMINAL,
                   LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE, UPLEFT, UPLEFTFIRE, UPRIGHT, UPRIGHTFIRE,
                   Game, decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x96, 0x95, 0x94))
    n = ram(s, 0xCA)
    s[G_LIVES] = n
    over = n == 0 and ram(s, 0xC8) == 0x0A and ram(s, 0xA5) == 0 and ram(s, 0xA9) == 0
    s[G_TERMINAL] = 1 if over else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    target = 1 + 3 * mode
    while ram(s, 0x94) != target:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="lost_luggage", md5="2d76c5d1aad506442b9e9fb67765e051", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    illegal_actions=(FIRE, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE, UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE,
                     DOWNLEFTFIRE),
    modes=(0, 1), difficulties=(0, 1), starting_actions=(FIRE,), set_mode=set_mode,
)
