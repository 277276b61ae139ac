"""Carnival: BCD score x10 ($AE low, $AD high); the game ends when the ammunition ($83) runs out
(ALE ``Carnival``)."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game, decimal_score2, lives_zero, ram,
                   reset_common, set_reward_from_score)

lives = lives_zero


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0xAE, 0xAD) * 10)
    s[G_TERMINAL] = 1 if ram(s, 0x83) < 1 else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="carnival", md5="028024fb8e5e5f18ea586652f9799c96", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
)
