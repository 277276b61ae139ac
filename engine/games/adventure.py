"""Adventure: +1 once the chalice sits in the yellow castle; the game ends then or when a dragon eats
the player (ALE ``Adventure``). Mode selection holds SELECT for a random number of frames."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from ..rng import mt_next
from .base import ALL_ACTIONS, G_REWARD, G_TERMINAL, NOOP, PLAYER_B_NOOP, Game, ram, reset_common

PADDLE_DELTA = 23000


@jit
def lives(s):
    return 1


@jit
def step(s):
    won = ram(s, 0xB9) == 0x12
    if won:
        s[G_REWARD] = 1
    eaten = ram(s, 0xE0) == 2
    s[G_TERMINAL] = 1 if (won or eaten) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def _mode(s):
    return (ram(s, 0xDD) >> 1) & 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while _mode(s) != mode:
        hold = 2 + mt_next(erng, 0, 1) % 256
        core.press_select(s, rom, fb, hold)
        core.act(s, rom, fb, erng, NOOP, PLAYER_B_NOOP, PADDLE_DELTA, PADDLE_DELTA, 1 << 30)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="adventure", md5="4b27f5397c442d25f0c418ccdacf1926", step=step, reset=reset, lives=lives,
    minimal_actions=ALL_ACTIONS, modes=(0, 1, 2), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
