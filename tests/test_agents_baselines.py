"""Baselines: Random decides every frame, Perturb keeps its action 95% of the time, Const is constant,
runs are reproducible for a seed; the registry names them and rejects unknown specs."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.agents import make_agent
from arcade_lab.agents.base import Observation, RunConfig, Runner
from arcade_lab.agents.baselines import ConstAgent, PerturbAgent, RandomAgent, all_baselines
from arcade_lab.agents.registry import UnknownAgent

OBS = Observation(screen=np.zeros((210, 160), np.uint8), ram=np.zeros(128, np.uint8), lives=0, frame=0)


def test_perturb_frequencies():
    ag = PerturbAgent(3, seed=0)
    ag.actions = list(range(18))
    acts = np.array([ag.begin_episode(OBS)] + [ag.step(0.0, OBS) for _ in range(20_000)])
    keep = (acts == 3).mean()
    # P(3) = 0.95 + 0.05/18
    assert abs(keep - (0.95 + 0.05 / 18)) < 0.006
    others = np.bincount(acts[acts != 3], minlength=18)
    assert (np.delete(others, 3) > 0).all()


def test_const_and_names():
    ag = ConstAgent(7)
    assert {ag.begin_episode(OBS), *(ag.step(0.0, OBS) for _ in range(50))} == {7}
    assert ag.name == "const:7" and PerturbAgent(2).name == "perturb:2" and RandomAgent().name == "random"
    assert len(all_baselines()) == 37
    with pytest.raises(ValueError):
        ConstAgent(18)


def test_registry():
    assert isinstance(make_agent("random"), RandomAgent)
    assert make_agent("const:4").action == 4
    assert make_agent("perturb:17").action == 17
    for bad in ("nope", "const:x", "const:18", "sarsa:pixels", "uct"):
        with pytest.raises(UnknownAgent):
            make_agent(bad)


def _run(spec, seed, frames=300):
    from arcade_lab import engine

    env = engine.Env("pong", frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=frames,
                     seed=seed)
    run = Runner(RunConfig(game="pong", protocol="ale2013", frameskip=5, max_frames=frames, seed=seed), env)
    return next(run.episodes(make_agent(spec, env, seed=seed), 1))


def test_random_acts_every_frame_and_is_reproducible(ale_roms):
    rec = _run("random", 5)
    assert rec.frames == 300 and rec.steps == 300 and rec.frameskip == 1
    again = _run("random", 5)
    assert np.array_equal(rec.actions, again.actions) and rec.score == again.score
    assert not np.array_equal(rec.actions, _run("random", 6).actions)
    const = _run("const:0", 0)
    assert const.steps == 60 and const.frameskip == 5 and set(const.actions.tolist()) == {0}
