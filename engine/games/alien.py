"""Alien: five score digits stored as glyph offsets (x8), score x10; lives in the low nibble of $C0
(ALE ``Alien``; lives() is reported even after the game ends)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, lives_field, ram, reset_common, set_reward_from_score

lives = lives_field


@jit
def _digit(s, addr):
    v = ram(s, addr)
    return 0 if v == 0x80 else v >> 3


@jit
def step(s):
    score = (_digit(s, 0x8B) + 10 * _digit(s, 0x89) + 100 * _digit(s, 0x87) + 1000 * _digit(s, 0x85)
             + 10000 * _digit(s, 0x83)) * 10
    set_reward_from_score(s, score)
    left = ram(s, 0xC0) & 15
    s[G_TERMINAL] = 1 if left <= 0 else 0
    s[G_LIVES] = left


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x81) != mode:
        core.press_select(s, rom, fb, 1)
    s[G_LIVES] = ram(s, 0xC0) & 15
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="alien", md5="f1a0a23e6464d954e3a9579c4ccd01c8", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1, 2, 3), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
