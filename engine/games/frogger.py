"""Frogger: BCD score ($CE low, $CC high); lives at $D0, $FF at game over (ALE ``Frogger``). Mode m is
the value 2m+1 at $DD."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, G_LIVES, G_TERMINAL, LEFT, NOOP, RIGHT, UP, Game, decimal_score2, lives_unless_terminal,
                   ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score2(s, 0xCE, 0xCC))
    n = ram(s, 0xD0)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0xFF else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


@jit
def set_mode(s, rom, fb, erng, mode):
    want = 1 + 2 * mode
    while ram(s, 0xDD) != want:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="frogger", md5="081e2c114c9c20b61acf25fc95c71bf4", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN), modes=(0, 1, 2), difficulties=(0, 1), set_mode=set_mode,
)
