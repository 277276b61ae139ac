"""Flag Capture: flags captured (BCD $EA) are the score; the game ends when the BCD timer $EB reads 0
(ALE ``FlagCapture``; modes 8-10)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import ALL_ACTIONS, G_TERMINAL, Game, bcd, lives_default, ram, reset_common, set_reward_from_score

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, bcd(ram(s, 0xEA)))
    s[G_TERMINAL] = 1 if bcd(ram(s, 0xEB)) == 0 else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xD6) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="flag_capture", md5="30512e0e83903fc05541d2f6a6a62654", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(8, 9, 10), set_mode=set_mode,
)
