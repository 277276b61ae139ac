"""River Raid: six score digits stored as 8*digit at $D7/$D5/$D3/$D1/$CF/$CD (other values count 0); lives
byte $C0 ($58 = 4 lives shown, $59 = last life); over when it goes from $59 to $58 (ALE ``RiverRaid``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_TERMINAL, G_X, Game, ram, reset_common, set_reward_from_score

G_LIVES_BYTE = G_X


@jit(inline="always")
def _digit(v):
    return v >> 3 if (v & 7) == 0 and v <= 72 else 0


@jit
def step(s):
    score = 0
    for k in range(6):                      # $CD holds the top digit, $D7 the ones
        score = 10 * score + _digit(ram(s, 77 + 2 * k))
    set_reward_from_score(s, score)
    b = ram(s, 0xC0)
    s[G_TERMINAL] = 1 if (b == 0x58 and s[G_LIVES_BYTE] == 0x59) else 0
    s[G_LIVES_BYTE] = b


@jit
def lives(s):
    if s[G_TERMINAL]:
        return 0
    b = s[G_LIVES_BYTE]
    if b == 0x58:
        return 4
    if b == 0x59:
        return 1
    return b // 8 + 1


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES_BYTE] = 0x58


GAME = Game(
    id="riverraid", md5="393948436d1f4cc3192410bb918f9724", step=step, reset=reset, lives=lives,
    difficulties=(0, 1),
)
