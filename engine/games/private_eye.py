"""Private Eye: 6-digit BCD score (starts at 1000); over once the timer at $C2 is neither 0 nor 1; no lives;
UP for one frame starts; modes 0-4 at $80 (ALE ``PrivateEye``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import G_SCORE, G_TERMINAL, UP, Game, decimal_score3, lives_zero, ram, reset_common, \
    set_reward_from_score

lives = lives_zero


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xCA, 0xC9, 0xC8))
    t = ram(s, 0xC2)
    s[G_TERMINAL] = 1 if (t != 0 and t != 1) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_SCORE] = 1000


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="private_eye", md5="ef3a4f64b6494ba770862768caf04b86", step=step, reset=reset, lives=lives,
    modes=(0, 1, 2, 3, 4), difficulties=(0, 1, 2, 3), starting_actions=(UP,), set_mode=set_mode,
)
