"""Klax: the score, miss counters and level live in Superchip RAM (read through $F0xx); the game ends on
the last allowed miss, a full well or level $99 (ALE ``Klax``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import FIRE, G_TERMINAL, NOOP, Game, bcd, cart_ram, lives_default, ram, reset_common, \
    set_reward_from_score

lives = lives_default


@jit(inline="always")
def _mapped_bcd(s, addr):
    return bcd(cart_ram(s, addr))


@jit
def step(s):
    score = _mapped_bcd(s, 0xF0B4) + 100 * _mapped_bcd(s, 0xF0B5) + 10000 * _mapped_bcd(s, 0xF0B6)
    set_reward_from_score(s, score)
    misses = cart_ram(s, 0xF0EE)
    allowed = cart_ram(s, 0xF0E9)
    playing = ram(s, 0xA8) == 4
    filled = 0
    for i in range(25):
        b = ram(s, 0xB3 + i)
        if b != 0 and b != 2 and b != 6 and b != 10 and b != 14:
            filled += 1
    level = cart_ram(s, 0xF09D)
    over = (allowed > 0 and misses == allowed) or (playing and filled == 25) or level == 0x99
    s[G_TERMINAL] = 1 if over else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while cart_ram(s, 0xF0EA) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="klax", md5="eed9eaf1a0b6a2b9bc4c8032cb43e3fb", step=step, reset=reset, lives=lives,
    modes=(0, 1, 2), starting_actions=(FIRE, NOOP), set_mode=set_mode,
)
