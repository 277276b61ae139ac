"""Beam Rider: 6-digit BCD score at $89-$8B; a lost life only counts once $8C reads 1; game over when
$85 reads $FF (ALE ``BeamRider``). Starts with RIGHT."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPLEFT, UPRIGHT, Game,
                   decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 9, 10, 11))
    n = ram(s, 0x85) + 1
    if n == s[G_LIVES] - 1:
        if ram(s, 0x8C) == 0x01:
            s[G_LIVES] = n
    else:
        s[G_LIVES] = n
    s[G_TERMINAL] = 1 if ram(s, 5) == 255 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="beam_rider", md5="79ab4123a83dc11d468fb2108ea09e2e", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, UPRIGHT, UPLEFT, RIGHTFIRE, LEFTFIRE),
    difficulties=(0, 1), starting_actions=(RIGHT,),
)
