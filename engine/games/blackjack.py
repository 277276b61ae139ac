"""Blackjack (paddles): the BCD chip count is the score, 0 when bust ($86=$0B, $89=$BB); the game ends
bust or at 1000 chips (ALE ``Blackjack``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, FIRE, G_TERMINAL, NOOP, UP, Game, decimal_score2, lives_default, ram, reset_common,
                   set_reward_from_score)

lives = lives_default


@jit
def step(s):
    bust = ram(s, 0x86) == 0x0B and ram(s, 0x89) == 0xBB
    score = 0 if bust else decimal_score2(s, 0x89, 0x86)
    set_reward_from_score(s, score)
    s[G_TERMINAL] = 1 if (bust or score >= 1000) else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="blackjack", md5="0a981c03204ac2b278ba392674682560", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, DOWN), difficulties=(0, 1, 2, 3), paddle_max=795000,
)
