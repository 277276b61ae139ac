"""Journeys through the real window (see tests/test_journeys.py for the rules and the helpers): a whole
AtariBench 30 s session with every lock tried, an agent attached, taken over, given back and detached,
and the Scores dock saying which episodes it leaves out."""
from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialogButtonBox  # noqa: E402
from test_journeys import (CTRL, WhenModal, _choose, _menu, activate, answer, click_into,  # noqa: E402
                           double_click, focused, into_sight, library_row, shot)

from arcade_lab.agents.evaluation.store import Store  # noqa: E402

ATARI30S = "AtariBench 30 s"


# -- helpers ------------------------------------------------------------------------------------------------
def new_scored_session(win, qtbot, name: str, protocol: str) -> str:
    """Session ▸ New session… (Ctrl+N): the player's name typed, ``protocol`` picked, OK clicked; what the
    dialog said about the protocol."""
    from PySide6.QtTest import QTest

    seen = {}

    def fill(dlg):
        QTest.keyClick(focused(), Qt.Key.Key_A, CTRL)
        QTest.keyClicks(focused(), name)
        pick(qtbot, dlg.preset, protocol)
        seen["about"] = dlg.about.text()
        shot(dlg, "new-atari30s-session")
        ok = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        QTest.mouseClick(ok, Qt.MouseButton.LeftButton)

    w = WhenModal(fill)
    qtbot.keyClick(focused() or win, Qt.Key.Key_N, CTRL)
    w.stop()
    activate(win, qtbot)
    return seen["about"]


def refused(win, qtbot, what: str) -> None:
    """The refusal of ``what`` is on the view and in the status bar."""
    msg = f"Locked: no {what} during a scored session ({ATARI30S})"
    qtbot.waitUntil(lambda: win.view.notice == msg, timeout=5000)
    assert win.statusBar().currentMessage() == msg


def still_running(win, qtbot, frames: int = 10) -> None:
    """The game goes on at its own pace: frames go by and nothing says paused."""
    f = win.session.frame_number
    qtbot.waitUntil(lambda: win.session.frame_number > f + frames, timeout=5000)
    assert win.view.pause_label == "" and win.st_fps.text() != "paused"


def submenu(win, qtbot, title: str, entry: str):
    """``title`` ▸ ``entry`` (a submenu) opened with a click and the keys: the submenu."""
    menu = _menu(win, qtbot, title)
    _choose(menu, qtbot, entry)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() not in (None, menu), timeout=5000)
    return QApplication.activePopupWidget()


def choose(win, qtbot, title: str, entry: str, choice: str) -> None:
    """``title`` ▸ ``entry`` ▸ ``choice``; the main window has the keys again afterwards."""
    _choose(submenu(win, qtbot, title, entry), qtbot, choice)
    activate(win, qtbot)   # (offscreen, nothing re-activates the window after a menu)


def ticked(win, qtbot, title: str, entry: str) -> list[str]:
    """What ``title`` ▸ ``entry`` shows ticked; the menus are closed again with Escape."""
    texts = [a.text() for a in submenu(win, qtbot, title, entry).actions() if a.isChecked()]
    while QApplication.activePopupWidget() is not None:
        qtbot.keyClick(QApplication.activePopupWidget(), Qt.Key.Key_Escape)
    activate(win, qtbot)
    return texts


def click(qtbot, button) -> None:
    """A click on a button a person can see."""
    assert button.isVisible() and not button.visibleRegion().isEmpty(), f"{button.text()} is not in sight"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


