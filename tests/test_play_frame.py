"""The frame step a person plays through (``Env.play_frame``) and the settings it needs (``frames_per_act``,
machine snapshots): the app's only way to move the console."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine.env import Env


@pytest.mark.parametrize("game", ["pong", "seaquest"])
def test_play_frame_is_act_without_frame_skip_or_sticky_actions(game):
    """With no switch held, one played frame is exactly ALE's one-frame act (paddle knob turned by the
    action on Pong, joystick on Seaquest)."""
    ale = Env(game, frameskip=1, repeat_action_probability=0.0, seed=3)
    person = Env(game, frameskip=1, repeat_action_probability=0.0, seed=3)
    acts = ale.minimal_actions()
    rng = np.random.default_rng(0)
    rewards = [0, 0]
    score0 = person.score
    for i in range(400):
        a = int(acts[rng.integers(len(acts))])
        rewards[0] += ale.act(a)
        rewards[1] += person.play_frame(a)
        if i % 50 == 49:
            assert np.array_equal(ale.ram(), person.ram()), i
            assert np.array_equal(ale.screen(), person.screen()), i
    assert rewards[0] == rewards[1]
    assert person.frame_number == ale.frame_number == 400
    assert person.score == ale.score and person.score - score0 == rewards[1]


def test_score_follows_rewards_and_new_game_restarts_it():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    total = 0
    for _ in range(3000):  # the computer scores within a few hundred frames when nobody plays
        total += env.play_frame(0)
        if total:
            break
    assert total != 0 and env.score == total
    env.play_frame(0, reset_switch=True, new_game=True)   # the player presses RESET ...
    for _ in range(5):
        env.play_frame(0, reset_switch=True)               # ... holds it while the cartridge restarts
    for _ in range(10):
        env.play_frame(0)
    assert env.score == 0 and env.episode_frame_number == 16


def test_the_paddle_follows_an_absolute_knob_position():
    env = Env("breakout", repeat_action_probability=0.0, seed=0)
    lo, hi = env.paddle_range
    assert env.uses_paddles and lo < hi
    env.play_frame(0, paddle=0.0)
    assert env.paddle_resistance == hi     # fully left: the highest resistance
    env.play_frame(0, paddle=1.0)
    assert env.paddle_resistance == lo
    env.play_frame(0, paddle=0.5)
    assert env.paddle_resistance == hi - (hi - lo) // 2
    env.play_frame(0, paddle=7.5)          # out of range: clamped, not refused
    assert env.paddle_resistance == lo
    assert not Env("seaquest", repeat_action_probability=0.0, seed=0).uses_paddles


def test_play_frame_refuses_what_is_not_an_action():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    for bad in (-1, 18, 2.5):
        with pytest.raises(ValueError, match="ALE action id"):
            env.play_frame(bad)


def test_frames_per_act_is_the_frame_skip():
    env = Env("pong", frameskip=4, repeat_action_probability=0.0, seed=0)
    assert env.frames_per_act == 4
    env.frames_per_act = 2
    f0 = env.frame_number
    env.act(0)
    assert env.frame_number - f0 == 2
    for bad in (0, -3, 1.5, True):
        with pytest.raises(ValueError, match="frames_per_act"):
            env.frames_per_act = bad
    assert env.frames_per_act == 2


def test_machine_snapshot_replays_the_same_frames():
    env = Env("seaquest", repeat_action_probability=0.0, seed=0)
    for _ in range(100):
        env.play_frame(1)
    snap = env.machine_snapshot()
    seen = []
    for i in range(60):
        env.play_frame(3 + i % 3)
        seen.append(env.screen_view().copy())
    env.restore_machine_snapshot(*snap)
    for i in range(60):
        env.play_frame(3 + i % 3)
        assert np.array_equal(env.screen_view(), seen[i]), i
    state, rng, fb = snap
    with pytest.raises(ValueError, match="another machine layout"):
        env.restore_machine_snapshot(state[:-1], rng, fb)


def test_difficulty_switches_set_alys_difficulty_bits():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    env.set_difficulty_switch(0, True)
    env.set_difficulty_switch(1, True)
    assert env.difficulty == 3
    env.set_difficulty_switch(0, False)
    assert env.difficulty == 2
    with pytest.raises(ValueError):
        env.set_difficulty_switch(2, True)
