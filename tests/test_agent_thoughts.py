"""The agent interface's optional ``thoughts()``: what the app shows of each decision, per agent kind."""
from __future__ import annotations

import numpy as np

from arcade_lab.agents import make_agent
from arcade_lab.agents.base import Observation, Thoughts
from arcade_lab.engine.env import Env


def _obs(env) -> Observation:
    return Observation(screen=env.screen(), ram=env.ram(), lives=env.lives(), frame=env.episode_frame_number,
                       terminal=env.game_over())


def test_a_planner_shows_its_root_visits_and_values():
    env = Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    agent = make_agent("uct", env, seed=0, simulations=24, depth_frames=30)
    agent.begin_episode(_obs(env))
    t = agent.thoughts()
    assert isinstance(t, Thoughts) and t.kind == "plan"
    assert t.actions == list(agent.actions) and t.visits.shape == t.value.shape == (len(agent.actions),)
    assert t.visits.sum() >= 24 - len(agent.actions)  # every simulation passes through one root child


def test_a_learner_shows_its_action_values_and_random_shows_nothing():
    env = Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    sarsa = make_agent("sarsa:ram", env, seed=0)
    sarsa.begin_episode(_obs(env))
    t = sarsa.thoughts()
    assert t.kind == "q" and t.visits is None and np.array_equal(t.value, sarsa.q_values())
    rnd = make_agent("random", env, seed=0)
    rnd.begin_episode(_obs(env))
    assert rnd.thoughts() is None
