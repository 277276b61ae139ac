"""Agents' per-decision thoughts kept with their episodes: recorded by the Runner, `arcade-lab run --store`
and `arcade-lab eval`, stored and loaded intact, never changing the actions; an older database migrates
without loss; a replay plays an agent's episode one emulated frame per displayed frame and follows its
thoughts decision by decision."""
from __future__ import annotations

import io
import sqlite3

import numpy as np
import pytest

from arcade_lab.agents import make_agent
from arcade_lab.agents.base import RunConfig, Runner
from arcade_lab.agents.evaluation import protocols as P
from arcade_lab.agents.evaluation import runner as R
from arcade_lab.agents.evaluation.replay import replay_episode
from arcade_lab.agents.evaluation.store import MIGRATIONS, Store, StoreError
from arcade_lab.agents.thought_log import ThoughtLog, ThoughtLogError
from arcade_lab.engine.env import Env

FRAMES = 300


class Witness:
    """Passes decisions through to ``agent`` and copies what its thoughts() said after each one, so the
    test compares the stored log with what the agent itself showed."""

    def __init__(self, agent):
        self.agent, self.seen = agent, []
        self.name = agent.name

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def _keep(self, a):
        t = self.agent.thoughts()
        self.seen.append((a, None if t is None else (t.kind, list(t.actions), np.array(t.value),
                                                       None if t.visits is None else np.array(t.visits))))
        return a

    def begin_episode(self, obs):
        return self._keep(self.agent.begin_episode(obs))

    def step(self, reward, obs):
        return self._keep(self.agent.step(reward, obs))


def _episode(spec: str, record: bool, witness: bool = False, **params):
    env = Env("pong", frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=FRAMES, seed=3)
    agent = make_agent(spec, env, seed=3, **params)
    if witness:
        agent = Witness(agent)
    cfg = RunConfig(game="pong", frameskip=5, max_frames=FRAMES, seed=3, record_thoughts=record)
    rec = next(Runner(cfg, env).episodes(agent, 1))
    return rec, agent


@pytest.fixture(scope="module")
def uct():
    """A real UCT episode at a tiny budget (4 simulations of 20 frames a decision), thoughts recorded."""
    return _episode("uct", True, witness=True, simulations=4, depth_frames=20)


def test_uct_thoughts_go_through_the_store_intact(uct, tmp_path):
    rec, agent = uct
    assert rec.steps == len(agent.seen) == FRAMES // 5
    with Store(tmp_path / "s.db") as st:
        eid = st.add_episode(rec)
        back = st.episode(eid)
        assert st.episodes()[0].thoughts is None   # listings do not load the blob
    log = ThoughtLog.from_bytes(back.thoughts)
    assert log.kind == "plan" and len(log) == rec.steps
    for i, (chosen, (kind, actions, value, visits)) in enumerate(agent.seen):
        d = log.decision(i)
        assert kind == "plan" and d["actions"] == actions and d["chosen"] == chosen == back.actions[i]
        assert np.array_equal(d["visits"], visits)
        assert np.allclose(d["value"], value.astype(np.float32), equal_nan=True)
        assert d["seconds"] > 0 and d["decision"] == i + 1
    assert sum(int(np.sum(log.decision(i)["visits"])) for i in range(len(log))) > 0


def test_sarsa_q_values_go_through_the_store_intact(tmp_path):
    rec, agent = _episode("sarsa:ram", True, witness=True)
    with Store(tmp_path / "s.db") as st:
        log = ThoughtLog.from_bytes(st.episode(st.add_episode(rec)).thoughts)
    assert log.kind == "q" and len(log) == rec.steps == len(agent.seen)
    qs = np.array([s[1][2] for s in agent.seen], np.float32)
    assert np.array_equal(np.array([log.decision(i)["q"] for i in range(len(log))], np.float32), qs)
    assert "visits" not in log.decision(0)


def test_keeping_thoughts_does_not_change_the_actions(uct):
    rec, _ = uct
    plain, _ = _episode("uct", False, simulations=4, depth_frames=20)
    assert plain.thoughts is None
    assert np.array_equal(plain.actions, rec.actions) and plain.score == rec.score
    sarsa_on, _ = _episode("sarsa:ram", True)
    sarsa_off, _ = _episode("sarsa:ram", False)
    assert np.array_equal(sarsa_on.actions, sarsa_off.actions) and sarsa_on.score == sarsa_off.score


def test_agents_without_thoughts_keep_none():
    rec, _ = _episode("random", True)
    assert rec.thoughts is None


def test_a_damaged_log_is_refused_with_a_message(uct):
    blob = uct[0].thoughts
    for bad, says in ((blob[:5], "cut short"), (b"XXXX" + blob[4:], "not an Arcade Lab"),
                      (blob[:-10], "damaged"), (blob[:4] + bytes([9]) + blob[5:], "update")):
        with pytest.raises(ThoughtLogError, match=says):
            ThoughtLog.from_bytes(bad)