# -- 1. a whole AtariBench 30 s session, every lock tried ---------------------------------------------------
def try_every_lock(win, qtbot) -> None:
    """Every action the protocol locks (agents/evaluation/presets.py ALL_LOCKS: pause, states, rewind,
    speed, switches, mode, agents), by its key, menu or button; each is refused where the player looks."""
    click_into(qtbot, win.view)
    # pause: P (Game ▸ Pause), and single-stepping with "." (Game ▸ Step one frame)
    qtbot.keyClick(focused(), Qt.Key.Key_P)
    refused(win, qtbot, "pause")
    still_running(win, qtbot)
    qtbot.keyClick(focused(), Qt.Key.Key_Period)
    refused(win, qtbot, "single-stepping")
    still_running(win, qtbot)
    # states: F5 save, F7 load
    qtbot.keyClick(focused(), Qt.Key.Key_F5)
    refused(win, qtbot, "save states")
    qtbot.keyClick(focused(), Qt.Key.Key_F7)
    refused(win, qtbot, "loading states")
    assert not win.slots.entries(win.session.info.md5)          # nothing was saved
    # rewind: Backspace held
    f = win.session.frame_number
    qtbot.keyPress(focused(), Qt.Key.Key_Backspace)
    refused(win, qtbot, "rewind")
    qtbot.waitUntil(lambda: win.session.frame_number > f + 20, timeout=5000)   # time still runs forwards
    qtbot.keyRelease(focused(), Qt.Key.Key_Backspace)
    assert "Rewinding" not in win.statusBar().currentMessage()
    # console switches: RESET (F2), SELECT (F1), a difficulty switch (F4), Game ▸ Restart (Ctrl+R)
    for key in (Qt.Key.Key_F2, Qt.Key.Key_F1, Qt.Key.Key_F4):
        qtbot.waitUntil(lambda: win.view.notice == "", timeout=5000)   # (each refusal a notice of its own)
        qtbot.keyClick(focused(), key)
        refused(win, qtbot, "console switches")
    qtbot.keyClick(focused(), Qt.Key.Key_R, CTRL)
    refused(win, qtbot, "restart")
    # speed: Game ▸ Speed ▸ 4×; the menu still ticks the speed the game runs at
    choose(win, qtbot, "&Game", "Speed", "4×")
    refused(win, qtbot, "speed change")
    assert ticked(win, qtbot, "&Game", "Speed") == ["1×"]
    # mode and difficulty: Game ▸ Mode ▸ 1, Game ▸ Difficulty ▸ 3
    choose(win, qtbot, "&Game", "Mode", "1")
    refused(win, qtbot, "mode change")
    assert ticked(win, qtbot, "&Game", "Mode") == ["0"]
    choose(win, qtbot, "&Game", "Difficulty", "3")
    refused(win, qtbot, "difficulty change")
    assert ticked(win, qtbot, "&Game", "Difficulty") == ["0"]
    assert win.st_mode.text() == "mode 0, difficulty 0"
    # agents: the Agents dock's Attach, and its own Pause, Step and Speed
    ap = win.agent_ui.agents
    click(qtbot, ap.attach_btn)
    refused(win, qtbot, "agent attached")
    assert ap.status.text().startswith("a scored human session is running") and ap.driver is None
    click(qtbot, ap.play_btn)
    refused(win, qtbot, "pause")
    assert ap.play_btn.text() == "Pause" and not ap.play_btn.isChecked()
    still_running(win, qtbot)
    click(qtbot, ap.step_btn)
    refused(win, qtbot, "single-stepping")
    still_running(win, qtbot)
    pick(qtbot, ap.speed, "4×", accepted=False)
    refused(win, qtbot, "speed change")
    assert ap.speed.currentText() == "1× real time"
    # another game (a double click in the library) asks first; No keeps the session
    sess = win.session
    click_into(qtbot, win.library.search)
    qtbot.keyClicks(focused(), "breakout")
    no = answer(Qt.Key.Key_N)
    w = WhenModal(no)
    double_click(qtbot, win.library.list.viewport(), library_row(win, qtbot, "breakout"))
    qtbot.waitUntil(lambda: bool(w.seen), timeout=5000)
    w.stop()
    assert f"end the {ATARI30S} session" in no.texts["text"]
    activate(win, qtbot)
    assert win.session is sess
    click_into(qtbot, win.view)
    still_running(win, qtbot)


