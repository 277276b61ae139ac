"""Fishing Derby: player minus opponent BCD pounds; game over when either reads $99 (ALE ``FishingDerby``)."""
from __future__ import annotations

from .._jit import jit
from .base import ALL_ACTIONS, G_TERMINAL, Game, bcd, lives_zero, ram, reset_common, set_reward_from_score

lives = lives_zero


@jit
def step(s):
    a = ram(s, 0xBD)
    b = ram(s, 0xBE)
    mine = max(bcd(a), 0)
    theirs = max(bcd(b), 0)
    set_reward_from_score(s, mine - theirs)
    s[G_TERMINAL] = 1 if (a == 0x99 or b == 0x99) else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="fishing_derby", md5="b8865f05676e64f3bec72b9defdacfa7", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    difficulties=(0, 1, 2, 3),
)
