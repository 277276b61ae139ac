"""Wizard of Wor: BCD score in hundreds ($86 low, $88 high; 8000 and above lose 8000); over when $8D's low
nibble is 0 and $F4 reads $F8; lives ($8D & 15) only taken while $D7 bit 0 is clear (ALE ``WizardOfWor``)."""
from __future__ import annotations

from .._jit import jit
from .base import (DOWN, DOWNFIRE, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE,
                   Game, decimal_score2, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    score = decimal_score2(s, 0x86, 0x88)
    if score >= 8000:
        score -= 8000
    set_reward_from_score(s, 100 * score)
    n = ram(s, 0x8D) & 15
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xF4) == 0xF8) else 0
    if (ram(s, 0xD7) & 1) == 0:
        s[G_LIVES] = n


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(
    id="wizard_of_wor", md5="7e8aa18bc9502eb57daaf5e7c1e94da7", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE),
    difficulties=(0, 1),
)
