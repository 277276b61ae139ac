"""Star Gunner: four score digits in the low nibbles of $83-$86 ($A shows as 0), in hundreds; lives at $87,
reported as 5 until the game has shown 5 lives once; over at 0; modes 0-3 at $F4 (ALE ``StarGunner``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import G_LIVES, G_TERMINAL, G_X, Game, lives_unless_terminal, ram, reset_common, set_reward_from_score

G_STARTED = G_X

lives = lives_unless_terminal


@jit
def step(s):
    score = 0
    place = 1
    for k in range(4):
        d = ram(s, 0x83 + k) & 0x0F
        if d == 10:
            d = 0
        score += place * d
        place *= 10
    set_reward_from_score(s, 100 * score)
    n = ram(s, 0x87)
    s[G_TERMINAL] = 1 if n == 0 else 0
    if n == 5:
        s[G_STARTED] = 1
    s[G_LIVES] = (n & 0x0F) if s[G_STARTED] else 5


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 5
    s[G_STARTED] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xF4) != mode:
        core.press_select(s, rom, fb, 15)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="star_gunner", md5="a3c1c70024d7aabb41381adbfb6d3b25", step=step, reset=reset, lives=lives,
    modes=(0, 1, 2, 3), set_mode=set_mode,
)
