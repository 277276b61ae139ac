"""James Bond 007: 6-digit BCD score ($DC low .. $DE high); lives = low nibble of $86 + 1; game over with
none left on screen $68 (ALE ``JamesBond``). Mode m reads m or m + $48 at $8C."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xDC, 0xDD, 0xDE))
    n = ram(s, 0x86) & 0x0F
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x8C) == 0x68) else 0
    s[G_LIVES] = n + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 6


@jit
def set_mode(s, rom, fb, erng, mode):
    cur = ram(s, 0x8C)
    while cur != mode and cur != mode + 0x48:
        core.press_select(s, rom, fb, 20)
        cur = ram(s, 0x8C)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="jamesbond", md5="e51030251e440cffaab1ac63438b44ae", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1), set_mode=set_mode,
)
