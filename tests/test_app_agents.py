"""Agents in the app (pytest-qt, offscreen): attach every agent type, takeover records, live scores,
background training, race mode, clean shutdown. Budgets are tiny so every test runs in seconds."""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import threading
import time

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from arcade_lab.app.window import MainWindow  # noqa: E402

GAME = "freeway"


@pytest.fixture
def window(open_window, tmp_path, monkeypatch):
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path / "data"))
    win = open_window(GAME, timeout=180000, gamepads=False)
    win.agent_ui  # noqa: B018  (built just after the first frame; the tests use it at once)
    return win


def _attach(win, qtbot, kind, **values):
    ap = win.agent_ui.agents
    ap.configure(kind, **values)
    assert ap.attach()
    qtbot.waitUntil(lambda: ap.driver is not None and ap.driver.attached, timeout=120000)
    return ap


CASES = [
    ("UCT", {"sims": 4, "depth": 20, "threads": 2}, "plan"),
    ("BFS", {"frames": 200}, "plan"),
    ("SARSA(λ)", {"features": "basic", "samples": 200}, "q"),
    ("Random", {}, "none"),
    ("Const", {"action": 2}, "none"),
    ("Perturb", {"action": 2}, "none"),
    ("Brute", {"brute_epsilon": 0.01}, "q"),
]


@pytest.mark.parametrize("kind,values,thought", CASES, ids=[c[0] for c in CASES])
def test_attach_each_agent_type(window, qtbot, kind, values, thought):
    ap = _attach(window, qtbot, kind, **values)
    d = ap.driver
    f0 = window.worker.frames_emulated
    qtbot.waitUntil(lambda: d.decisions > 3 and window.worker.frames_emulated > f0 + 20, timeout=120000)
    t, _ = d.latest()
    assert t["kind"] == thought
    assert t["chosen"] in t["actions"]
    if kind == "UCT":
        assert np.nansum(t["visits"]) > 0
        assert d.agent.workers == min(2, os.cpu_count() or 1)  # the panel's "Search threads"
    if kind == "BFS":
        assert np.isfinite(t["value"]).any()
    if kind == "Const":
        assert set(d._trace[-10:]) == {2}
    qtbot.waitUntil(lambda: ap.thought.updates > 0, timeout=10000)  # the bar chart followed
    status = ap.status.text()  # the panel's live line, written with the chart
    assert status.startswith(f"{d.name} — agent in control"), status
    assert 0 < int(re.search(r"(\d+) decisions", status).group(1)) <= d.decisions
    ap.detach()
    assert ap.driver is None
    assert window.worker.input is window.input  # the human has the controls back
    assert d._after_frame not in window.worker.hooks


def test_overlay_shows_active_tiles(window, qtbot):
    ap = window.agent_ui.agents
    ap.overlay_box.setChecked(True)
    _attach(window, qtbot, "SARSA(λ)", features="bass", samples=200)
    qtbot.waitUntil(lambda: ap.overlay.data is not None and len(ap.overlay.data["tiles"]) > 0, timeout=60000)
    assert ap.overlay.isVisible()
    ap.overlay_box.setChecked(False)
    assert not ap.overlay.isVisible() and ap.driver.overlay is False


def test_blobprost_is_offered_with_its_own_parameters(window, qtbot):
    """Both feature boxes list Blob-PROST; choosing it sets its α, λ and ε (0.01), the agent gets γ 0.99,
    and the overlay draws its blobs."""
    tp = window.agent_ui.training
    assert "blobprost" in [tp.features.itemText(i) for i in range(tp.features.count())]
    ap = window.agent_ui.agents
    ap.configure("SARSA(λ)", features="blobprost")
    assert (ap.sarsa_alpha.value(), ap.sarsa_lam.value(), ap.sarsa_eps.value()) == (0.5, 0.9, 0.01)
    assert ap.spec()[0] == "sarsa:blobprost"
    ap.overlay_box.setChecked(True)
    _attach(window, qtbot, "SARSA(λ)")
    qtbot.waitUntil(lambda: ap.overlay.data is not None and ap.driver.decisions > 2, timeout=60000)
    assert ap.overlay.data["kind"] == "blobs" and len(ap.overlay.data["boxes"]) > 1
    cfg = ap.driver.agent.config
    assert (cfg.gamma, cfg.epsilon) == (0.99, 0.01) and ap.driver.agent.name == "sarsa:blobprost"
    assert ap.driver.agent.features.n_used > 0
    ap.overlay_box.setChecked(False)
    ap.detach()
    ap.configure("SARSA(λ)", features="ram")           # the 2013 sets get their ε back
    assert (ap.sarsa_alpha.value(), ap.sarsa_lam.value(), ap.sarsa_eps.value()) == (0.2, 0.5, 0.05)


