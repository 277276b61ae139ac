"""Casino (paddles): the BCD chip count is the score. In game 3 (poker solitaire) the game ends once
points are awarded; otherwise it ends with no chips or when a bet is placed and input is locked. While
input is locked the previous reward is kept (ALE ``Casino``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, FIRE, G_REWARD, G_SCORE, G_TERMINAL, NOOP, UP, Game, bcd, decimal_score2, lives_default,
                   ram, reset_common)

lives = lives_default


@jit
def step(s):
    score = decimal_score2(s, 0x95, 0x8C)
    if ram(s, 0xD4) == 3:
        s[G_REWARD] = score - s[G_SCORE]
        s[G_TERMINAL] = 1 if (score > 0 and ram(s, 0x9E) == 0xAA) else 0
    else:
        locked = (ram(s, 0xD3) & 0x80) != 0
        if not locked:
            s[G_REWARD] = score - s[G_SCORE]
        bet = bcd(ram(s, 0x9E))
        s[G_TERMINAL] = 1 if (score == 0 or (bet > 0 and locked)) else 0
    s[G_SCORE] = score


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xD4) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="casino", md5="b816296311019ab69a21cb9e9e235d12", step=step, reset=reset, lives=lives, minimal_actions=(NOOP, FIRE, UP, DOWN),
    modes=(0, 2, 3), difficulties=(0, 1, 2, 3), starting_actions=(NOOP,) * 60 + (FIRE, FIRE),
    set_mode=set_mode,
)
