"""Replay verification: exact with and without sticky actions across cartridge schemes; tampering fails;
exported JSON re-verifies; CSV export has the per-frame columns."""
from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np
import pytest

from arcade_lab.agents.evaluation import export
from arcade_lab.agents.evaluation.presets import PRESETS, EpisodeDriver, make_env, project_action
from arcade_lab.agents.evaluation.replay import replay_episode, replay_main
from arcade_lab.agents.evaluation.store import Store


def _play(game, *, sticky=0.0, max_frames=500, horizon=0, seed=5, act_seed=1):
    """A scripted 'human': random joystick held for a few frames, like a person's hands."""
    p = replace(PRESETS["ale2013"], max_frames=max_frames, horizon=horizon, repeat_action_probability=sticky)
    env = make_env(game, p, seed=seed)
    env.reset()
    drv = EpisodeDriver(env, p)
    drv.begin()
    rng = np.random.default_rng(act_seed)
    a = 0
    while not drv.done:
        if rng.random() < 0.15:
            a = int(rng.integers(18))
        drv.step(project_action(a, env.minimal_actions()), float(rng.uniform(0.2, 1.0)))
    return drv.record("human:test", seed=seed, uses_paddles=True), p


@pytest.mark.parametrize("game,sticky", [("pong", 0.0), ("seaquest", 0.25), ("ms_pacman", 0.0),
                                         ("road_runner", 0.25), ("montezuma_revenge", 0.0),
                                         ("robotank", 0.25)])
def test_replay_confirms_score_and_length(game, sticky, tmp_path):
    rec, p = _play(game, sticky=sticky)
    assert rec.ended_by == "truncated" and rec.frames == 500
    if game in ("pong", "ms_pacman"):
        assert rec.score != 0            # a trace that actually scores (pong: -2, ms_pacman: 70)
    st = Store(tmp_path / "s.db")
    sid = st.new_session("human:test", game, rec.md5, p.key, rec.mode, rec.difficulty, p.settings())
    eid = st.add_episode(rec, session_id=sid)
    assert replay_main([str(eid), "--verify", "--db", str(tmp_path / "s.db")]) == 0
    assert st.episode(eid).verified is True


def test_tampered_trace_or_score_fails(tmp_path, capsys):
    rec, p = _play("breakout", max_frames=800)
    db = str(tmp_path / "s.db")
    st = Store(db)
    sid = st.new_session("human:test", "breakout", rec.md5, p.key, 0, 0, p.settings())
    good = st.add_episode(rec, session_id=sid)
    acts = rec.actions.copy()
    # flip FIRE on a stretch of the trace: the ball is served at another time, the game differs
    acts[:200] = np.where(acts[:200] == 1, 0, 1)
    bad_trace = st.add_episode(replace(rec, actions=acts), session_id=sid)
    bad_score = st.add_episode(replace(rec, score=rec.score + 1), session_id=sid)
    bad_state = st.add_episode(replace(rec, start_state=rec.start_state[:-1] + b"\x00"), session_id=sid)
    assert replay_main([f"session:{sid}", "--verify", "--db", db]) == 1
    assert [st.episode(i).verified for i in (good, bad_trace, bad_score, bad_state)] == [True, False, False, False]
    out = capsys.readouterr().out
    assert "1/4 episodes confirmed" in out and "score: replay" in out and "corrupt" in out
    assert replay_main(["999", "--db", db]) == 2


def test_fixed_horizon_and_export_round_trip(tmp_path):
    rec, p = _play("freeway", max_frames=0, horizon=300, sticky=0.0)
    assert rec.frames == 300 and rec.ended_by == "truncated"
    p = replace(PRESETS["atari30s"], horizon=300)
    db = tmp_path / "s.db"
    st = Store(db)
    sid = st.new_session("human:test", "freeway", rec.md5, "atari30s", 0, 0, p.settings())
    st.add_episode(replace(rec, protocol="atari30s"), session_id=sid)
    files = export.write_session(st, sid, tmp_path / "out", csv_file=True, png=True)
    doc = json.loads(files[0].read_text())
    assert doc["summary"]["episodes"] == 1
    assert replay_main([str(files[0])]) == 0     # the file alone proves the score
    with open(files[1], newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == export.CSV_COLUMNS and len(rows) == rec.steps
    assert float(rows[-1]["score"]) == rec.score and int(rows[-1]["frame"]) == 300
    assert len(list(files[2].glob("*.png"))) == rec.steps


def test_start_state_settings_must_match_the_record():
    rec, _ = _play("pong", sticky=0.25, max_frames=300)
    v = replay_episode(replace(rec, repeat_action_probability=0.0))
    assert not v.ok and any("settings" in p for p in v.problems)


def test_project_action_onto_minimal_sets():
    pong = [0, 1, 3, 4, 11, 12]
    assert project_action(2, pong) == 0          # UP -> NOOP
    assert project_action(10, pong) == 1         # UPFIRE -> FIRE
    assert project_action(6, pong) == 3          # UPRIGHT -> RIGHT
    assert project_action(14, pong) == 11        # UPRIGHTFIRE -> RIGHTFIRE