def test_takeover_is_recorded_and_kept_out_of_scores(window, qtbot):
    from arcade_lab.agents.evaluation.store import Store

    window.set_speed(None)  # a Freeway episode is 8192 frames: run it unthrottled
    ap = _attach(window, qtbot, "Random", fresh=True)
    d = ap.driver
    act = window.agent_ui.takeover_action
    assert act.shortcut().toString() == "Tab"
    qtbot.waitUntil(lambda: d.episode_frames > 50, timeout=30000)
    act.trigger()                                  # human takes over
    assert not d.agent_in_control
    n = d.episode_frames
    qtbot.waitUntil(lambda: d.episode_frames > n + 50, timeout=30000)
    act.trigger()                                  # and gives back
    assert d.agent_in_control
    qtbot.waitUntil(lambda: d.episodes_done >= 1, timeout=120000)
    rec = d.records[0]
    segs = json.loads(rec.controllers)
    assert [p for _, p in segs] == ["agent:random", "human:player", "agent:random"]
    assert segs[0][0] == 0 and segs[1][0] > 50 and segs[2][0] > segs[1][0]
    assert rec.frames == len(rec.actions) and rec.ended_by == "game_over"
    st = Store()
    eps = st.episodes(game=GAME)
    assert len(eps) == 1 and eps[0].controllers
    assert st.scores(GAME) == {}                   # a mixed episode is nobody's pure score
    st.close()


def test_agent_episode_is_stored_and_score_panel_updates(window, qtbot):
    from arcade_lab.agents.base import EpisodeRecord
    from arcade_lab.agents.evaluation.store import Store

    sp = window.agent_ui.scores
    qtbot.waitUntil(lambda: sp.game == GAME, timeout=10000)
    before = sp.refreshes
    st = Store()
    for i, (p, s) in enumerate([("human:ann", 21), ("human:ann", 23), ("agent:uct", 30), ("agent:uct", 31)]):
        st.add_episode(EpisodeRecord(player=p, game=GAME, md5="x", mode=0, difficulty=0, protocol="free", seed=i,
                                     score=s, frames=100, steps=100, lives_lost=0, wall_time=1.0,
                                     ended_by="game_over"))
    st.close()
    qtbot.waitUntil(lambda: sp.refreshes > before and len(sp.data) == 2, timeout=10000)
    assert sorted(sp.data) == ["agent:uct", "human:ann"]
    assert list(sp.data["human:ann"]) == [21, 23]
    assert "agent:uct: n=2" in sp.summary.text()


def test_training_streams_points_and_stops_cleanly(window, qtbot):
    tp = window.agent_ui.training
    tp.configure(game=GAME, features="basic", max_frames=300, samples=200)
    assert tp.start()
    assert not tp.start()                          # one training at a time
    qtbot.waitUntil(lambda: len(tp.episodes) >= 2, timeout=180000)
    xs, ys = tp.curve.getData()
    assert len(xs) >= 2                            # the curve got the points
    proc = tp.proc.proc
    tp.stop()
    qtbot.waitUntil(lambda: tp.proc is None, timeout=60000)
    assert not proc.is_alive()
    assert tp.weights_path.is_file()
    assert "stopped" in tp.status.text()
    # attach the trained agent to the game in the view
    tp.attach_trained()
    ap = window.agent_ui.agents
    qtbot.waitUntil(lambda: ap.driver is not None and ap.driver.decisions > 2, timeout=60000)
    assert ap.driver.name == "agent:sarsa:basic"


