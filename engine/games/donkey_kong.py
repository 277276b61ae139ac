"""Donkey Kong: BCD score x100 ($88 low, $87 high); lives at $A3; game over needs 0 lives with $8F = 3
and $8B = $1F (ALE ``DonkeyKong``)."""
from __future__ import annotations

from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score2, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0x88, 0x87) * 100)
    n = ram(s, 0xA3)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x8F) == 0x03 and ram(s, 0x8B) == 0x1F) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 2


GAME = Game(
    id="donkey_kong", md5="36b20c427975760cb9cf4a47e41369e4", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
)
