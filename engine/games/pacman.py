"""Pac-Man: 6-digit BCD score at $CC/$CE/$D0; lives = $98 + 1; over on the last life when the animation
counter $E4 reads $3F. Mode m: ($CC - 1) as a byte equals m with one player ($E6 == 0) (ALE ``Pacman``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, G_LIVES, G_TERMINAL, LEFT, NOOP, RIGHT, UP, Game, decimal_score3, lives_unless_terminal,
                   ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xCC, 0xCE, 0xD0))
    n = ram(s, 0x98) + 1
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 1 and ram(s, 0xE4) == 0x3F) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    while not (((ram(s, 0xCC) - 1) & 0xFF) == mode and ram(s, 0xE6) == 0):
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="pacman", md5="fc2233fc116faef0d3c31541717ca2db", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN),
    modes=tuple(range(8)), difficulties=(0, 1), set_mode=set_mode,
)
