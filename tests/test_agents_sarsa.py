"""SARSA(λ): the compiled update equals a naive one step by step; the agent learns a tiny corridor;
weights files round-trip with their header."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from naive_sarsa import NaiveSarsa  # noqa: E402

from arcade_lab.agents.base import Observation  # noqa: E402
from arcade_lab.agents.features import FeatureSet  # noqa: E402
from arcade_lab.agents.sarsa import SarsaAgent, SarsaConfig, SparseTraces, sarsa_update  # noqa: E402


def test_kernel_matches_naive_step_by_step():
    rng = np.random.default_rng(0)
    n_act, n_feat = 3, 40
    alpha, gamma, lam, thr = 0.05, 0.99, 0.8, 0.01
    naive = NaiveSarsa(n_act, n_feat, alpha, gamma, lam, thr)
    w = np.zeros((n_act, n_feat), np.float32)
    tr = SparseTraces(capacity=4)  # small on purpose: growth must keep the traces intact
    feats = np.unique(rng.integers(n_feat, size=6)).astype(np.int64)
    a = int(rng.integers(n_act))
    for t in range(300):
        nxt = np.unique(rng.integers(n_feat, size=rng.integers(1, 9))).astype(np.int64)
        a2 = int(rng.integers(n_act))
        r = float(rng.normal())
        terminal = t % 37 == 36
        qn_naive = 0.0 if terminal else naive.q(nxt, a2)
        qn = 0.0 if terminal else float(w[a2, nxt].astype(np.float64).sum())
        assert qn == pytest.approx(qn_naive, abs=1e-4)
        tr.reserve(len(feats))
        d = sarsa_update(w, tr.keys, tr.vals, tr.slots, tr.table, tr.ctr, feats, a, r, qn, alpha, gamma, lam, thr)
        d2 = naive.update(feats, a, r, qn_naive)
        assert d == pytest.approx(d2, abs=1e-4)
        np.testing.assert_allclose(w, naive.w, atol=1e-4)
        got = tr.as_dict(n_feat)
        assert got.keys() == naive.e.keys()
        for k in got:
            assert got[k] == pytest.approx(naive.e[k], rel=1e-9)
        if terminal:
            tr.clear()
            naive.e = {}
        feats, a = nxt, a2


class OneHot(FeatureSet):
    name = "onehot"

    def __init__(self, n):
        self.n_features = n

    def active(self, obs):
        return np.array([int(obs.ram[0])], np.int64)


def run_corridor(agent, episodes, length=6, cap=60):
    """Walk from cell 0; action 1 moves right, action 0 left; +1 on reaching the last cell."""
    steps = []
    for _ in range(episodes):
        pos, t = 0, 0
        ram = np.zeros(128, np.uint8)
        a = agent.begin_episode(Observation(screen=None, ram=ram, lives=0, frame=0))
        while True:
            pos = min(length - 1, pos + 1) if a == 1 else max(0, pos - 1)
            t += 1
            if pos == length - 1:
                agent.end_episode(1.0)
                break
            if t >= cap:
                agent.end_episode(0.0)
                break
            ram[0] = pos
            a = agent.step(0.0, Observation(screen=None, ram=ram, lives=0, frame=t))
        steps.append(t)
    return steps


def test_agent_learns_corridor():
    agent = SarsaAgent(OneHot(6), SarsaConfig(alpha=0.5, lam=0.9, epsilon=0.05), seed=1)
    agent.actions = [0, 1]
    steps = run_corridor(agent, 150)
    assert np.mean(steps[-30:]) < 7.5           # optimal is 5 steps; ε = 0.05 adds a little
    for s in range(5):                           # greedy action is "right" everywhere
        q = agent.w[:, s]
        assert q[1] > q[0], (s, q)
    agent.learning = False
    w = agent.w.copy()
    run_corridor(agent, 5)
    assert np.array_equal(w, agent.w)            # evaluation leaves the weights alone
    assert agent.q_values().shape == (2,)


def test_weights_round_trip(tmp_path):
    agent = SarsaAgent(OneHot(6), seed=0, game="corridor")
    agent.actions = [0, 1]
    run_corridor(agent, 20)
    p = tmp_path / "w.npz"
    agent.save(p)
    other = SarsaAgent(OneHot(6), seed=0, game="corridor")
    other.load(p)
    assert np.array_equal(other.w, agent.w) and other.actions == [0, 1]
    wrong = SarsaAgent(OneHot(6), seed=0, game="pong")
    with pytest.raises(ValueError, match="corridor"):
        wrong.load(p)


def test_lsh_weights_carry_their_probes(tmp_path):
    from arcade_lab.agents.features.lsh import LshFeatures

    rng = np.random.default_rng(0)
    obs = Observation(screen=(rng.integers(0, 128, (210, 160)) * 2).astype(np.uint8), ram=np.zeros(128, np.uint8),
                      lives=0, frame=0)
    a = SarsaAgent(LshFeatures(seed=1, n_probes=50, probe_bits=100), seed=0)
    a.actions = [0, 1, 2]
    a.begin_episode(obs)
    a.step(1.0, obs)
    a.end_episode(1.0)
    a.save(tmp_path / "lsh.npz")
    b = SarsaAgent(LshFeatures(seed=2, n_probes=50, probe_bits=100), seed=0)
    b.load(tmp_path / "lsh.npz")
    assert np.array_equal(b.features.active(obs), a.features.active(obs))
    b.begin_episode(obs)
    np.testing.assert_allclose(b.q_values(), a.q_values() * 0 + [float(a.w[i, a.features.active(obs)].sum())
                                                                for i in range(3)])


def test_weights_carry_background_and_disco_classes(tmp_path):
    """A Basic/BASS/DISCO agent's background (and DISCO's classes) travel in its weights file through the
    feature set's save_arrays/load_arrays; arrays that do not fit are refused by name."""
    from arcade_lab.agents.features.bass import BassFeatures
    from arcade_lab.agents.features.disco import DiscoFeatures

    rng = np.random.default_rng(0)
    bg = (rng.integers(0, 128, (210, 160)) * 2).astype(np.uint8)
    classes = np.array([[14, 8, 10], [68, 4, 4]], np.int64)
    for make in (lambda b: BassFeatures(b), lambda b: DiscoFeatures(b, classes if b is bg else classes[:1])):
        a = SarsaAgent(make(bg), seed=0)
        a.actions = [0, 1]
        a._ensure_weights()
        a.w[:] = rng.normal(size=a.w.shape)
        a.save(tmp_path / "w.npz")
        b = SarsaAgent(make(np.zeros((210, 160), np.uint8)), seed=0)
        b.load(tmp_path / "w.npz")
        assert np.array_equal(b.features.background, bg) and np.array_equal(b.w, a.w)
        if isinstance(a.features, DiscoFeatures):
            assert np.array_equal(b.features.classes, classes) and b.features.n_features == a.features.n_features
        with np.load(tmp_path / "w.npz") as z:
            arrays = {k: z[k] for k in z.files}
        arrays["background"] = np.zeros((210, 7), np.uint8)
        np.savez(tmp_path / "bad.npz", **arrays)
        c = SarsaAgent(make(np.zeros((210, 160), np.uint8)), seed=0)
        with pytest.raises(ValueError, match="background of shape"):
            c.load(tmp_path / "bad.npz")
        assert not c.features.background.any()
