"""Earthworld (SwordQuest): the BCD value at $A7 is the score; the game ends at 10 (ALE ``Earthworld``)."""
from __future__ import annotations

from .._jit import jit
from .base import ALL_ACTIONS, G_TERMINAL, Game, bcd, lives_default, ram, reset_common, set_reward_from_score

lives = lives_default


@jit
def step(s):
    score = bcd(ram(s, 0xA7))
    set_reward_from_score(s, score)
    s[G_TERMINAL] = 1 if score == 10 else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="earthworld", md5="5aea9974b975a6a844e6df10d2b861c4", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
)
