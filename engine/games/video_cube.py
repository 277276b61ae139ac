"""Video Cube: reward = change in the number of solved faces (six faces of 9 cells from $A0); -1 and game over
when the timer $DB wraps from 255 to 0; over when all six are solved. Mode = 100 * cube + variant, variant
0/1/2 = game 1/3/9 (byte $FB & $1F = game - 1); the cube (BCD $9F) is chosen by pressing RIGHT through act()
(ALE ``VideoCube``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import (FIRE, G_REWARD, G_TERMINAL, G_X, NOOP, PLAYER_B_NOOP, RIGHT, Game, bcd, lives_default, ram)

G_CUBE = G_X
G_FACES = G_X + 1
G_TIMER = G_X + 2        # last timer value
G_TIMER_PREV = G_X + 3   # the one before

lives = lives_default


@jit
def step(s):
    solved = 0
    for face in range(6):
        a = 0xA0 + 9 * face
        first = ram(s, a)
        same = True
        for k in range(1, 9):
            if ram(s, a + k) != first:
                same = False
                break
        if same:
            solved += 1
    s[G_TIMER_PREV] = s[G_TIMER]
    s[G_TIMER] = ram(s, 0xDB)
    timed_out = s[G_TIMER] == 0 and s[G_TIMER_PREV] == 255
    s[G_REWARD] = -1 if timed_out else solved - s[G_FACES]
    s[G_FACES] = solved
    s[G_TERMINAL] = 1 if (timed_out or solved == 6) else 0


@jit
def reset(s):
    s[G_CUBE] = 1
    s[G_REWARD] = 0
    s[G_FACES] = 0
    s[G_TERMINAL] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    if mode >= 100:
        s[G_CUBE] = mode // 100
    variant = mode % 100
    game = 1 if variant == 0 else (3 if variant == 1 else 9)
    while (ram(s, 0xFB) & 0x1F) != game - 1:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)
    while bcd(ram(s, 0x9F)) != s[G_CUBE]:
        core.act(s, rom, fb, erng, RIGHT, PLAYER_B_NOOP, core.PADDLE_DELTA, core.PADDLE_DELTA, 1 << 30)


GAME = Game(
    id="video_cube", md5="3f540a30fdee0b20aed7288e4a5ea528", step=step, reset=reset, lives=lives,
    modes=tuple(100 * c + v for c in range(51) for v in range(3)), difficulties=(0, 1),
    starting_actions=(NOOP,) * 61 + (FIRE, NOOP, NOOP), set_mode=set_mode,
)
