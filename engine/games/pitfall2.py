"""Pitfall II (DPC): 6-digit BCD score (starts at 4000); one life; over at 199000; UP for one frame starts
(ALE ``Pitfall2``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_SCORE, G_TERMINAL, UP, Game, decimal_score3, lives_unless_terminal, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score3(s, 0xC9, 0xC8, 0xC7)
    set_reward_from_score(s, score)
    s[G_LIVES] = 1
    s[G_TERMINAL] = 1 if score == 199000 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_SCORE] = 4000
    s[G_LIVES] = 1


GAME = Game(
    id="pitfall2", md5="6d842c96d5a01967be9680080dd5be54", step=step, reset=reset, lives=lives,
    starting_actions=(UP,),
)
