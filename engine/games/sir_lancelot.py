"""Sir Lancelot: 6-digit BCD score ($A0 low); lives at $A9; over when they are 0 and $A7 reads $A0; starts
with RESET then LEFT (ALE ``SirLancelot``)."""
from __future__ import annotations

from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RESET, RIGHT, RIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xA0, 0x9F, 0x9E))
    n = ram(s, 0xA9)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xA7) == 0xA0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="sir_lancelot", md5="dd0cbe5351551a538414fb9e37fc56e8", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
    starting_actions=(RESET, LEFT),
)
