"""The episode store: round trips, resume bookkeeping, crash recovery, refusal of foreign/corrupt files."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from arcade_lab.agents.base import EpisodeRecord
from arcade_lab.agents.evaluation.store import SCHEMA_VERSION, Store, StoreError


def _rec(score=10.0, player="human:ann", **kw) -> EpisodeRecord:
    base = dict(player=player, game="pong", md5="ab" * 16, mode=0, difficulty=0, protocol="ale2013", seed=3,
                score=score, frames=1200, steps=240, lives_lost=0, wall_time=20.0, ended_by="game_over",
                frameskip=5, actions=np.arange(240, dtype=np.uint8) % 6, start_state=b"\x01\x02state",
                paddles=np.linspace(0, 1, 240, dtype=np.float32))
    base.update(kw)
    return EpisodeRecord(**base)


def test_episode_round_trip_keeps_traces_and_state(tmp_path):
    with Store(tmp_path / "s.db") as st:
        eid = st.add_episode(_rec(extra={"note": "x"}))
        back = st.episode(eid)
    assert back.score == 10.0 and back.frames == 1200 and back.status == "finished" and back.verified is None
    np.testing.assert_array_equal(back.actions, np.arange(240, dtype=np.uint8) % 6)
    np.testing.assert_allclose(back.paddles, np.linspace(0, 1, 240, dtype=np.float32))
    assert back.start_state == b"\x01\x02state" and back.extra == {"note": "x"}


def test_scores_by_player_exclude_mixed_and_unfinished(tmp_path):
    st = Store(tmp_path / "s.db")
    st.add_episode(_rec(1))
    st.add_episode(_rec(3))
    st.add_episode(_rec(5, player="agent:random"))
    st.add_episode(_rec(100, controllers='[[0, "human:ann"], [50, "agent:uct"]]'))
    st.start_episode(_rec(999))
    sc = st.scores("pong")
    assert sorted(sc) == ["agent:random", "human:ann"]
    np.testing.assert_array_equal(sc["human:ann"], [1, 3])
    assert [p["name"] for p in st.players()] == ["agent:random", "human:ann"]


def test_recording_row_is_completed_or_marked_abandoned(tmp_path):
    path = tmp_path / "s.db"
    st = Store(path)
    sid = st.new_session("human:bo", "pong", "ab" * 16, "ale2013", 0, 0, {"frameskip": 5})
    done = st.start_episode(_rec(0), session_id=sid)
    st.finish_episode(done, _rec(7))
    st.start_episode(_rec(0), session_id=sid)      # the process "dies" here
    st.close()
    st = Store(path)
    [lost] = st.recover()
    assert st.episode(lost).status == "abandoned"
    assert [e.score for e in st.episodes(session_id=sid)] == [7.0]
    assert st.session(sid)["settings"] == {"frameskip": 5}
    with pytest.raises(StoreError):
        st.finish_episode(lost, _rec(1))


def test_task_completion_is_atomic_and_resumable(tmp_path):
    st = Store(tmp_path / "s.db")
    run = st.create_run("r1", "ale2013", {"games": ["pong"]})
    assert st.create_run("r1", "ale2013") == run
    st.complete_task(run, "pong/random/0", [_rec(1, player="agent:random"), _rec(2, player="agent:random")])
    st.complete_task(run, "pong/const:0/0", error="ValueError: boom")
    assert st.done_tasks(run) == {"pong/random/0"}
    assert st.tasks(run)["pong/const:0/0"]["error"] == "ValueError: boom"
    st.complete_task(run, "pong/random/0", [_rec(4, player="agent:random")])   # a redo replaces, never doubles
    assert [e.score for e in st.episodes(run_id=run)] == [4.0]


def test_refuses_foreign_newer_and_corrupt_files_without_touching_them(tmp_path):
    foreign = tmp_path / "other.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not an Arcade Lab store"):
        Store(foreign)
    newer = tmp_path / "newer.db"
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(StoreError, match="newer"):
        Store(newer)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all" * 100)
    before = garbage.read_bytes()
    with pytest.raises(StoreError):
        Store(garbage)
    assert garbage.read_bytes() == before


def test_default_path_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path / "d"))
    st = Store()
    assert st.path == tmp_path / "d" / "arcade-lab.sqlite3" and st.check() == []
