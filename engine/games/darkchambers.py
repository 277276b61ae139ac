"""Dark Chambers: BCD score x10 ($CC low, $CF high). The game ends (and stays ended) when the level goes
down, the score goes down, or health ($CA & $1F) reaches 0 (ALE ``DarkChambers``). Starts with 486 NOOPs."""
from __future__ import annotations

from .._jit import jit
from .base import (ALL_ACTIONS, G_REWARD, G_SCORE, G_TERMINAL, G_X, NOOP, Game, decimal_score2, lives_default, ram,
                   reset_common)

G_LEVEL = G_X
G_HEALTH = G_X + 1
lives = lives_default


@jit
def step(s):
    s[G_REWARD] = 0
    level = ram(s, 0xD5)
    if level < s[G_LEVEL]:
        s[G_TERMINAL] = 1
        return
    s[G_LEVEL] = level
    score = decimal_score2(s, 0xCC, 0xCF) * 10
    if score < s[G_SCORE]:
        s[G_TERMINAL] = 1
    else:
        s[G_REWARD] = score - s[G_SCORE]
        s[G_SCORE] = score
    health = ram(s, 0xCA) & 0x1F
    s[G_HEALTH] = health
    if health == 0:
        s[G_TERMINAL] = 1


@jit
def reset(s):
    reset_common(s)
    s[G_LEVEL] = 0
    s[G_HEALTH] = 0


GAME = Game(
    id="darkchambers", md5="106855474c69d08c8ffa308d47337269", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    starting_actions=(NOOP,) * 486,
)