def test_race_mode_runs_two_emulators(window, qtbot):
    rw = window.agent_ui.open_race(left="random", right="uct",
                                   params={"right": {"simulations": 4, "depth_frames": 20}})
    qtbot.addWidget(rw)
    a, b = rw.sides
    assert a.session is not b.session and a.worker is not b.worker
    qtbot.waitUntil(lambda: a.worker.frames_emulated > 20 and b.worker.frames_emulated > 20, timeout=60000)
    qtbot.waitUntil(lambda: a.view.frames_painted > 2 and b.view.frames_painted > 2, timeout=10000)
    assert b.driver.decisions > 0
    rw.close()
    assert not a.worker.isRunning() and not b.worker.isRunning()


def test_race_mode_human_side(window, qtbot):
    rw = window.agent_ui.open_race(left="human", right="random")   # (the setup dialog: test_journeys.py)
    qtbot.addWidget(rw)
    qtbot.waitUntil(lambda: all(s.worker.frames_emulated > 10 for s in rw.sides), timeout=60000)
    assert rw.sides[0].driver is None and rw.sides[0].worker.input is window.input
    rw.close()


def test_bad_input_never_crashes(window, qtbot, tmp_path):
    ap = window.agent_ui.agents
    ap.configure("SARSA(λ)", features="basic", weights=str(tmp_path / "missing.npz"))
    assert not ap.attach() and "not found" in ap.status.text()
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a weights file")
    ap.configure("SARSA(λ)", features="basic", weights=str(bad), samples=200)
    assert ap.attach()
    qtbot.waitUntil(lambda: ap._pending is None, timeout=60000)
    assert ap.driver is None and "cannot build" in ap.status.text()
    tp = window.agent_ui.training
    assert not tp.start(resume=True)             # nothing to resume
    assert window.worker.isRunning()


def test_closing_while_agent_runs_and_trains_leaves_nothing_behind(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path / "data"))
    QApplication.instance().setProperty("quiet_errors", True)
    threads0 = set(threading.enumerate())
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(audio=False, settings=settings, thumbnails=False, gamepads=False)
    qtbot.addWidget(win)
    win.open_game(GAME)
    win.show()
    qtbot.waitUntil(lambda: win.session is not None, timeout=60000)
    ap = _attach(win, qtbot, "UCT", realtime=False)  # the paper's budget: a decision takes seconds
    tp = win.agent_ui.training
    tp.configure(game=GAME, features="basic", max_frames=300, samples=200)
    assert tp.start()
    proc = tp.proc.proc
    rw = win.agent_ui.open_race(left="random", right="random")
    qtbot.waitUntil(lambda: proc.is_alive() and ap.driver._deciding, timeout=60000)
    t0 = time.perf_counter()
    win.close()                                    # mid-decision: the search is cut short
    assert time.perf_counter() - t0 < 8.0
    assert not proc.is_alive()
    assert not mp.active_children()
    assert not win.worker.isRunning()
    assert all(not s.worker.isRunning() for s in rw.sides)
    qtbot.waitUntil(lambda: not [t for t in threading.enumerate() if t not in threads0 and t.is_alive()
                                 and not t.daemon], timeout=10000)


def test_slow_planner_is_watched_at_real_time_with_its_lag(window, qtbot):
    window.set_speed(1.0)
    ap = _attach(window, qtbot, "UCT", sims=60, depth=150, realtime=False)  # far slower than 5 frames
    d = ap.driver
    qtbot.waitUntil(lambda: d.decisions >= 4, timeout=120000)
    qtbot.waitUntil(lambda: ap.lag.text().startswith("slower than real time"), timeout=10000)
    assert d.realtime_factor < 0.9 and d.behind_s > 0


def test_pause_and_step_one_decision(window, qtbot):
    ap = _attach(window, qtbot, "Const", action=2)
    qtbot.waitUntil(lambda: ap.driver.decisions > 1, timeout=30000)
    ap.play_btn.setChecked(True)                   # pause
    qtbot.waitUntil(lambda: window.worker.paused, timeout=5000)   # (the emulator thread takes the command)
    f0 = window.worker.frames_emulated
    qtbot.wait(200)
    assert window.worker.frames_emulated == f0
    ap._step()                                     # one decision = 5 frames
    qtbot.waitUntil(lambda: window.worker.frames_emulated == f0 + 5, timeout=10000)
    qtbot.wait(300)
    assert window.worker.frames_emulated == f0 + 5 and window.worker.paused
    ap.play_btn.setChecked(False)
    qtbot.waitUntil(lambda: window.worker.frames_emulated > f0 + 10, timeout=10000)


