"""Solaris: BCD score in tens ($DC low, $DE high); lives at $D9 (low nibble), over when it is 0
(ALE ``Solaris``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, decimal_score3, lives_unless_terminal, ram, reset_common, \
    set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 10 * decimal_score3(s, 0xDC, 0xDD, 0xDE))
    n = ram(s, 0xD9)
    s[G_TERMINAL] = 1 if n == 0 else 0
    s[G_LIVES] = n & 0x0F


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


GAME = Game(id="solaris", md5="e72eb8d4410152bdcb69e7fba327b420", step=step, reset=reset, lives=lives)
