"""Human Cannonball: hits (BCD $B6) are the score; the game ends at 7 hits or 7 misses ($B7)
(ALE ``HumanCannonball``). Mode m shows as $B6 - 1 with one player ($B7 = 1) on the select screen."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_TERMINAL, G_X, Game, bcd, lives_default, ram, reset_common,
                   set_reward_from_score)

G_MISSES = G_X
lives = lives_default


@jit
def step(s):
    score = bcd(ram(s, 0xB6))
    set_reward_from_score(s, score)
    misses = bcd(ram(s, 0xB7))
    s[G_MISSES] = misses
    s[G_TERMINAL] = 1 if (score == 7 or misses == 7) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_MISSES] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ((ram(s, 0xB6) - 1) & 0xFF) != mode or ram(s, 0xB7) != 1:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="human_cannonball", md5="7972e5101fa548b952d852db24ad6060", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(8)), difficulties=(0, 1), set_mode=set_mode,
)
