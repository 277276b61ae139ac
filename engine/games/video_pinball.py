"""Video Pinball: 6-digit BCD score at $B0/$B2/$B4; over when $AF bit 0 is set; lives = 4 + extra ball ($A8
bit 0) - balls used ($99 low bits); modes 0/2 at $C1 (ALE ``VideoPinball``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (DOWN, FIRE, G_LIVES, G_TERMINAL, LEFT, LEFTFIRE, NOOP, RIGHT, RIGHTFIRE, UP, UPFIRE, Game,
                   decimal_score3, lives_unless_terminal, ram, reset_common, set_reward_from_score)

lives = lives_unless_terminal


@jit
def step(s):
    set_reward_from_score(s, decimal_score3(s, 0xB0, 0xB2, 0xB4))
    s[G_TERMINAL] = 1 if (ram(s, 0xAF) & 1) != 0 else 0
    s[G_LIVES] = 4 + (ram(s, 0xA8) & 1) - (ram(s, 0x99) & 7)


@jit
def reset(s):
    reset_common(s)
    s[G_LIVES] = 3


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xC1) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="video_pinball", md5="107cc025334211e6d29da0b6be46aec7", step=step, reset=reset, lives=lives,
    minimal_actions=(NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE),
    modes=(0, 2), difficulties=(0, 1), set_mode=set_mode,
)
