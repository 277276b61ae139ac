"""Bank Heist: 6-digit BCD score; game over when the death timer reads 1 with no lives left
(ALE ``BankHeist``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xDA, 0xD9, 0xD8))
    n = ram(s, 0xD5)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (ram(s, 0xCE) == 0x01 and n == 0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="bank_heist", md5="00ce0bdd43aed84a983bef38fe7f5ee3", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(0, 32, 4)), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
