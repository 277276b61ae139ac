"""Demon Attack: 6-digit BCD score ($85 low .. $81 high; the $AB/$CD/$EA attract pattern means 0);
lives shown at $F2 (+1). Game over needs 0 lives shown, $F1 = $BD, and no mode change on the previous
frame (ALE ``DemonAttack``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, G_X, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

G_LEVEL_CHANGE = G_X
lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score3(s, 0x85, 0x83, 0x81)
    if ram(s, 0x81) == 0xAB and ram(s, 0x83) == 0xCD and ram(s, 0x85) == 0xEA:
        score = 0
    set_reward_from_score(s, score)
    shown = ram(s, 0xF2)
    flag = ram(s, 0xF1)
    s[G_TERMINAL] = 1 if (shown == 0 and flag == 0xBD and not s[G_LEVEL_CHANGE]) else 0
    s[G_LIVES] = shown + 1
    s[G_LEVEL_CHANGE] = 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4
    s[G_LEVEL_CHANGE] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xEA) != mode:
        core.press_select(s, rom, fb, 1)
    s[G_LEVEL_CHANGE] = 1
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="demon_attack", md5="f0e0addc07971561ab80d9abe1b8d333", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE), modes=(1, 3, 5, 7), difficulties=(0, 1),
    set_mode=set_mode,
)
