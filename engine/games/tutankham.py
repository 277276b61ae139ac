"""Tutankham: 4-digit BCD score ($9C low, $9A high); lives in $9E's low 2 bits; over when $9E is 0 unless
$81 reads $84; modes 0/4/8/12 at $AB (ALE ``Tutankham``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE, Game,
                   decimal_score2, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0x9C, 0x9A))
    n = ram(s, 0x9E)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x81) != 0x84) else 0
    s[G_LIVES] = n & 3


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xAB) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="tutankham", md5="085322bae40d904f53bdcc56df0593fc", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE),
    modes=(0, 4, 8, 12), set_mode=set_mode,
)
