"""Superman: the only reward comes at the end (Clark Kent, $9F bit 6, back in the room at $F2AC): the
clock's remaining headroom, 99:59 minus the BCD time at $E3:$E2 (ALE ``Superman``)."""
from __future__ import annotations

from .._jit import jit
from .base import G_REWARD, G_TERMINAL, G_X, Game, bcd, lives_default, ram, reset_common

G_SECONDS = G_X
MAX_SECONDS = 99 * 60 + 59

lives = lives_default


@jit
def step(s):
    t = 60 * bcd(ram(s, 0xE3)) + bcd(ram(s, 0xE2))
    s[G_SECONDS] = t
    room = ram(s, 0x80) | (ram(s, 0x81) << 8)
    over = (ram(s, 0x9F) & 0x40) != 0 and room == 0xF2AC
    s[G_TERMINAL] = 1 if over else 0
    s[G_REWARD] = MAX_SECONDS - t if over else 0


@jit
def reset(s):
    reset_common(s)
    s[G_SECONDS] = 0


GAME = Game(
    id="superman", md5="a9531c763077464307086ec9a1fd057d", step=step, reset=reset, lives=lives,
    difficulties=(0, 1, 2, 3),
)
