"""Boxing: player minus opponent points (BCD, $C0 shown for a KO = 100); the bout ends on a KO or when
the clock reaches 0:00 (ALE ``Boxing``)."""
from __future__ import annotations

from .._jit import jit
from .base import ALL_ACTIONS, G_TERMINAL, Game, bcd, lives_zero, ram, reset_common, set_reward_from_score

lives = lives_zero


@jit
def step(s):
    mine_b = ram(s, 0x92)
    theirs_b = ram(s, 0x93)
    mine = 100 if mine_b == 0xC0 else bcd(mine_b)
    theirs = 100 if theirs_b == 0xC0 else bcd(theirs_b)
    set_reward_from_score(s, mine - theirs)
    if mine == 100 or theirs == 100:
        s[G_TERMINAL] = 1
    else:
        minutes = ram(s, 0x90) >> 4
        sec = ram(s, 0x91)
        seconds = (sec & 0x0F) + (sec >> 4) * 10
        s[G_TERMINAL] = 1 if (minutes == 0 and seconds == 0) else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="boxing", md5="c3ef5c4653212088eda54dc91d787870", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    difficulties=(0, 1, 2, 3),
)