def pick(qtbot, combo, text: str, *, accepted: bool = True) -> None:
    """Open ``combo`` with a click and go up or down its list to ``text`` with the keys, then Return (a
    refused choice leaves the box as it was: ``accepted=False``)."""
    into_sight(qtbot, combo)
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    # keys go to the list once it has the focus (before, they would turn the closed box)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None and focused() is combo.view(),
                    timeout=5000)
    target = [combo.itemText(i) for i in range(combo.count())].index(text)
    key = Qt.Key.Key_Down if target > combo.view().currentIndex().row() else Qt.Key.Key_Up
    for _ in range(combo.count()):
        if combo.view().currentIndex().data() == text:
            break
        qtbot.keyClick(focused(), key)
    qtbot.keyClick(focused(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=5000)
    if accepted:
        assert combo.currentText() == text


BADGE = ATARI30S.join((r"SCORED · ", r" · episode (\d+)/10 · 0:(\d\d) left"))


def badge(win):
    m = re.fullmatch(BADGE, win.view.corner)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


@pytest.mark.slow
def test_a_whole_atari30s_session_refuses_every_lock_and_ends_with_its_result(open_window, qtbot, tmp_path):
    store = Store(tmp_path / "s.db")
    win = open_window("pong", store=store)
    activate(win, qtbot)
    qtbot.waitUntil(lambda: win.agent_ui.agents.isVisible(), timeout=60000)
    click_into(qtbot, win.view)
    about = new_scored_session(win, qtbot, "ann", ATARI30S)
    assert "1 800 frames" in about
    assert "Locked while it runs: pause, states, rewind, speed, switches, mode, agents." in about
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    sess = win.session
    assert sess.preset.key == "atari30s"
    qtbot.waitUntil(lambda: badge(win) is not None, timeout=5000)
    assert badge(win)[0] == 1 and badge(win)[1] in (29, 30)
    qtbot.waitUntil(lambda: win.st_game.text() == f"Pong — {ATARI30S}, episode 1/10 · human:ann", timeout=2000)

    try_every_lock(win, qtbot)
    assert badge(win) is not None                                  # the badge stayed through it all
    shot(win, "atari30s-locks")

    # the clock counts game time: episode 2 starts once 1 800 frames are played
    qtbot.waitUntil(lambda: badge(win) is not None and badge(win)[0] == 2, timeout=90000)
    assert "Episode 1/10 finished" in win.statusBar().currentMessage()
    # ... and the session runs to its end: ten episodes of 30 s
    qtbot.waitUntil(lambda: sess.complete, timeout=900000)
    qtbot.waitUntil(lambda: win.view.message.startswith("Session complete: 10 episodes, mean"), timeout=5000)
    assert "Saved to the leaderboard" in win.view.message and win.view.message.endswith("Free play now.")
    assert win.session is not sess and not getattr(win.session, "recording", False)   # play goes on, unlocked
    qtbot.waitUntil(lambda: win.view.corner.startswith("Slot "), timeout=2000)   # no badge once it is over
    eps = store.episodes(session_id=sess.session_id)
    assert [e.frames for e in eps] == [1800] * 10
    assert {e.ended_by for e in eps} == {"truncated"} and {e.protocol for e in eps} == {"atari30s"}
    assert store.session(sess.session_id)["status"] == "finished"
    mean = sum(e.score for e in eps) / 10
    assert f"mean {mean:.1f}" in win.view.message
    # the Sessions dock lists it, finished, with its ten episodes and their mean
    top = win.sessions.tree.topLevelItem(0)
    qtbot.waitUntil(lambda: "atari30s (finished)" in win.sessions.tree.topLevelItem(0).text(0), timeout=5000)
    top = win.sessions.tree.topLevelItem(0)
    assert top.text(1) == f"mean {mean:.1f}" and top.childCount() == 10
    assert all(top.child(i).text(0) == f"Episode {i + 1} (truncated)" for i in range(10))
    shot(win, "atari30s-complete")


# -- 2. an agent attached, taken over, given back, detached -------------------------------------------------
def agents_dock(win, qtbot):
    ap = win.agent_ui.agents
    qtbot.waitUntil(ap.isVisible, timeout=60000)
    return ap


def attach(win, qtbot, kind: str = "Random", start: str = "fresh reset"):
    """The Agents dock: ``kind`` and where it starts picked, Attach clicked; the driver once it plays."""
    ap = agents_dock(win, qtbot)
    pick(qtbot, ap.kind, kind)
    pick(qtbot, ap.start_from, start)
    activate(win, qtbot)
    click(qtbot, ap.attach_btn)
    qtbot.waitUntil(lambda: ap.driver is not None and ap.driver.episode_frames > 10, timeout=60000)
    qtbot.waitUntil(lambda: " — agent in control · " in ap.status.text(), timeout=5000)
    return ap.driver


def paddle_y(win) -> float:
    """Where the right (the player's) paddle is on the screen shown: the mean row of its colour."""
    import numpy as np

    rows = np.nonzero(win.view.frame()[34:194, 141] == 200)[0]
    return float(rows.mean()) if rows.size else float("nan")


def press_tab(win, qtbot) -> None:
    activate(win, qtbot)   # (offscreen, nothing re-activates the window after a combo box's list)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_Tab)


def test_attach_take_over_give_back_and_detach_an_agent(open_window, qtbot):
    import numpy as np

    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    d = attach(win, qtbot, "Random")
    ap = win.agent_ui.agents
    assert d.name == "agent:random"
    assert ap.attach_btn.text() == "Detach" and ap.takeover_btn.isEnabled()
    assert ap.takeover_btn.text() == "Take over (Tab)"
    # Tab in the game view: the person has the controls, and the window says so
    press_tab(win, qtbot)
    qtbot.waitUntil(lambda: " — you in control · " in ap.status.text(), timeout=5000)
    assert win.view.notice == "You have the controls"
    assert win.statusBar().currentMessage() == "You have the controls"
    assert ap.takeover_btn.text() == "Give back to the agent (Tab)" and ap.takeover_btn.isChecked()
    shot(win, "agent-taken-over")
    # a few frames played with the keys: the paddle follows them
    y0 = paddle_y(win)
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Left):
        f = win.session.frame_number
        qtbot.keyPress(focused(), key)
        qtbot.waitUntil(lambda: win.session.frame_number > f + 40, timeout=5000)
        qtbot.keyRelease(focused(), key)
        qtbot.wait(100)
        if abs(paddle_y(win) - y0) > 5:
            break
    assert abs(paddle_y(win) - y0) > 5
    human_frames = d.episode_frames
    # Tab again gives the controls back
    press_tab(win, qtbot)
    qtbot.waitUntil(lambda: " — agent in control · " in ap.status.text(), timeout=5000)
    assert win.view.notice == "agent:random has the controls"
    assert ap.takeover_btn.text() == "Take over (Tab)" and not ap.takeover_btn.isChecked()
    # as fast as possible to the game over: the episode is stored with who played when
    pick(qtbot, ap.speed, "as fast as possible")
    qtbot.waitUntil(lambda: d.episodes_done >= 1, timeout=180000)

    def episodes_counted() -> int:   # the panel's count of finished episodes
        m = re.search(r", (\d+) episodes", ap.status.text())
        return int(m.group(1)) if m else 0

    qtbot.waitUntil(lambda: episodes_counted() >= 1, timeout=5000)
    pick(qtbot, ap.speed, "1× real time")
    # a fast machine may finish further episodes, the agent's own, before the speed is back to 1×
    with Store() as st:
        rows = st.episodes(game="pong", player="agent:random")
        rec = st.episode(rows[0].id)
        assert all(st.episode(r.id).controllers == "" for r in rows[1:])
    segs = json.loads(rec.controllers)
    assert [p for _, p in segs] == ["agent:random", "human:player", "agent:random"]
    assert 0 == segs[0][0] < segs[1][0] < human_frames <= segs[2][0] < rec.frames
    assert rec.ended_by == "game_over" and rec.frames == len(rec.actions)
    # the Sessions dock's agent episodes say it was taken over
    pick(qtbot, win.sessions.show_choice, "Agent episodes")
    top = win.sessions.tree.topLevelItem(0)
    assert top.text(0).startswith("Agent random · pong")
    [row] = [top.child(i) for i in range(top.childCount()) if top.child(i).text(0).startswith(f"Episode {rec.id} ")]
    assert row.text(0) == f"Episode {rec.id} (game over, taken over)"
    # Detach while the agent ran at 4x and the person had the controls: the person plays on at real time
    pick(qtbot, ap.speed, "4×")
    press_tab(win, qtbot)
    qtbot.waitUntil(lambda: ap.takeover_btn.text() == "Give back to the agent (Tab)", timeout=5000)
    activate(win, qtbot)
    click(qtbot, ap.attach_btn)
    assert ap.status.text() == "no agent attached" and ap.attach_btn.text() == "Attach"
    assert not ap.takeover_btn.isEnabled() and ap.takeover_btn.text() == "Take over (Tab)"
    assert ap.speed.currentText() == "1× real time" and win.speed_actions[1.0].isChecked()
    assert win.worker.input is win.input
    click_into(qtbot, win.view)
    qtbot.keyPress(focused(), Qt.Key.Key_Left)
    assert win.input.snapshot().left
    qtbot.keyRelease(focused(), Qt.Key.Key_Left)
    assert not np.isnan(paddle_y(win))


