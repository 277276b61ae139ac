"""Enduro: the score is cars passed (from the BCD cars-remaining counter and the day number at $AD);
game over when $AF reads $FF (ALE ``Enduro``). Starts with FIRE."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, FIRE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game,
                   decimal_score2, lives_zero, ram, reset_common, set_reward_from_score)

lives = lives_zero


@jit
def step(s):
    score = 0
    day = ram(s, 0xAD)
    if day != 0:
        remaining = decimal_score2(s, 0xAB, 0xAC)
        passed = 200 - remaining if day == 1 else 300 - remaining
        if day >= 2:
            score = 200 + (day - 2) * 300
        score += passed
    set_reward_from_score(s, score)
    s[G_TERMINAL] = 1 if ram(s, 0xAF) == 0xFF else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="enduro", md5="94b92a882f6dbaa6993a46e2dcc58402", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, DOWN, DOWNRIGHT, DOWNLEFT, RIGHTFIRE, LEFTFIRE),
    starting_actions=(FIRE,),
)
