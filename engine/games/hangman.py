"""Hangman: reward = change in player points minus change in computer points (BCD $EB / $EC); the game
ends on any non-zero reward or when the timer $F1 goes from 255 to 0 (ALE ``Hangman``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import ALL_ACTIONS, G_REWARD, G_TERMINAL, G_X, Game, bcd, lives_default, ram, reset_common

G_PLAYER = G_X
G_COMPUTER = G_X + 1
G_TIMER_NOW = G_X + 2
G_TIMER_PREV = G_X + 3
lives = lives_default


@jit
def step(s):
    computer = bcd(ram(s, 0xEC))
    player = bcd(ram(s, 0xEB))
    r = (player - s[G_PLAYER]) - (computer - s[G_COMPUTER])
    s[G_REWARD] = r
    s[G_COMPUTER] = computer
    s[G_PLAYER] = player
    s[G_TIMER_PREV] = s[G_TIMER_NOW]
    s[G_TIMER_NOW] = ram(s, 0xF1)
    timed_out = s[G_TIMER_NOW] == 0 and s[G_TIMER_PREV] == 255
    s[G_TERMINAL] = 1 if (r != 0 or timed_out) else 0


@jit
def reset(s):
    reset_common(s)
    s[G_PLAYER] = 0
    s[G_COMPUTER] = 0
    s[G_TIMER_NOW] = -1
    s[G_TIMER_PREV] = -1


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0xEE) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="hangman", md5="f16c709df0a6c52f47ff52b9d95b7d8d", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    modes=(0, 1, 2, 3), difficulties=(0, 1), set_mode=set_mode,
)
