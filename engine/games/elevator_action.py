"""Elevator Action: 6-digit BCD score ($89 low .. $87 high); lives at $83; game over with no lives
outside the start screen ($81 = 0) (ALE ``ElevatorAction``). Starts with 16 FIRE frames."""
from __future__ import annotations

from .._jit import jit
from .base import (ALL_ACTIONS, FIRE, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x89, 0x88, 0x87))
    n = ram(s, 0x83)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x81) != 0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(
    id="elevator_action", md5="71f8bacfbdca019113f3f0801849057e", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    starting_actions=(FIRE,) * 16,
)
