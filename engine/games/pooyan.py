"""Pooyan: 6-digit BCD score ($8A low); lives from $96; over when $96 is 0 and $98 reads 5. Modes
$0A/$1E/$32/$46 at $BD, reached after one unconditional SELECT (ALE ``Pooyan``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, NOOP, UP, UPFIRE, Game, decimal_score3,
                   lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0x8A, 0x89, 0x88))
    n = ram(s, 0x96)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0x98) == 0x05) else 0
    s[G_LIVES] = (n & 7) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    core.press_select(s, rom, fb, 2)
    while ram(s, 0xBD) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="pooyan", md5="4799a40b6e889370b7ee55c17ba65141", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE),
    modes=(0x0A, 0x1E, 0x32, 0x46), set_mode=set_mode,
)