def test_pausing_a_watched_agent_says_paused_and_its_figures_name_the_recording_and_the_pace_since(open_window, qtbot):
    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    attach(win, qtbot, "Random", "current state")
    ap = win.agent_ui.agents
    assert re.search(r" · recording \d+ frames, score -?\d+ · ", ap.status.text())   # since it was attached
    click(qtbot, ap.play_btn)
    qtbot.waitUntil(lambda: win.view.pause_label == "PAUSED", timeout=5000)
    qtbot.waitUntil(lambda: win.st_fps.text() == "paused", timeout=5000)
    assert ap.play_btn.text() == "Play" and win.pause_action.isChecked()
    f = win.session.frame_number
    qtbot.wait(2500)                                   # longer than the real-time figure's 2 s window
    assert win.session.frame_number == f
    click(qtbot, ap.play_btn)
    qtbot.waitUntil(lambda: win.view.pause_label == "" and win.session.frame_number > f + 30, timeout=5000)
    qtbot.wait(300)                                    # (the panel's next poll)
    assert ap.lag.text().startswith("real time ("), ap.lag.text()   # the pause is not counted as slowness


# -- 3. the Scores dock says which episodes it leaves out ---------------------------------------------------
def show_dock_tab(win, qtbot, title: str) -> None:
    """Click ``title``'s tab where the right column's docks share a tab group."""
    from PySide6.QtWidgets import QTabBar

    for bar in win.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i) == title and bar.isVisible():
                qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
                return
    raise AssertionError(f"no {title} tab")


