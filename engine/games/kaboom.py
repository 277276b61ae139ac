"""Kaboom! (paddles): 6-digit BCD score ($A5 low .. $A3 high); the game ends when the buckets ($A1) are
gone or the score reaches 999999 (ALE ``Kaboom``). Starts with FIRE."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_SCORE, G_TERMINAL, LEFT, NOOP, RIGHT, Game, decimal_score3, lives_default, ram,
                   reset_common, set_reward_from_score)

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xA5, 0xA4, 0xA3))
    s[G_TERMINAL] = 1 if (ram(s, 0xA1) == 0 or s[G_SCORE] == 999999) else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="kaboom", md5="5428cdfada281c569c74c7308c7f2c26", step=step, reset=reset, lives=lives, minimal_actions=(NOOP, FIRE, RIGHT, LEFT),
    starting_actions=(FIRE,),
)