def test_refcount_guard_is_applied_once(window):
    import sys

    from arcade_lab.app.qt_refcount_guard import affected, guard

    assert guard() is False                         # install_agent_ui applied it already (or not needed)
    if affected():
        assert sys.getrefcount(None) > 1 << 39


def test_external_agent_plays_through_the_protocol_and_is_closed(window, qtbot):
    import sys
    from pathlib import Path

    client = Path(__file__).resolve().parent.parent / "examples" / "agents" / "random_agent.py"
    ap = _attach(window, qtbot, "External", command=f"{sys.executable} {client}")
    d = ap.driver
    qtbot.waitUntil(lambda: d.decisions > 3 and d.agent.transport is not None, timeout=60000)
    proc = d.agent.transport.proc
    assert proc.poll() is None
    ap.detach()
    assert window.worker.input is window.input
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=10000)   # the child is ended on detach


def test_attach_from_a_save_state_slot(window, qtbot):
    ap = window.agent_ui.agents
    window.slot = 3
    ap.configure("Const", action=0)
    ap.start_from.setCurrentIndex(2)
    assert not ap.attach()                           # the slot is empty: said, nothing attached
    assert "slot 3" in ap.status.text() and ap.driver is None
    window.save_state(3)
    qtbot.waitUntil(lambda: window.slots.path(window.session.info.md5, 3).exists(), timeout=10000)
    saved = window.slots.load(window.session.info.md5, 3, window.session.info.title)
    f_saved = int(saved.header["frame"])
    qtbot.waitUntil(lambda: window.session.frame_number > f_saved + 120, timeout=30000)
    starts = []
    ap = _attach(window, qtbot, "Const", action=0)
    window.worker.call(lambda s: starts.append(s.frame_number))
    qtbot.waitUntil(lambda: len(starts) > 0, timeout=10000)
    # the agent started from the saved frame, not from where the game had got to
    assert f_saved <= starts[0] < f_saved + 60
    ap.detach()


def test_score_panel_opens_an_evaluation_run_and_follows_it(window, qtbot):
    from arcade_lab.agents.base import EpisodeRecord
    from arcade_lab.agents.evaluation.store import Store

    def rec(p, s, game="pong"):
        return EpisodeRecord(player=p, game=game, md5="x", mode=0, difficulty=0, protocol="ale2013", seed=0,
                             score=s, frames=100, steps=20, lives_lost=0, wall_time=1.0, ended_by="game_over")

    st = Store()
    st.add_episode(rec("agent:random", -99))                 # outside the run: not shown when the run is
    run = st.create_run("demo", "ale2013")
    st.complete_task(run, "random|pong|t0", [rec("agent:random", -21), rec("agent:random", -20)])
    sp = window.agent_ui.scores
    assert sp.open_run("demo")
    qtbot.waitUntil(lambda: sp.game == "pong" and "agent:random" in sp.data, timeout=10000)  # the run's game
    assert sorted(sp.data["agent:random"]) == [-21, -20]
    st.complete_task(run, "const:0|pong|t0", [rec("agent:const:0", -21)])   # the run goes on: the view follows
    qtbot.waitUntil(lambda: "agent:const:0" in sp.data, timeout=10000)
    assert not sp.open_run("no-such-run")
    st.close()


def test_score_views_normalise_as_the_evaluation_toolkit_does():
    from arcade_lab.agents.evaluation import metrics as M
    from arcade_lab.app.panels.scores import normalise

    v, ref = np.array([30.0, 5.0, 100.0]), (10.0, 100.0)
    np.testing.assert_allclose(normalise(v, ref, "random"), M.random_normalised(v, 10.0))  # s / random
    np.testing.assert_allclose(normalise(v, ref, "human"), [20 / 90, -5 / 90, 1.0])
    assert normalise(v, ref, "raw") is v and normalise(v, None, "human") is v
