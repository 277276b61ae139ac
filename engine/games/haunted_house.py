"""Haunted House: -1 for every change of the BCD match count at $82, +100 for escaping with the urn
($99 = $44); lives at $96 (ALE ``HauntedHouse``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_REWARD, G_TERMINAL, G_X, Game, bcd, lives_unless_terminal, ram,
                   reset_common)

G_MATCHES = G_X
lives = lives_unless_terminal


@jit
def step(s):
    r = 0
    matches = bcd(ram(s, 0x82))
    if matches != s[G_MATCHES]:
        r -= 1
        s[G_MATCHES] = matches
    n = ram(s, 0x96)
    s[G_LIVES] = n
    escaped = ram(s, 0x99) == 0x44
    if escaped:
        r += 100
    s[G_REWARD] = r
    s[G_TERMINAL] = 1 if (n == 0 or escaped) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_MATCHES] = 0
    s[G_LIVES] = 9


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xCC) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="haunted_house", md5="f0a6e99f5875891246c3dbecbf2d2cea", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=tuple(range(9)), difficulties=(0, 1), set_mode=set_mode,
)
