"""Air Raid: 6-digit BCD score; game over when the lives byte wraps to $FF (ALE ``AirRaid``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game, decimal_score3, lives_default,
                   ram, reset_common, set_reward_from_score)

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xAA, 0xA9, 0xA8))
    s[G_TERMINAL] = 1 if ram(s, 0xA7) == 0xFF else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    core.press_select(s, rom, fb, 20)
    while ram(s, 0xAA) != mode:
        core.press_select(s, rom, fb, 10)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="air_raid", md5="35be55426c1fec32dfb503b4f0651572", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
    modes=(1, 2, 3, 4, 5, 6, 7, 8), starting_actions=(FIRE,), set_mode=set_mode,
)
