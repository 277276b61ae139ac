"""Surround: reward follows my BCD score ($F7) minus the opponent's ($F6); first to 10 ends it; modes 0/2 are
game numbers 1/3 at $F9 (ALE ``Surround``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import DOWN, G_TERMINAL, LEFT, NOOP, RIGHT, UP, Game, bcd, lives_default, ram, reset_common, \
    set_reward_from_score

lives = lives_default


@jit
def step(s):
    theirs = bcd(ram(s, 0xF6))
    mine = bcd(ram(s, 0xF7))
    set_reward_from_score(s, mine - theirs)
    s[G_TERMINAL] = 1 if (theirs == 10 or mine == 10) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xF9) != mode + 1:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="surround", md5="4d7517ae69f95cfbc053be01312b7dba", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, UP, RIGHT, LEFT, DOWN),
    modes=(0, 2), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
