"""Freeway: crossings (BCD $E7) are the score, reward clamped to [0, 1]; the game ends when $96 reads 1
(ALE ``Freeway``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import DOWN, G_REWARD, G_SCORE, G_TERMINAL, NOOP, UP, Game, bcd, lives_zero, ram, reset_common

lives = lives_zero


@jit
def step(s):
    score = bcd(ram(s, 103))
    r = score - s[G_SCORE]
    s[G_REWARD] = 0 if r < 0 else (1 if r > 1 else r)
    s[G_SCORE] = score
    s[G_TERMINAL] = 1 if ram(s, 22) == 1 else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 1)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="freeway", md5="8e0ab801b1705a740b476b7f588c6d16", step=step, reset=reset, lives=lives, minimal_actions=(NOOP, UP, DOWN),
    modes=tuple(range(8)), difficulties=(0, 1), set_mode=set_mode,
)