def test_scores_dock_says_how_many_episodes_detaching_cut_short(open_window, qtbot):
    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    for _ in range(2):                                  # twice: attached, a few frames, detached
        attach(win, qtbot, "Random")
        click(qtbot, win.agent_ui.agents.attach_btn)
        assert win.agent_ui.agents.status.text() == "no agent attached"
    show_dock_tab(win, qtbot, "Scores")
    sp = win.agent_ui.scores
    qtbot.waitUntil(sp.isVisible, timeout=5000)
    qtbot.waitUntil(lambda: sp.left_out.text() == "2 episodes cut short by detaching an agent are not counted",
                    timeout=10000)
    assert sp.left_out.isVisible() and not sp.left_out.visibleRegion().isEmpty()
    assert sp.summary.text() == "no finished episodes of pong yet"
    assert not sp.widget().horizontalScrollBar().isVisible()     # the dock's contents fit its width
    shot(sp, "scores-left-out")
    # they are kept, replayable, as cut short
    with Store() as st:
        eps = [st.episode(e.id) for e in st.episodes(game="pong", status="abandoned")]
    assert [e.ended_by for e in eps] == ["detached", "detached"]
    assert all(e.frames == len(e.actions) > 10 and e.start_state for e in eps)


def test_the_wheel_over_a_scores_figure_scrolls_the_dock_and_leaves_the_figure_as_it_was(open_window, qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    agents_dock(win, qtbot)
    show_dock_tab(win, qtbot, "Scores")
    sp = win.agent_ui.scores
    qtbot.waitUntil(sp.isVisible, timeout=5000)
    bar = sp.widget().verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)      # more figures than the dock's height
    before = [tuple(r) for r in sp.hist.getViewBox().viewRange()]
    port = sp.hist.viewport()
    where = QPointF(port.width() / 2, port.height() / 2)
    for _ in range(3):                                               # a person rolling down the dock
        QApplication.sendEvent(port, QWheelEvent(
            where, QPointF(port.mapToGlobal(where.toPoint())), QPoint(), QPoint(0, -120), Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))
    assert bar.value() > 0
    assert [tuple(r) for r in sp.hist.getViewBox().viewRange()] == before
    assert "Games with normalised score" in sp.across.getPlotItem().titleLabel.text


