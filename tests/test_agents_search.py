"""UCT and BFS over the real emulator: env left intact, BFS values equal a brute-force search through the
public clone/restore API, UCT plays better than Random and is deterministic for a seed."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.agents.base import RunConfig, Runner


@pytest.fixture(scope="module")
def boxing(ale_roms):
    from arcade_lab import engine

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=18_000,
                     seed=0)
    for _ in range(30):
        env.act(0)
    return env


def _snapshot(env):
    return env.console.s.copy(), env.rng.copy(), env.console.fb.copy(), env.screen().copy()


def test_search_leaves_env_intact(boxing):
    from arcade_lab.agents.search import BFSAgent, UCTAgent

    before = _snapshot(boxing)
    for agent in (UCTAgent(boxing, seed=0, simulations=20, depth_frames=50), BFSAgent(boxing, seed=0, frames=600)):
        agent.decide()
        after = _snapshot(boxing)
        for x, y in zip(before, after):
            assert np.array_equal(x, y), agent.name


def _brute(env, acts, depth, gamma):
    """max over action sequences of discounted reward, via env.clone_state / restore_state."""
    if depth == 0 or env.game_over():
        return 0.0
    st = env.clone_state(include_rng=True)
    best = -np.inf
    for a in acts:
        env.restore_state(st)
        r = env.act(a)
        best = max(best, r + gamma * _brute(env, acts, depth - 1, gamma))
    env.restore_state(st)
    return best


def test_bfs_values_match_brute_force(boxing):
    from arcade_lab.agents.search import BFSAgent

    acts = boxing.action_set()
    na = len(acts)
    # budget for exactly two full levels; duplicate pruning only removes equal-RAM siblings, so the
    # backed-up root values must equal the exhaustive two-step maximum
    probe = BFSAgent(boxing, seed=0, frames=5 * na)
    probe.decide()
    k = len(probe._root_children())
    agent = BFSAgent(boxing, seed=0, frames=5 * (na + k * na))
    agent.decide()
    stats = agent.root_stats()
    st = boxing.clone_state(include_rng=True)
    for i, a in enumerate(acts):
        boxing.restore_state(st)
        r = boxing.act(a)
        ref = r + agent.gamma * _brute(boxing, acts, 1, agent.gamma)
        boxing.restore_state(st)
        assert stats["value"][i] == pytest.approx(ref), (i, a)


def test_uct_finds_rewarding_first_action(ale_roms):
    """At states where the first action matters within two steps (some score at once, others cannot),
    UCT's chosen action is one whose exhaustive two-step value is the best."""
    from arcade_lab import engine
    from arcade_lab.agents.search import UCTAgent

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    acts = env.action_set()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        env.act(int(acts[rng.integers(len(acts))]))
        st = env.clone_state(include_rng=True)
        vals = []
        for a in acts:
            env.restore_state(st)
            r = env.act(a)
            vals.append(r + 0.999 * _brute(env, acts, 1, 0.999))
        env.restore_state(st)
        vals = np.array(vals)
        if vals.max() <= 0 or vals.max() == vals.min():
            continue
        agent = UCTAgent(env, seed=0, simulations=300, depth_frames=10)
        a = agent.decide()
        assert vals[acts.index(a)] == vals.max(), (vals, a)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def _play(agent_spec, seed, frames=600, **params):
    from arcade_lab import engine
    from arcade_lab.agents import make_agent

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=frames,
                     seed=seed)
    agent = make_agent(agent_spec, env, seed=seed, **params)
    run = Runner(RunConfig(game="boxing", protocol="ale2013", frameskip=5, max_frames=frames, seed=seed), env)
    return next(run.episodes(agent, 1))


def test_uct_beats_random_and_is_deterministic():
    uct = _play("uct", 0, simulations=16, depth_frames=60)
    uct2 = _play("uct", 0, simulations=16, depth_frames=60)
    rnd = [_play("random", s).score for s in range(2)]
    assert np.array_equal(uct.actions, uct2.actions) and uct.score == uct2.score
    assert uct.score > max(rnd), (uct.score, rnd)
    assert uct.frames == 600 and uct.steps == 120


