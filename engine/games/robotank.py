"""Robot Tank: score = 12 * squadrons ($B6) + tanks ($B5) destroyed; lives in $A8's low nibble; over when
$A8 is 0 and $B4 reads $FF (ALE ``RoboTank``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_LIVES, G_TERMINAL, Game, lives_unless_terminal, ram, reset_common, set_reward_from_score

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, 12 * ram(s, 0xB6) + ram(s, 0xB5))
    n = ram(s, 0xA8)
    s[G_TERMINAL] = 1 if (n == 0 and ram(s, 0xB4) == 0xFF) else 0
    s[G_LIVES] = (n & 0x0F) + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 4


GAME = Game(id="robotank", md5="4f618c2429138e0280969193ed6c107e", step=step, reset=reset, lives=lives)
