"""Tennis: games ($C7 mine, $C8 theirs) and points ($C5, $C6); the reward is the change of the games lead,
or else of the points lead. A set ends at 6 games with a 2-game lead, or at 7; modes 0/2 at $80
(ALE ``Tennis``)."""
from __future__ import annotations

from .. import ale_core as core
from .._jit import jit
from .base import G_REWARD, G_TERMINAL, G_X, Game, lives_zero, ram, reset_common

G_PREV_GAMES = G_X
G_PREV_POINTS = G_X + 1

lives = lives_zero


@jit
def step(s):
    my_points = ram(s, 0xC5)
    their_points = ram(s, 0xC6)
    my_games = ram(s, 0xC7)
    their_games = ram(s, 0xC8)
    d_points = my_points - their_points
    d_games = my_games - their_games
    if d_games != s[G_PREV_GAMES]:
        s[G_REWARD] = d_games - s[G_PREV_GAMES]
    elif d_points != s[G_PREV_POINTS]:
        s[G_REWARD] = d_points - s[G_PREV_POINTS]
    else:
        s[G_REWARD] = 0
    s[G_PREV_GAMES] = d_games
    s[G_PREV_POINTS] = d_points
    over = (my_games >= 6 and d_games >= 2) or (their_games >= 6 and -d_games >= 2) or my_games == 7 \
        or their_games == 7
    s[G_TERMINAL] = 1 if over else 0


@jit
def reset(s):
    reset_common(s)
    s[G_PREV_GAMES] = 0
    s[G_PREV_POINTS] = 0


@jit
def set_mode(s, rom, fb, erng, mode):
    while ram(s, 0x80) != mode:
        core.press_select(s, rom, fb, 2)
    core.soft_reset(s, rom, fb)


GAME = Game(
    id="tennis", md5="42cdd6a9e42a3639e190722b8ea3fc51", step=step, reset=reset, lives=lives,
    modes=(0, 2), difficulties=(0, 1, 2, 3), set_mode=set_mode,
)
