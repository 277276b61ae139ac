"""Ice Hockey: player minus opponent goals (BCD $8A / $8B), reward capped at +1; the game ends when the
clock ($87 minutes, $86 seconds) reaches 0 (ALE ``IceHockey``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import ALL_ACTIONS, G_REWARD, G_SCORE, G_TERMINAL, Game, bcd, lives_zero, ram, reset_common

lives = lives_zero


@jit
def step(s):
    mine = max(bcd(ram(s, 0x8A)), 0)
    theirs = max(bcd(ram(s, 0x8B)), 0)
    score = mine - theirs
    s[G_REWARD] = min(score - s[G_SCORE], 1)
    s[G_SCORE] = score
    s[G_TERMINAL] = 1 if (ram(s, 0x87) == 0 and ram(s, 0x86) == 0) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="ice_hockey", md5="a4c08c4994eb9d24fb78be1793e82e26", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 2), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
