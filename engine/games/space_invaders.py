"""Space Invaders: 4-digit BCD score ($E8 low, $E6 high), a drop counts as a wrap at 10000; lives at $C9;
over when $98 bit 7 is set or no lives are left; modes 0-15 at $DC (ALE ``SpaceInvaders``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_REWARD, G_SCORE, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game,
                   decimal_score2, lives_unless_terminal, ram, reset_common)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score2(s, 0xE8, 0xE6)
    r = score - s[G_SCORE]
    if r < 0:
        r = 10000 - s[G_SCORE] + score
    s[G_REWARD] = r
    s[G_SCORE] = score
    n = ram(s, 0xC9)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if ((ram(s, 0x98) & 0x80) != 0 or n == 0) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xDC) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="space_invaders", md5="72ffbef6504b75e69ee1045af9075f66", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
    modes=tuple(range(16)), difficulties=(0, 1), set_mode=set_mode,
)
