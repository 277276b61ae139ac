"""Chopper Command: BCD score x100 ($EE low, $EC high); lives in the low nibble of $E4. The game only
counts as over once it has started (bit 0 of $C2 seen set) (ALE ``ChopperCommand``; lives() is reported
even after the game ends)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, G_X, Game, decimal_score2, lives_field, ram, reset_common,
                   set_reward_from_score)

G_STARTED = G_X
lives = lives_field


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0xEE, 0xEC) * 100)
    n = ram(s, 0xE4) & 0x0F
    s[G_LIVES] = n
    if ram(s, 0xC2) & 0x1:
        s[G_STARTED] = 1
    s[G_TERMINAL] = 1 if (s[G_STARTED] and n == 0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3
    s[G_STARTED] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xE0) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="chopper_command", md5="c1cb228470a87beb5f36e90ac745da26", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 2), difficulties=(0, 1), set_mode=set_mode,
)
