"""Anytime search (the app's "keep real time"): a planner handed a deadline searches until then on every
tree, keeps its tree whole, reports what it managed, and leaves the exact-budget path as it was."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest


@pytest.fixture(scope="module")
def boxing(ale_roms):
    from arcade_lab import engine

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    for _ in range(30):
        env.act(0)
    from arcade_lab.agents.search import BFSAgent, UCTAgent

    UCTAgent(env, simulations=2, depth_frames=10).decide()   # compiled before any clock is watched
    BFSAgent(env, frames=100).decide()
    return env


def _timed(agent, budget_s: float) -> tuple[float, int]:
    """Seconds past the deadline when the decision returned, and the action."""
    deadline = time.perf_counter() + budget_s
    a = agent.decide(deadline=deadline)
    return time.perf_counter() - deadline, a


def _tree_is_whole(tree, sims: int) -> None:
    from arcade_lab.agents.search import C_NODES, N_COUNT, N_FIRST, N_PARENT, N_VISITS

    n = int(tree.ctr[C_NODES])
    nodes = tree.nodes[:n]
    assert nodes[0, N_VISITS] == sims
    for i in range(n):
        first, count = int(nodes[i, N_FIRST]), int(nodes[i, N_COUNT])
        if count > 0:
            kids = range(first, first + count)
            assert all(nodes[c, N_PARENT] == i for c in kids)
            # every simulation through a node went on to one of its children, but the one that first
            # reached it (the root's first simulation expands it at once)
            assert nodes[list(kids), N_VISITS].sum() == nodes[i, N_VISITS] - (i != 0)


def test_uct_stops_near_its_deadline_on_every_tree_and_reports_its_simulations(boxing):
    from arcade_lab.agents.search import N_VISITS, UCTAgent

    agent = UCTAgent(boxing, seed=0, simulations=4, depth_frames=60, workers=2, reuse=False)
    late, a = _timed(agent, 0.3)
    assert -0.1 < late < 0.15, late                 # neither the 4-simulation budget nor far past the clock
    per_tree = [int(t.nodes[0, N_VISITS]) for t in agent.trees]
    assert all(v >= 1 for v in per_tree) and agent.last_sims == sum(per_tree)
    assert agent.last_sims > 4                      # more than the exact budget: it used the time
    stats = agent.root_stats()
    assert stats["visits"][stats["same_as"] == np.arange(len(stats["visits"]))].sum() == agent.last_sims
    assert stats["visits"][agent.actions.index(a)] == stats["visits"].max()
    for t in agent.trees:                            # the tables grew past the 4-simulation size, whole
        _tree_is_whole(t, int(t.nodes[0, N_VISITS]))
    assert max(t.nodes.shape[0] for t in agent.trees) > 2 * len(agent.actions) + 1


def test_more_time_buys_more_simulations(boxing):
    from arcade_lab.agents.search import UCTAgent

    agent = UCTAgent(boxing, seed=0, simulations=50, depth_frames=60, reuse=False)
    _timed(agent, 0.04)
    short = agent.last_sims
    _timed(agent, 0.4)
    assert agent.last_sims > 2 * short >= 2


def test_a_deadline_already_past_still_runs_one_simulation_per_tree(boxing):
    from arcade_lab.agents.search import UCTAgent

    agent = UCTAgent(boxing, seed=0, simulations=50, depth_frames=60, workers=2, reuse=False)
    agent.decide(deadline=time.perf_counter() - 1.0)
    assert agent.last_sims == 2


def test_the_deadline_is_for_one_decision_and_exact_budgets_stay_reproducible(boxing):
    from arcade_lab.agents.base import Observation
    from arcade_lab.agents.search import UCTAgent

    obs = Observation(screen=boxing.screen(), ram=boxing.ram(), lives=0, frame=0, terminal=False)
    agent = UCTAgent(boxing, seed=5, simulations=12, depth_frames=40, workers=2)
    agent.next_deadline = time.perf_counter() + 0.25
    agent.begin_episode(obs)
    assert agent.last_sims > 12 and agent.next_deadline is None
    # the decision after it, and a fresh agent: the exact budget, the same tree for the same seed
    exact = UCTAgent(boxing, seed=5, simulations=12, depth_frames=40, workers=2)
    a = exact.begin_episode(obs)
    again = UCTAgent(boxing, seed=5, simulations=12, depth_frames=40, workers=2)
    assert again.begin_episode(obs) == a
    assert np.array_equal(exact.root_stats()["visits"], again.root_stats()["visits"])
    assert exact.last_sims == 12


def test_abort_ends_an_anytime_search(boxing):
    from arcade_lab.agents.search import UCTAgent

    agent = UCTAgent(boxing, seed=0, simulations=8, depth_frames=60, workers=2)
    timer = threading.Timer(0.2, agent.abort)
    t0 = time.perf_counter()
    timer.start()
    agent.decide(deadline=t0 + 30.0)
    timer.join()
    assert time.perf_counter() - t0 < 2.0
    agent.decide(deadline=time.perf_counter() + 0.05)  # the abort ended that decision only
    assert agent.last_sims >= 2


def test_bfs_sizes_its_search_to_the_deadline(boxing):
    from arcade_lab.agents.search import BFSAgent

    agent = BFSAgent(boxing, seed=0, frames=30_000)
    for _ in range(3):                                # the first decisions measure its emulation speed
        late, _ = _timed(agent, 0.15)
    assert -0.15 < late < 0.15, late
    assert 0 < agent.last_frames < 30_000
    frames = agent.last_frames
    agent.decide()                                    # no deadline: the full budget
    assert agent.last_frames > frames


def test_a_game_already_over_ends_the_search_at_once(ale_roms):
    """Once nothing is left to emulate every simulation is the same backup: the search stops instead of
    running tens of thousands of them until the deadline."""
    from arcade_lab import engine
    from arcade_lab.agents.search import UCTAgent

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    while not env.game_over():     # a two-minute bout
        env.act(0)
    agent = UCTAgent(env, seed=0, simulations=50, depth_frames=60, workers=2)
    t0 = time.perf_counter()
    agent.decide(deadline=t0 + 0.5)
    assert agent.last_sims == 2 and time.perf_counter() - t0 < 0.25
