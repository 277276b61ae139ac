"""King Kong: 4-digit BCD score, lives at $EE; modes by the byte at $EC (twice the mode) (ALE ``Kingkong``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, FIRE, G_LIVES, G_TERMINAL, LEFT, NOOP, RIGHT, UP, Game, decimal_score2,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0x83, 0x82))
    n = ram(s, 0xEE)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xEC) != 2 * mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="king_kong", md5="0dd4c69b5f9a7ae96a7a08329496779a", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN),
    modes=(0, 1, 2, 3), set_mode=set_mode,
)