def test_a_version_1_database_migrates_and_keeps_its_episodes(uct, tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0] + ";\nPRAGMA user_version = 1;")
    db.close()
    old = uct[0]
    # a database written before thoughts existed: its episode has every column but that one
    db = sqlite3.connect(path)
    db.execute("INSERT INTO episodes (status, player, game, md5, mode, difficulty, protocol, seed, score, frames, "
               "steps, lives_lost, wall_time, ended_by, frameskip, repeat_action_probability, max_frames, "
               "engine_version, created_at, actions, start_state) VALUES ('finished', 'agent:uct', 'pong', ?, 0, "
               "0, 'custom', 3, ?, ?, ?, 0, 1.0, 'truncated', 5, 0.0, ?, 'x', 0.0, ?, ?)",
               (old.md5, old.score, old.frames, old.steps, FRAMES, old.actions.tobytes(), old.start_state))
    db.commit()
    db.close()
    with Store(path) as st:
        [e] = st.episodes(full=True)
        assert e.thoughts is None and np.array_equal(e.actions, old.actions) and e.score == old.score
        assert st._db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert st.agent_episodes()[0]["thoughts"] == 0
        st.add_episode(old)
        assert [bool(a["thoughts"]) for a in st.agent_episodes()] == [True, False]
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer Arcade Lab"):
        Store(path)


def test_run_store_keeps_thoughts_unless_told_not_to(tmp_path, capsys):
    from arcade_lab.agents.cli import run_main

    db = tmp_path / "s.db"
    common = ["uct", "pong", "--budget", "4", "--depth", "20", "--frames-cap", "100", "--store", str(db)]
    assert run_main(common) == 0
    assert run_main(common + ["--no-thoughts"]) == 0
    with Store(db) as st:
        eps = st.episodes(full=True)
    assert [e.thoughts is not None for e in eps] == [True, False]
    assert len(ThoughtLog.from_bytes(eps[0].thoughts)) == eps[0].steps == 20


def test_eval_keeps_thoughts_of_the_agents_that_show_them(tmp_path):
    tiny = P.Protocol(name="tiny", games=("freeway",), frameskip=5, max_frames=150, full_action_space=True,
                      trials=1, episodes=2)
    with Store(tmp_path / "s.db") as st:
        res = R.evaluate(st, tiny, ["sarsa:ram", "random"], ["freeway"], run_name="t", workers=0,
                         progress=io.StringIO())
        eps = st.episodes(run_id=res.run_id, full=True)
        by = {e.player: e for e in eps if e.extra["episode"] == 0}
        off = R.evaluate(st, tiny, ["sarsa:ram"], ["freeway"], run_name="off", workers=0, progress=io.StringIO(),
                         thoughts=False)
        quiet = st.episodes(run_id=off.run_id, full=True)[0]
    assert by["agent:random"].thoughts is None and quiet.thoughts is None
    log = ThoughtLog.from_bytes(by["agent:sarsa:ram"].thoughts)
    assert log.kind == "q" and len(log) == by["agent:sarsa:ram"].steps == 30
    assert np.array_equal(log.arrays()["chosen"], by["agent:sarsa:ram"].actions)
    assert np.array_equal(quiet.actions, by["agent:sarsa:ram"].actions)
    # every episode of a task starts from its own reset, so each one replays (not only the first)
    assert len(eps) == 4 and all(replay_episode(e).ok for e in eps)


def test_a_replay_shows_each_frame_and_follows_the_thoughts(uct):
    from arcade_lab.app.recording import ReplaySession
    from arcade_lab.app.session import InputFrame

    rec = uct[0]
    decision_level = {}
    v = replay_episode(rec, on_step=lambda drv, env, a: decision_level.update(ram=env.ram().copy()))
    assert v.ok, v.problems
    sess = ReplaySession(rec)
    log = ThoughtLog.from_bytes(rec.thoughts)
    assert sess.current_thought() is None     # nothing decided before the first frame
    shown, calls = [], 0
    while not sess.game_over:
        sess.step(InputFrame())
        calls += 1
        t = sess.current_thought()
        shown.append(t["decision"])
        ref = log.decision(t["decision"] - 1)
        assert np.array_equal(t["visits"], ref["visits"]) and t["chosen"] == ref["chosen"]
    # one emulated frame per displayed frame (60 Hz real time), each decision shown for its 5 frames
    assert calls == rec.frames == FRAMES and shown == [1 + k // 5 for k in range(FRAMES)]
    assert sess.score == rec.score and sess.driver.frames == rec.frames
    assert np.array_equal(sess.env.ram(), decision_level["ram"])
    sess.seek(7)   # seeking lands on whole decisions and shows the one just played
    assert sess.position == 7 and sess.current_thought()["decision"] == 7


def test_a_replay_with_damaged_thoughts_plays_without_them(uct):
    from dataclasses import replace

    from arcade_lab.app.recording import ReplaySession

    sess = ReplaySession(replace(uct[0], thoughts=b"ALTH\x01garbage"))
    assert sess.thoughts is None and sess.current_thought() is None
    assert "replaying without them" in sess.events[-1]


def test_decisions_spanning_several_trace_entries_are_found_by_position():
    """The app's own agent episodes record one action per frame and decide every few frames: ``at`` says
    where each decision starts in the trace, and survives the store's encoding."""
    from arcade_lab.agents.base import Thoughts

    log = ThoughtLog()
    for k in range(4):
        log.add(Thoughts("q", [0, 1, 3], np.array([k, -k, 0.5])), chosen=3, seconds=0.01, at=5 * k)
    back = ThoughtLog.from_bytes(log.to_bytes())
    assert [back.index_at(s) for s in (-1, 0, 4, 5, 19, 30)] == [-1, 0, 0, 1, 3, 3]
    assert np.array_equal(back.decision(2)["q"], [2, -2, 0.5]) and back.decision(2)["chosen"] == 3
