"""Mr. Do!: BCD score in tens ($82 low, $83 high), lives at $DB, over when $DA reads $40; modes 0-3 at $80
(ALE ``MrDo``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE,
                   Game, decimal_score2, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 10 * decimal_score2(s, 0x82, 0x83))
    s[G_LIVES] = ram(s, 0xDB)
    s[G_TERMINAL] = 1 if ram(s, 0xDA) == 0x40 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 5)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="mr_do", md5="aa7bb54d2c189a31bb1fa20099e42859", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE),
    modes=(0, 1, 2, 3), starting_actions=(FIRE,), set_mode=set_mode,
)
