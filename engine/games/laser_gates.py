"""Laser Gates: 6-digit BCD score at $82/$81/$80; over when $83 is 0; starts with RESET (ALE ``LaserGates``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_TERMINAL, RESET, Game, decimal_score3, lives_zero, ram, reset_common, set_reward_from_score

lives = lives_zero


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x82, 0x81, 0x80))
    s[G_TERMINAL] = 1 if ram(s, 0x83) == 0 else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="laser_gates", md5="8e4cd60d93fcde8065c1a2b972a26377", step=step, reset=reset, lives=lives,
    starting_actions=(RESET,),
)
