"""Journey Escape: 6-digit BCD score ($92 low .. $90 high), a jump of exactly 50000 (the initial cash
appearing) gives 0; the game ends when the clock ($95:$96) reaches 0 (ALE ``JourneyEscape``). Starts with
FIRE."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, DOWNLEFT, DOWNLEFTFIRE, DOWNRIGHT, DOWNRIGHTFIRE, FIRE, G_REWARD, G_SCORE,
                   G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPLEFT, UPLEFTFIRE, UPRIGHT, UPRIGHTFIRE,
                   Game, decimal_score3, lives_zero, ram, reset_common)

lives = lives_zero


@jit
def step(s):
    score = decimal_score3(s, 0x92, 0x91, 0x90)
    r = score - s[G_SCORE]
    s[G_REWARD] = 0 if r == 50000 else r
    s[G_SCORE] = score
    s[G_TERMINAL] = 1 if (ram(s, 0x95) == 0 and ram(s, 0x96) == 0) else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="journey_escape", md5="718ae62c70af4e5fd8e932fee216948a", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT, RIGHTFIRE, LEFTFIRE,
                     DOWNFIRE, UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE, DOWNLEFTFIRE),
    difficulties=(0, 1), starting_actions=(FIRE,),
)
