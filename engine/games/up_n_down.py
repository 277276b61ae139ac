"""Up'n Down: 6-digit BCD score ($82 low); lives in $86's low nibble + 1; over when they are 0 and the death
timer $94 is past $40; FIRE starts (ALE ``UpNDown``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, NOOP, UP, UPFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x82, 0x81, 0x80))
    n = ram(s, 0x86) & 0x0F
    s[G_TERMINAL] = 1 if (ram(s, 0x94) > 0x40 and n == 0) else 0
    s[G_LIVES] = n + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


GAME = Game(
    id="up_n_down", md5="a499d720e7ee35c62424de882a3351b6", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE),
    difficulties=(0, 1, 2, 3), starting_actions=(FIRE,),
)
