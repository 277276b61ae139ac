"""E.T.: 6-digit BCD score ($E1 low .. $DF high); lives = $E5 + 1 kept in a signed byte; game over
with 0 lives in game state 8 (ALE ``Et``). Modes via $EA - 1 (unsigned byte), at most 100 tries."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (ALL_ACTIONS, G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram,
                   reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xE1, 0xE0, 0xDF))
    n = (ram(s, 0xE5) + 1) & 0xFF
    if n >= 128:
        n -= 256
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x80) == 8) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 0


@jit
def _mode(s):
    return (ram(s, 0xEA) - 1) & 0xFF


@jit
def set_mode(s, rom, fb, erng, mode):
    tries = 0
    while _mode(s) != mode and tries < 100:
        core.press_select(s, rom, fb, 25)
        tries += 1
    if _mode(s) != mode:
        raise RuntimeError("Failed to select game mode.")
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="et", md5="615a3bf251a38eb6638cdc7ffbde5480", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1, 2), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
