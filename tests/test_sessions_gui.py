"""Sessions in the window (pytest-qt, offscreen): a preset session with scripted input records episodes
with the right scores; locked actions are refused and said so; save/load and rewind in free play."""
from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402

from arcade_lab.agents.evaluation import presets  # noqa: E402
from arcade_lab.agents.evaluation.replay import replay_main  # noqa: E402
from arcade_lab.agents.evaluation.store import Store  # noqa: E402
from arcade_lab.app.panels.sessions import leaderboard  # noqa: E402


@pytest.fixture
def window(open_window, tmp_path):
    return open_window("pong", store=Store(tmp_path / "s.db"))


def _key(win, key, down=True):
    code = int(key.value)
    (win.input.key_press if down else win.input.key_release)(code)


def test_ale2013_session_records_five_episodes_and_locks(window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setitem(presets.PRESETS, "ale2013", replace(presets.PRESETS["ale2013"], max_frames=60))
    assert window.start_session("ann", "seaquest", "ale2013", seed=7)
    qtbot.waitUntil(lambda: getattr(window.session, "recording", False), timeout=30000)
    sess = window.session
    _key(window, Qt.Key.Key_Space)          # fire and dive: a scripted player
    _key(window, Qt.Key.Key_Down)
    # every score-changing control is refused, on screen and in the status bar
    window.pause_action.setChecked(True)
    window.toggle_pause()
    assert not window.worker.paused and "Locked: no pause" in window.view.notice
    window.set_speed(None)
    assert window.worker.speed == 1.0 and not window.worker.unthrottled
    window.save_state(1)
    assert "save states" in window.last_refusal
    assert not window.load_state(1)
    _key(window, Qt.Key.Key_Backspace)
    assert "rewind" in window.last_refusal and not window.input.snapshot().rewind
    _key(window, Qt.Key.Key_F2)             # console RESET
    assert "console switches" in window.last_refusal and not window.input.snapshot().reset
    assert not window.agent_ui.agents.attach()   # no agent may take over a human's scored episode
    assert "agent attached" in window.last_refusal
    qtbot.waitUntil(lambda: sess.complete, timeout=60000)
    _key(window, Qt.Key.Key_Space, False)
    _key(window, Qt.Key.Key_Down, False)
    # the session's end is announced once its last rows are written (``complete`` comes just before that)
    qtbot.waitUntil(lambda: "Session complete" in window.view.message, timeout=5000)
    st = window.store
    eps = st.episodes(session_id=sess.session_id, full=True)
    assert len(eps) == 5 and [e.score for e in eps] == sess.scores and all(e.frames == 60 for e in eps)
    assert st.session(sess.session_id)["status"] == "finished"
    assert window.verify_session(sess.session_id) == 5
    assert all(e.verified for e in st.episodes(session_id=sess.session_id))
    [row] = leaderboard(st)
    assert row["game"] == "seaquest" and row["episodes"] == 5 and row["verified"] == 5
    files = window.export_session(sess.session_id, tmp_path / "out")
    assert [f.suffix for f in files] == [".json", ".csv"]
    assert replay_main([str(files[0])]) == 0
    assert window.replay_episode(eps[0].id)
    qtbot.waitUntil(lambda: hasattr(window.session, "rec") and window.session.game_over, timeout=20000)
    assert window.session.score == eps[0].score
    # the seek bar follows the replay and jumps back exactly
    qtbot.waitUntil(lambda: window.sessions.seek.isEnabled() and window.sessions.seek.maximum() == eps[0].steps,
                    timeout=5000)
    window.pause_action.setChecked(True)
    window.toggle_pause()
    window.sessions.seek_requested.emit(10)
    qtbot.waitUntil(lambda: window.session.position == 10, timeout=5000)


def test_free_play_save_load_and_rewind(window, qtbot, tmp_path):
    window.set_speed(None)
    qtbot.waitUntil(lambda: window.session.frame_number > 300, timeout=20000)
    window.save_state(2)
    qtbot.waitUntil(lambda: window.slots.path(window.session.info.md5, 2).exists(), timeout=5000)
    saved = window.slots.load(window.session.info.md5, 2).frame
    qtbot.waitUntil(lambda: window.session.frame_number > saved + 200, timeout=20000)
    window.pause_action.setChecked(True)
    window.toggle_pause()
    qtbot.waitUntil(lambda: window.worker.paused, timeout=5000)
    assert window.load_state(2)
    qtbot.waitUntil(lambda: window.session.frame_number == saved, timeout=5000)
    qtbot.waitUntil(lambda: window.snapshots.list.count() == 1, timeout=5000)
    # another game's state is refused with a message; the game keeps running
    pong_md5 = window.session.info.md5
    assert window.open_game("breakout")
    qtbot.waitUntil(lambda: window.session.info.id == "breakout", timeout=30000)
    import shutil
    window.slots.folder(window.session.info.md5).mkdir(parents=True, exist_ok=True)
    shutil.copy(window.slots.path(pong_md5, 2), window.slots.path(window.session.info.md5, 0))
    assert not window.load_state(0)
    assert "saved for Pong" in window.last_error
    # rewind: hold Backspace, frames go back; release and play continues from there
    window.pause_action.setChecked(False)
    window.toggle_pause()
    window.set_speed(1.0)
    qtbot.waitUntil(lambda: len(window.worker.rewind) > 100, timeout=20000)
    f0 = window.session.frame_number
    _key(window, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: window.session.frame_number < f0 - 30, timeout=10000)
    _key(window, Qt.Key.Key_Backspace, False)
    f1 = window.session.frame_number
    qtbot.waitUntil(lambda: window.session.frame_number > f1 + 10, timeout=10000)
    assert window.session.frame_number < f0 + 200
