"""Recorded human sessions, headless: episodes reach the store with scores replay confirms; a process
killed mid-episode loses only that episode."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from arcade_lab.agents.evaluation.presets import PRESETS
from arcade_lab.agents.evaluation.replay import replay_episode, replay_main
from arcade_lab.agents.evaluation.store import Store
from arcade_lab.app.recording import RecordedSession
from arcade_lab.app.session import InputFrame, Rewind

ROOT = Path(__file__).resolve().parent.parent


def _inputs(i):
    return InputFrame(fire=i % 6 < 2, down=(i // 40) % 3 == 0, right=(i // 25) % 2 == 0, left=(i // 25) % 2 == 1)


def test_ale2013_session_on_seaquest_records_verifiable_episodes(tmp_path):
    st = Store(tmp_path / "s.db")
    preset = replace(PRESETS["ale2013"], max_frames=400)       # tiny cap: five quick episodes
    sess = RecordedSession("seaquest", preset, st, "ann", seed=11)
    i = 0
    while not sess.complete:
        sess.step(_inputs(i))
        i += 1
    assert len(sess.scores) == 5 and "mean" in sess.summary()
    eps = st.episodes(session_id=sess.session_id, full=True)
    assert [e.score for e in eps] == sess.scores and all(e.frames == 400 for e in eps)
    assert all(e.protocol == "ale2013" and e.player == "human:ann" for e in eps)
    assert st.session(sess.session_id)["status"] == "finished"
    assert replay_main([f"session:{sess.session_id}", "--verify", "--db", str(tmp_path / "s.db")]) == 0
    assert all(e.verified for e in st.episodes(session_id=sess.session_id))


def test_paddles_and_sticky_actions_replay_exactly(tmp_path):
    st = Store(tmp_path / "s.db")
    preset = replace(PRESETS["free"], max_frames=300, repeat_action_probability=0.25, episodes=2)
    sess = RecordedSession("ms_pacman", preset, st, "bo", seed=2)
    assert not sess.uses_paddles
    sess2 = RecordedSession("kaboom", preset, st, "bo", seed=2)
    for s in (sess, sess2):
        i = 0
        while not s.complete:
            s.step(InputFrame(fire=i % 7 == 0, paddle=(np.sin(i / 30) + 1) / 2 if s.uses_paddles else None,
                              right=(i // 20) % 2 == 0))
            i += 1
    for e in st.episodes(full=True):
        v = replay_episode(e)
        assert v.ok, v.problems
    assert st.episodes(game="kaboom", full=True)[0].paddles is not None


def test_free_play_rewind_branches_into_a_new_replayable_episode(tmp_path):
    st = Store(tmp_path / "s.db")
    sess = RecordedSession("pong", PRESETS["free"], st, "cy", seed=4)
    ring = Rewind()
    for i in range(300):
        sess.step(_inputs(i))
        ring.push(sess.snapshot())
    for _ in range(100):
        sess.restore(ring.pop(), branch=False)
    sess.branch()
    for i in range(200):
        sess.step(_inputs(i))
    sess.close()
    eps = st.episodes(session_id=sess.session_id, full=True)
    assert [e.steps for e in eps] == [300, 200] and eps[1].extra.get("branched")
    assert all(replay_episode(e).ok for e in eps)


def test_scored_session_refuses_state_loads(tmp_path):
    import pytest

    sess = RecordedSession("pong", replace(PRESETS["dqn2015"], max_frames=100), Store(tmp_path / "s.db"), "dee")
    snap = sess.snapshot()
    sess.step(InputFrame())
    with pytest.raises(PermissionError):
        sess.restore(snap)
    sess.set_difficulty_bit(0, True)
    assert sess.difficulty == 0 and sess.frame_number == snap.frame + 1


def test_killed_mid_episode_loses_only_that_episode(tmp_path):
    db = tmp_path / "s.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, str(ROOT / "tests" / "helpers_record.py"), str(db), "pong", "300"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("MID"), line
        os.kill(p.pid, signal.SIGKILL)
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
        p.stdout.close()
        p.stdin.close()
    st = Store(db)
    assert st.check() == []
    lost = st.recover()
    assert len(lost) == 1 and st.episode(lost[0]).status == "abandoned"
    eps = st.episodes(full=True)
    assert len(eps) == 2 and all(e.frames == 300 for e in eps)
    assert all(replay_episode(e).ok for e in eps)
