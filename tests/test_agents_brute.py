"""The Brute: converges on the best script in a deterministic problem, backs up visit-weighted values
when the same action leads to different observations, saves and loads its tree, plays real games
reproducibly."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.agents.base import Observation, RunConfig, Runner
from arcade_lab.agents.brute import BruteAgent
from arcade_lab.agents.registry import make_agent

CODE = [2, 0, 1, 1, 0]  # the rewarded action at each step of the toy problem


def _obs(t: int, extra: int = 0) -> Observation:
    return Observation(screen=None, ram=np.array([t, extra], np.uint8), lives=0, frame=t)


def play(agent: BruteAgent, sticky: float = 0.0, rng=None) -> float:
    """One episode of the toy problem: len(CODE) steps, reward 1 when the executed action is CODE[t]. With
    ``sticky`` the previous action is executed instead with that probability (and shows in the RAM)."""
    total, prev = 0.0, 0
    a = agent.begin_episode(_obs(0))
    for t in range(len(CODE)):
        done = a if rng is None or rng.random() >= sticky else prev
        r = 1.0 if done == CODE[t] else 0.0
        total += r
        prev = done
        if t == len(CODE) - 1:
            agent.end_episode(r)
        else:
            a = agent.step(r, _obs(t + 1, done))
    return total


def test_converges_on_the_best_script_when_the_game_is_deterministic():
    agent = BruteAgent(seed=1, epsilon=0.2)
    agent.actions = [0, 1, 2]
    for _ in range(600):
        play(agent)
    assert agent.best_return() == len(CODE)
    agent.learning = False
    n = agent.n_nodes
    assert [play(agent) for _ in range(5)] == [len(CODE)] * 5  # greedy replay is the perfect script
    assert agent.n_nodes == n  # and walks only known histories


def test_values_average_over_the_observations_an_action_led_to():
    agent = BruteAgent(seed=0, epsilon=0.0)
    agent.actions = [0]
    # the same action from the root, two different outcomes: reward 3 then end, or reward 0 then end
    agent.begin_episode(_obs(0))
    agent.step(3.0, _obs(1, 7))
    agent.end_episode(0.0)
    assert agent.best_return() == 3.0
    agent.begin_episode(_obs(0))
    agent.step(0.0, _obs(1, 9))
    agent.end_episode(0.0)
    assert agent.best_return() == pytest.approx(1.5)  # (3 + 0) / 2: one visit each
    agent.begin_episode(_obs(0))
    agent.step(3.0, _obs(1, 7))
    agent.end_episode(1.0)  # the known history now scores one more at its end (that step: 0 then 1)
    # outcome 7: 2 visits, rewards 3 + 3, value after it (0 + 1) / 2; outcome 9: 1 visit, 0, value 0
    assert agent.best_return() == pytest.approx((6.0 + 2 * 0.5 + 0.0) / 3)


def test_sticky_actions_break_the_script():
    rng = np.random.default_rng(0)
    det = BruteAgent(seed=3, epsilon=0.2)
    sto = BruteAgent(seed=3, epsilon=0.2)
    for ag in (det, sto):
        ag.actions = [0, 1, 2]
    for _ in range(600):
        play(det)
        play(sto, sticky=0.25, rng=rng)
    # the stochastic tree fans out: many more histories for the same number of episodes
    assert sto.n_nodes > 2 * det.n_nodes
    det.learning = sto.learning = False
    assert play(det) == len(CODE)
    assert np.mean([play(sto, sticky=0.25, rng=rng) for _ in range(200)]) < len(CODE) - 1


def test_tree_files_round_trip(tmp_path):
    agent = BruteAgent(seed=2, epsilon=0.3)
    agent.actions = [0, 1, 2]
    rng = np.random.default_rng(1)
    for _ in range(150):
        play(agent, sticky=0.1, rng=rng)
    path = tmp_path / "tree.npz"
    agent.save(path)
    other = BruteAgent(seed=2, epsilon=0.3)
    other.actions = [0, 1, 2]
    other.load(path)
    assert other.n_nodes == agent.n_nodes
    assert other.best_return() == pytest.approx(agent.best_return())
    for q1, q2 in zip(agent._q, other._q):
        assert q1.keys() == q2.keys() and all(q1[k] == pytest.approx(q2[k]) for k in q1)
    bad = tmp_path / "bad.npz"
    np.savez(bad, header=np.array('{"format": "something-else"}'))
    with pytest.raises(ValueError, match="not a Brute tree"):
        other.load(bad)


def test_plays_a_real_game_reproducibly():
    def run(seed):
        runner = Runner(RunConfig("pong", frameskip=5, max_frames=600, seed=seed))
        agent = make_agent("brute", runner.env, seed=seed)
        recs = list(runner.episodes(agent, 2))
        return agent, recs

    a1, r1 = run(4)
    a2, r2 = run(4)
    assert [list(r.actions) for r in r1] == [list(r.actions) for r in r2]
    assert a1.n_nodes == a2.n_nodes > 100
    # the second episode replays the first one's best history except where it explores
    same = sum(x == y for x, y in zip(r1[0].actions, r1[1].actions))
    assert same > 0.9 * len(r1[0].actions)