def test_store_counts_what_the_scores_leave_out_by_why(tmp_path):
    """(Under the journey above.) Cut short by a detach, abandoned, shared in a takeover: each is left out
    of the scores and counted under its reason, with the scores' own filters."""
    from arcade_lab.agents.base import EpisodeRecord
    from arcade_lab.app.panels.scores import left_out_text

    def rec(ended_by="game_over", controllers="", protocol="free", player="agent:random"):
        return EpisodeRecord(player=player, game="pong", md5="x", mode=0, difficulty=0, protocol=protocol, seed=0,
                             score=-21, frames=100, steps=100, lives_lost=0, wall_time=1.0, ended_by=ended_by,
                             controllers=controllers)

    with Store(tmp_path / "s.db") as st:
        st.add_episode(rec())
        st.add_episode(rec("detached"), status="abandoned")
        st.add_episode(rec("detached"), status="abandoned")
        st.add_episode(rec(controllers='[[0, "agent:random"], [5, "human:ann"]]'))
        sid = st.new_session("human:ann", "pong", "x", "ale2013", 0, 0, {})
        st.abandon_episode(st.start_episode(rec(protocol="ale2013", player="human:ann"), session_id=sid))
        st.start_episode(rec(protocol="ale2013", player="human:ann"), session_id=sid)   # still playing
        with pytest.raises(ValueError, match="finished or abandoned"):
            st.add_episode(rec(), status="recording")
        assert st.uncounted("pong") == {"detached": 2, "takeover": 1, "abandoned": 1}
        assert st.uncounted("pong", "ale2013") == {"abandoned": 1}
        assert st.uncounted("breakout") == {}
        assert list(st.scores("pong")) == ["agent:random"] and len(st.scores("pong")["agent:random"]) == 1
        assert left_out_text(st.uncounted("pong")).splitlines() == [
            "2 episodes cut short by detaching an agent are not counted",
            "1 episode abandoned mid-episode (a session ended or the app closed) is not counted",
            "1 episode shared by a person and an agent (takeover) is not counted"]
    assert left_out_text({}) == ""


def test_closing_the_window_keeps_the_agent_episode_under_way(open_window, qtbot):
    """Quitting while an agent plays stores its unfinished episode as a detach does (cut short, replayable,
    never counted) instead of losing it."""
    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    driver = attach(win, qtbot, "Random")
    qtbot.waitUntil(lambda: driver.episode_frames > 30, timeout=30000)
    win.close()
    assert not win.worker.isRunning()
    with Store() as st:
        eps = [st.episode(e.id) for e in st.episodes(game="pong", status="abandoned")]
    assert [e.ended_by for e in eps] == ["detached"]
    assert eps[0].frames == len(eps[0].actions) > 30 and eps[0].start_state


def test_a_scored_session_refuses_a_race_and_a_training(open_window, qtbot, tmp_path):
    """A race's consoles would take the keys, and a training's process the machine, while the scored
    episode ran on behind them: both are refused as the other locks are, and the episode goes on."""
    win = open_window("pong", store=Store(tmp_path / "s.db"), gamepads=False)
    activate(win, qtbot)
    qtbot.waitUntil(lambda: win.agent_ui.agents.isVisible(), timeout=60000)
    click_into(qtbot, win.view)
    new_scored_session(win, qtbot, "ann", ATARI30S)
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    setup = WhenModal(answer(Qt.Key.Key_Escape))   # (a race setup dialog, were one to open, is closed)
    _choose(_menu(win, qtbot, "A&gents"), qtbot, "Race mode")
    refused(win, qtbot, "race")
    setup.stop()
    assert not setup.seen and win.agent_ui.races == []
    show_dock_tab(win, qtbot, "Training")
    tp = win.agent_ui.training
    for button, what in ((tp.start_btn, "training"), (tp.resume_btn, "training")):
        if button.isEnabled():
            click(qtbot, button)
            refused(win, qtbot, what)
    assert tp.proc is None
    still_running(win, qtbot)


def test_starting_a_training_over_trained_weights_asks_first(open_window, qtbot):
    """Start where this game's weights exist: a question, No by default; No keeps them and starts
    nothing."""
    from arcade_lab.app.training import weights_dir

    win = open_window("pong", gamepads=False)
    activate(win, qtbot)
    qtbot.waitUntil(lambda: win.agent_ui.agents.isVisible(), timeout=60000)
    show_dock_tab(win, qtbot, "Training")
    tp = win.agent_ui.training
    weights = weights_dir() / f"pong-sarsa-{tp.features.currentText()}.npz"
    weights.parent.mkdir(parents=True, exist_ok=True)
    weights.write_bytes(b"179 episodes of training")
    said = answer(Qt.Key.Key_Return)   # Return takes the default button
    w = WhenModal(said)
    click(qtbot, tp.start_btn)
    w.stop()
    assert weights.name in said.texts["text"] and "replace" in said.texts["text"]
    assert tp.proc is None and weights.read_bytes() == b"179 episodes of training"
