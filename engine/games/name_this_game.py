"""Name This Game: 6-digit BCD score ($C6 low); lives in $C7's low 3 bits, over at 0; modes $08/$18/$28 at $DE
(ALE ``NameThisGame``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xC6, 0xC5, 0xC4))
    n = ram(s, 0xC7) & 7
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xDE) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="name_this_game", md5="36306070f0c90a72461551a7a4f3a209", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE),
    modes=(0x08, 0x18, 0x28), difficulties=(0, 1), set_mode=set_mode,
)
