"""Ms. Pac-Man: 6-digit BCD score ($F8 low); lives in $FB's low bits; over when they are 0 and the death
timer $A7 reads $53. Mode 0 is game 1 variant 1 ($99/$A1); modes 1-3 are games 1-3 variant 0 (ALE ``MsPacman``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNLEFT, DOWNRIGHT, G_LIVES, G_TERMINAL, LEFT, NOOP, RIGHT, UP, UPLEFT, UPRIGHT, Game,
                   decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xF8, 0xF9, 0xFA))
    n = ram(s, 0xFB) & 0x0F
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xA7) == 0x53) else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    game = 1 if mode == 0 else mode
    variant = 1 if mode == 0 else 0
    while ram(s, 0x99) != game or ram(s, 0xA1) != variant:
        core.press_select(s, rom, fb, 10)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="ms_pacman", md5="87e79cd41ce136fd4f72cc6e2c161bee", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT),
    modes=(0, 1, 2, 3), set_mode=set_mode,
)
