"""Phoenix: score = (4 BCD digits at $C8/$C9, then the high nibble of $C7) * 10; lives in $CB's low 3 bits;
over when $CC reads $80 (ALE ``Phoenix``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game,
                   decimal_score2, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    score = 10 * (10 * decimal_score2(s, 0xC8, 0xC9) + (ram(s, 0xC7) >> 4))
    set_reward_from_score(s, score)
    s[G_TERMINAL] = 1 if ram(s, 0xCC) == 0x80 else 0
    s[G_LIVES] = ram(s, 0xCB) & 7


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


GAME = Game(
    id="phoenix", md5="7e52a95074a66640fcfde124fffd491a", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, DOWN, RIGHTFIRE, LEFTFIRE, DOWNFIRE),
)
