"""Word Zapper: only while the clock $CF (BCD) is non-zero: score = 2 - $DC as a signed byte, over at 3 or
when the time left ($DE, BCD) is 0; otherwise reward and terminal keep their values. 486 idle frames, FIRE and
two idle frames start; modes 0-23 at $DB (ALE ``WordZapper``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import FIRE, G_TERMINAL, NOOP, Game, bcd, lives_default, ram, reset_common, set_reward_from_score

lives = lives_default


@jit
def step(s):
    if bcd(ram(s, 0xCF)) > 0:
        v = ram(s, 0xDC)
        score = 2 - (v - 256 if v >= 128 else v)
        set_reward_from_score(s, score)
        s[G_TERMINAL] = 1 if (score == 3 or bcd(ram(s, 0xDE)) == 0) else 0


@jit
def reset(s):
    reset_common(s)


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xDB) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="word_zapper", md5="ec3beb6d8b5689e867bafb5d5f507491", step=step, reset=reset, lives=lives,
    modes=tuple(range(24)), difficulties=(0, 1, 2, 3),
    starting_actions=(NOOP,) * 486 + (FIRE, NOOP, NOOP), set_mode=set_mode,
)
