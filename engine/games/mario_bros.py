"""Mario Bros.: BCD score in hundreds at $8A/$89, lives at $87; modes 0/2/4/6 at $80; ten idle frames and
seven FIRE frames start the game (ALE ``MarioBros``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import FIRE, G_LIVES, G_TERMINAL, NOOP, Game, decimal_score2, lives_unless_terminal, ram, \
    reset_common, set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 100 * decimal_score2(s, 0x8A, 0x89))
    n = ram(s, 0x87)
    s[G_LIVES] = n
    s[G_TERMINAL] = 1 if n == 0 else 0


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 5)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="mario_bros", md5="e908611d99890733be31733a979c62d8", step=step, reset=reset, lives=lives,
    modes=(0, 2, 4, 6), starting_actions=(NOOP,) * 10 + (FIRE,) * 7, set_mode=set_mode,
)
