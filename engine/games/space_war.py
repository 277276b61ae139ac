"""Space War: the BCD byte at $A7 is both the score and (before play) the game number; over at a score of 10
or when the timer $80 runs out; modes 6-17 (ALE ``SpaceWar``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import G_TERMINAL, Game, bcd, lives_default, ram, reset_common, set_reward_from_score

lives = lives_default


@jit
def step(s):
    score = bcd(ram(s, 0xA7))
    set_reward_from_score(s, score)
    s[G_TERMINAL] = 1 if (score == 10 or ram(s, 0x80) == 0) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while bcd(ram(s, 0xA7)) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="space_war", md5="b702641d698c60bcdc922dbd8c9dd49c", step=step, reset=reset, lives=lives,
    modes=tuple(range(6, 18)), set_mode=set_mode,
)
