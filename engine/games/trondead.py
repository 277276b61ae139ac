"""TRON Deadly Discs: 6-digit BCD score ($BF low); $C8 counts hits, 5 ends the game; lives = 5 - hits
(ALE ``Trondead``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xBF, 0xBE, 0xBD))
    hits = ram(s, 0xC8)
    s[G_TERMINAL] = 1 if hits == 5 else 0
    s[G_LIVES] = 5 - hits


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


GAME = Game(
    id="trondead", md5="fb27afe896e7c928089307b32e5642ee", step=step, reset=reset, lives=lives,
    difficulties=(0, 1),
)
