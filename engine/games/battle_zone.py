"""Battle Zone: score in thousands from three BCD nibbles where $A stands for a blank 0; lives in the
low nibble of $BA (ALE ``BattleZone``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, lives_unless_terminal, ram, reset_common,
                   set_reward_from_score)

lives = lives_unless_terminal


@jit(inline="always")
def _blank0(d):
    return 0 if d == 10 else d


@jit
def step(s):
    a = ram(s, 0x9D)
    b = ram(s, 0x9E)
    thousands = _blank0(a >> 4)
    tens = _blank0(b & 0x0F)
    hundreds = _blank0(b >> 4)
    set_reward_from_score(s, (thousands + 10 * tens + 100 * hundreds) * 1000)
    n = ram(s, 0xBA) & 0x0F
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xA1) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="battle_zone", md5="41f252a66c6301f1e8ab3612c19bc5d4", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(1, 2, 3), set_mode=set_mode,
)