def test_root_parallel_uct_is_independent_trees_summed(boxing):
    """With two workers each tree is exactly the sequential search of its share (threads never perturb a
    tree: worker 0 reproduces a one-worker agent given that share), root statistics are the trees' sums,
    and the whole decision is reproducible for a seed."""
    from arcade_lab.agents.search import C_NODES, N_ACTION, N_COUNT, N_FIRST, N_VISITS, UCTAgent

    par = UCTAgent(boxing, seed=3, simulations=41, depth_frames=40, workers=2)
    a = par.decide()
    assert par._shares == [21, 20] and par.last_sims == 41
    seq = UCTAgent(boxing, seed=3, simulations=21, depth_frames=40)
    seq.decide()
    n = int(seq.ctr[C_NODES])
    assert np.array_equal(par.trees[0].nodes[:n], seq.nodes[:n])
    assert np.array_equal(par.trees[0].vals[:n], seq.vals[:n])
    # the second tree is seeded differently: a different tree over the same root children
    t1 = par.trees[1]
    assert not np.array_equal(t1.nodes[:n], seq.nodes[:n])
    stats = par.root_stats()
    for c in range(int(seq.nodes[0, N_FIRST]), int(seq.nodes[0, N_FIRST] + seq.nodes[0, N_COUNT])):
        i = int(seq.nodes[c, N_ACTION])
        assert stats["visits"][i] == seq.nodes[c, N_VISITS] + t1.nodes[t1.child_for(i), N_VISITS]
    assert stats["visits"][stats["same_as"] == np.arange(len(stats["visits"]))].sum() == 41
    assert stats["visits"][boxing.action_set().index(a)] == stats["visits"].max()
    again = UCTAgent(boxing, seed=3, simulations=41, depth_frames=40, workers=2)
    assert again.decide() == a and np.array_equal(again.root_stats()["visits"], stats["visits"])


def test_root_parallel_trees_write_no_shared_cache_line(boxing):
    """Each tree's small scratch (the state it emulates, its RAM rows, its counters) is written on every
    emulated step by its own thread; no two of them, nor the planner's spare state, may come within a
    cache line of each other (heap neighbours would make the threads pass lines back and forth)."""
    from arcade_lab.agents.search import UCTAgent

    agent = UCTAgent(boxing, seed=0, simulations=12, depth_frames=10, workers=3)
    agent.decide()
    spans = [(a.__array_interface__["data"][0], a.nbytes) for t in agent.trees for a in (t.work, t.rams, t.ctr)]
    spans.append((agent.tmp.__array_interface__["data"][0], agent.tmp.nbytes))
    spans.sort()
    for (a, n), (b, _) in zip(spans, spans[1:]):
        assert b - (a + n) >= 64, (a, n, b)


def test_root_parallel_uct_reuses_subtrees_and_aborts(boxing):
    import threading

    from arcade_lab import engine
    from arcade_lab.agents.search import UCTAgent

    env = engine.Env("boxing", frameskip=5, repeat_action_probability=0.0, seed=0)
    agent = UCTAgent(env, seed=0, simulations=40, depth_frames=30, workers=2)
    env.act(agent.decide())
    agent.decide()
    assert agent.reused == 1 and agent.last_sims < 40  # both trees kept the chosen child's visits
    big = UCTAgent(env, seed=0, simulations=100_000, depth_frames=300, workers=2, max_nodes=4096)
    timer = threading.Timer(0.5, big.abort)
    timer.start()
    big.decide()  # returns soon after the abort instead of running 100 000 simulations
    timer.join()
    assert 0 < big.last_sims < 100_000


def test_abort_before_a_decision_ends_that_one_only(boxing):
    """The app detaches an agent possibly just as a decision starts: an abort that comes first ends the
    next decision at once, and only that one."""
    from arcade_lab.agents.search import C_NODES, BFSAgent, UCTAgent

    uct = UCTAgent(boxing, seed=0, simulations=8, depth_frames=10, workers=2)
    uct.abort()
    uct.decide()
    assert uct.last_sims == 0
    uct.decide()
    assert uct.last_sims == 8
    bfs = BFSAgent(boxing, seed=0, frames=500)
    bfs.abort()
    bfs.decide()
    assert bfs.ctr[C_NODES] == 1  # nothing expanded
    bfs.decide()
    assert bfs.ctr[C_NODES] > 1
