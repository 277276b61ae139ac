"""Road Runner: four score digits in the low nibbles of $C9-$CC ($A shows as 0), in hundreds; lives in $C4's
low 3 bits; over on the last life once $B9 or $BD moves (ALE ``RoadRunner``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, lives_unless_terminal, ram, reset_common, set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    score = 0
    place = 1
    for k in range(4):
        d = ram(s, 0xC9 + k) & 0x0F
        if d == 0x0A:
            d = 0
        score += place * d
        place *= 10
    set_reward_from_score(s, 100 * score)
    n = ram(s, 0xC4) & 7
    s[G_TERMINAL] = 1 if (n == 0 and (ram(s, 0xB9) != 0 or ram(s, 0xBD) != 0)) else 0
    s[G_LIVES] = n + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(id="road_runner", md5="ce5cc62608be2cd3ed8abd844efb8919", step=step, reset=reset, lives=lives)
