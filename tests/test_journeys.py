"""Journeys through the real window as a person makes them: keys and clicks go to the widget that has
focus (through the app's own event filter), dialogs are found as the active modal widget and answered
with keys, and every check reads what the window shows.

Set ARCADE_LAB_JOURNEY_SHOTS to a folder (docs/journeys) to save a picture of each journey there."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox  # noqa: E402

from arcade_lab.agents.evaluation.store import Store  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


# -- helpers ------------------------------------------------------------------------------------------------
def shot(widget, name: str) -> None:
    folder = os.environ.get("ARCADE_LAB_JOURNEY_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / f"{name}.png"))


def activate(win, qtbot) -> None:
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)


def focused():
    return QApplication.focusWidget()


def in_sight(widget) -> bool:
    """Whether a person sees the middle of ``widget`` (shown, and not scrolled away or behind another tab)."""
    return widget.isVisible() and widget.visibleRegion().contains(widget.rect().center())


def into_sight(qtbot, widget) -> None:
    """Roll the mouse wheel over ``widget``'s scroll area until its middle is in view, as a person does
    before clicking something below the fold (QTest delivers a click to a widget nobody could click);
    then wait until it is in sight (a dock shown or raised appears on a queued event)."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QScrollArea

    area = widget.parentWidget()
    while area is not None and not (isinstance(area, QScrollArea) and area.viewport().isAncestorOf(widget)):
        area = area.parentWidget()
    if area is not None and area.isVisible():
        port = area.viewport()
        for _ in range(100):
            if in_sight(widget):
                break
            y = widget.mapTo(port, widget.rect().center()).y()
            if 0 <= y < port.height():
                break                          # in the viewport: hidden for another reason, waited for below
            where = QPointF(2, port.height() / 2)   # over the area's margin, not over a spin box it would turn
            QApplication.sendEvent(port, QWheelEvent(
                where, QPointF(port.mapToGlobal(where.toPoint())), QPoint(), QPoint(0, 120 if y < 0 else -120),
                Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))
    qtbot.waitUntil(lambda: in_sight(widget), timeout=5000)


def click_into(qtbot, widget) -> None:
    into_sight(qtbot, widget)
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    assert focused() is widget or widget.isAncestorOf(focused())


class WhenModal:
    """Runs ``act(dialog)`` once a modal dialog is up: the code that opens one blocks in exec(), so the
    answer has to be scheduled before the key or click that opens it."""

    def __init__(self, act):
        self.act, self.seen = act, []
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        w = QApplication.activeModalWidget()
        if w is not None and w.isVisible() and QApplication.activeWindow() is w:
            self.timer.stop()
            self.seen.append(w)
            self.act(w)

    def stop(self) -> None:
        self.timer.stop()


def answer(key):
    """An act for WhenModal: remember the question's text and press ``key`` in it."""
    texts = {}

    def act(box):
        texts["text"] = box.text() + "\n" + box.informativeText() if isinstance(box, QMessageBox) else ""
        shot(box, f"question-{key.name}")
        QTimer.singleShot(0, lambda: _press(box, key))

    act.texts = texts
    return act


def _press(box, key) -> None:
    from PySide6.QtTest import QTest

    QTest.keyClick(focused() or box, key)


def new_session(win, qtbot, name: str) -> dict:
    """Session ▸ New session… (Ctrl+N), the player name typed over the default, Enter: what the dialog
    showed just before Enter."""
    from PySide6.QtTest import QTest

    seen = {}

    def fill(dlg):
        f = focused()
        seen["focus_in_player"] = dlg.player.isAncestorOf(f) or f is dlg.player
        QTest.keyClick(f, Qt.Key.Key_A, CTRL)
        QTest.keyClicks(f, name)
        seen["player"] = dlg.player.currentText()
        shot(dlg, "new-session")
        QTest.keyClick(focused(), Qt.Key.Key_Return)
        if dlg.isVisible():  # Return stayed in the editable combo box: press OK as a person would
            from PySide6.QtWidgets import QDialogButtonBox

            ok = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
            QTest.mouseClick(ok, Qt.MouseButton.LeftButton)

    w = WhenModal(fill)
    qtbot.keyClick(focused() or win, Qt.Key.Key_N, CTRL)
    w.stop()
    activate(win, qtbot)   # the dialog is gone: the main window takes the keys again
    return seen


def scored_pong(open_window, qtbot, tmp_path):
    """The window on Pong with a store, and ann's ALE 2013 session started from Ctrl+N: (window, session)."""
    win = open_window("pong", store=Store(tmp_path / "s.db"))
    activate(win, qtbot)
    click_into(qtbot, win.view)
    new_session(win, qtbot, "ann")
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    return win, win.session


def double_click(qtbot, widget, pos) -> None:
    """A person's double click: QTest's mouseDClick alone is only the second press (the double-click
    event), which an item view ignores unless the first press landed on the same item."""
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(widget, Qt.MouseButton.LeftButton, pos=pos)


def library_row(win, qtbot, game_id: str):
    """Where ``game_id``'s row is in the library list, once the list has laid out its filtered rows."""
    lst = win.library.list
    item = next(lst.item(i) for i in range(lst.count())
                if lst.item(i).data(Qt.ItemDataRole.UserRole).id == game_id)
    assert not item.isHidden(), f"{game_id} is not shown in the library"
    qtbot.waitUntil(lambda: lst.itemAt(lst.visualItemRect(item).center()) is item, timeout=5000)
    return lst.visualItemRect(item).center()


# -- a. typing ----------------------------------------------------------------------------------------------
def test_typing_breakout_into_the_library_search_filters_the_list(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    search = win.library.search
    click_into(qtbot, search)
    qtbot.keyClicks(focused(), "breax")
    qtbot.keyClick(focused(), Qt.Key.Key_Backspace)
    qtbot.keyClicks(focused(), "kout")
    assert search.text() == "breakout"
    shown = win.library.visible_infos()
    assert "breakout" in [i.id for i in shown]
    assert all("breakout" in i.id or "breakout" in i.title.lower() for i in shown)
    assert not win.input.snapshot().left  # the A went into the text, not to the joystick
    shot(win, "search")
    # Ctrl+A selects the text, a word typed over it replaces it
    qtbot.keyClick(focused(), Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(focused(), "pong")
    assert search.text() == "pong"
    # back in the game view the same keys are the joystick again
    click_into(qtbot, win.view)
    qtbot.keyPress(focused(), Qt.Key.Key_A)
    assert win.input.snapshot().left
    qtbot.keyRelease(focused(), Qt.Key.Key_A)
    assert not win.input.snapshot().left


def test_the_library_highlights_the_game_played_and_return_in_the_search_plays_a_match(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    lst = win.library.list
    qtbot.waitUntil(lambda: lst.currentItem() is not None, timeout=5000)
    assert lst.currentItem().data(Qt.ItemDataRole.UserRole).id == "pong"   # the game being played
    click_into(qtbot, win.library.search)
    qtbot.keyClicks(focused(), "space")
    shown = [i.id for i in win.library.visible_infos()]
    assert len(shown) >= 2 and "pong" not in shown
    qtbot.keyClick(focused(), Qt.Key.Key_Down)        # the highlight moves onto the matches
    qtbot.keyClick(focused(), Qt.Key.Key_Down)
    assert lst.currentItem().data(Qt.ItemDataRole.UserRole).id == shown[1]
    qtbot.keyClick(focused(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.session.info.id == shown[1], timeout=30000)
    assert lst.currentItem().data(Qt.ItemDataRole.UserRole).id == shown[1]
    assert focused() is win.view                         # and the keys play it at once


def test_ctrl_f_finds_a_game_without_the_mouse_even_with_the_games_dock_closed(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    _choose(_menu(win, qtbot, "&View"), qtbot, "Games")      # the Games dock closed
    qtbot.waitUntil(lambda: not win.library.isVisible(), timeout=5000)
    activate(win, qtbot)
    qtbot.keyClick(focused() or win, Qt.Key.Key_F, CTRL)
    qtbot.waitUntil(lambda: focused() is win.library.search, timeout=5000)
    assert win.library.isVisible()
    qtbot.keyClicks(focused(), "breakout")
    qtbot.keyClick(focused(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.session.info.id == "breakout", timeout=30000)
    assert focused() is win.view
    assert "Find a game: Ctrl+F" in win.keys_text()


def test_a_game_opened_from_the_library_and_by_name_is_one_recent_game(open_window, qtbot):
    win = open_window("pong")                       # by name, as the command line and the first start do
    activate(win, qtbot)
    qtbot.keyClick(focused() or win, Qt.Key.Key_F, CTRL)
    qtbot.keyClicks(focused(), "breakout")
    qtbot.keyClick(focused(), Qt.Key.Key_Return)    # the library opens the catalog's file
    qtbot.waitUntil(lambda: win.session.info.id == "breakout", timeout=30000)
    qtbot.keyClick(focused() or win, Qt.Key.Key_F, CTRL)
    qtbot.keyClicks(focused(), "pong")
    qtbot.keyClick(focused(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.session.info.id == "pong", timeout=30000)
    assert [a.text() for a in win.recent_menu.actions()] == ["pong", "breakout"]


def test_typing_a_player_name_into_the_new_session_dialog(open_window, qtbot, tmp_path):
    win = open_window("pong", store=Store(tmp_path / "s.db"))
    activate(win, qtbot)
    click_into(qtbot, win.view)
    seen = new_session(win, qtbot, "Sandra Wade")
    assert seen["focus_in_player"]
    assert seen["player"] == "Sandra Wade"
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    qtbot.waitUntil(lambda: "human:Sandra Wade" in win.st_game.text(), timeout=5000)
    assert "human:Sandra Wade" in [p["name"] for p in win.store.players()]
    # quitting mid-session asks first; Yes closes the window and the unfinished episode is abandoned
    q = answer(Qt.Key.Key_Y)
    w = WhenModal(q)
    qtbot.keyClick(focused() or win, Qt.Key.Key_Q, CTRL)
    w.stop()
    assert "abandoned" in q.texts["text"]
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)
    [ep] = win.store.episodes(session_id=win.session.session_id, status=None)
    assert ep.status == "abandoned"


def test_the_new_session_dialog_says_how_many_episodes_and_remembers_the_protocol(open_window, qtbot, tmp_path):
    from PySide6.QtTest import QTest

    win = open_window("pong", store=Store(tmp_path / "s.db"))
    activate(win, qtbot)
    seen = []

    def pick_atari30s(dlg):
        _pick(qtbot, dlg.preset, "AtariBench 30 s")
        seen.append(dlg.about.text())
        QTest.keyClick(dlg, Qt.Key.Key_Escape)   # no session: the choice counts only on OK
    w = WhenModal(pick_atari30s)
    qtbot.keyClick(focused() or win, Qt.Key.Key_N, CTRL)
    w.stop()
    assert seen[0].startswith("10 episodes; the first starts when you press OK.")
    activate(win, qtbot)

    def ok_atari30s(dlg):
        assert dlg.preset.currentData() == "ale2013"   # (Escape kept nothing)
        _pick(qtbot, dlg.preset, "AtariBench 30 s")
        from PySide6.QtWidgets import QDialogButtonBox

        QTest.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)
    w = WhenModal(ok_atari30s)
    qtbot.keyClick(focused() or win, Qt.Key.Key_N, CTRL)
    w.stop()
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    assert win.session.preset.key == "atari30s"
    activate(win, qtbot)
    again = []

    def look(dlg):
        again.append(dlg.preset.currentData())
        QTest.keyClick(dlg, Qt.Key.Key_Escape)
    w = WhenModal(look)
    qtbot.keyClick(focused() or win, Qt.Key.Key_N, CTRL)
    w.stop()
    assert again == ["atari30s"]


def test_help_lists_the_keys_as_mapped_and_holds_the_game(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    win.input.keymap.set("fire", ["Space", "X"])       # as Remap keys… leaves it
    qtbot.waitUntil(lambda: win._agent_ui is not None, timeout=60000)   # (the Agents menu comes just after)
    said = {}

    def read(box):
        said["text"] = box.text()
        f = win.session.frame_number
        QTimer.singleShot(400, lambda: (said.__setitem__("frames", win.session.frame_number - f),
                                        _press(box, Qt.Key.Key_Return)))

    w = WhenModal(read)
    _choose(_menu(win, qtbot, "&Help"), qtbot, "Keys and controls")
    qtbot.waitUntil(lambda: "frames" in said, timeout=5000)
    w.stop()
    lines = said["text"].splitlines()
    assert "Fire button: Space or X" in lines and "Console RESET (hold): F2" in lines
    assert "Save state: F5" in lines and "Presentation mode: F12" in lines and "New session: Ctrl+N" in lines
    assert "Take over / give back: Tab" in lines                # the key is named once
    assert said["frames"] <= 1                           # the game waited while the box was up


def test_a_portable_data_folder_holds_scores_settings_and_screenshots(qtbot, monkeypatch, tmp_path):
    from pathlib import Path

    from arcade_lab.app.window import MainWindow

    folder = tmp_path / "portable"
    monkeypatch.setenv("ARCADE_LAB_DATA", str(folder))
    win = MainWindow(audio=False, thumbnails=False)          # its own settings: none handed in
    qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "ask_before_leaving", False))
    assert win.open_game("pong")
    win.show()
    qtbot.waitUntil(lambda: win.worker.frames_emulated > 5, timeout=60000)
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)   # Save screenshot
    qtbot.waitUntil(lambda: len(list((folder / "screenshots").glob("pong-*.png"))) == 1, timeout=5000)
    said = {}

    def read(box):
        said["text"] = box.text()
        _press(box, Qt.Key.Key_Return)

    w = WhenModal(read)
    _choose(_menu(win, qtbot, "&Help"), qtbot, "About")
    qtbot.waitUntil(lambda: "text" in said, timeout=5000)
    w.stop()
    places = dict(line.split(": ", 1) for line in said["text"].splitlines()[-3:])
    assert set(places) == {"Scores", "Settings", "Screenshots"}
    assert all(Path(p).is_relative_to(folder) for p in places.values()), places


def test_shortcuts_work_again_once_a_dialog_is_answered_with_the_keyboard(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    w = WhenModal(lambda box: QTimer.singleShot(0, lambda: _press(box, Qt.Key.Key_Return)))
    _choose(_menu(win, qtbot, "&Help"), qtbot, "About")
    w.stop()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=5000)
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)   # the window has the keys back, not nobody
    qtbot.keyClick(focused() or win, Qt.Key.Key_P)        # a menu shortcut, not a game key
    qtbot.waitUntil(lambda: win.view.pause_label == "PAUSED", timeout=5000)


def _open_remap(win, qtbot, act) -> None:
    """Input ▸ Remap keys… by the keyboard (Alt+I, Down, Return), ``act(dialog)`` once it is up."""
    w = WhenModal(act)
    activate(win, qtbot)
    qtbot.keyClick(focused() or win, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)  # Input menu
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    menu = QApplication.activePopupWidget()
    qtbot.keyClick(menu, Qt.Key.Key_Down)
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(w.seen), timeout=5000)
    w.stop()


def test_remap_dialog_captures_left_and_a(open_window, qtbot):
    from PySide6.QtTest import QTest

    win = open_window("pong")
    activate(win, qtbot)
    captured = {}

    def remap(dlg):
        e1, e2 = dlg.edits["fire"]
        QTest.mouseClick(e1, Qt.MouseButton.LeftButton)
        QTest.keyClick(focused(), Qt.Key.Key_Left)
        QTest.mouseClick(e2, Qt.MouseButton.LeftButton)
        QTest.keyClick(focused(), Qt.Key.Key_A)
        captured["fire"] = (e1.keySequence().toString(), e2.keySequence().toString())
        shot(dlg, "remap")
        captured["warning"] = dlg.warning.text()  # Left and A move left already
        from PySide6.QtWidgets import QDialogButtonBox

        ok = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        QTest.mouseClick(ok, Qt.MouseButton.LeftButton)
        captured["open_after_ok"] = dlg.isVisible()   # OK is refused while a key serves two controls
        captured["labels"] = [lb.text() for lb in dlg.findChildren(QLabel)]
        QTest.keyClick(dlg, Qt.Key.Key_Escape)   # cancel: the default keys stay

    _open_remap(win, qtbot, remap)
    assert captured["fire"] == ("Left", "A")
    assert captured["warning"].startswith("Left is set for both") and captured["open_after_ok"]
    assert "Colour / black && white" in captured["labels"]   # shown as "&", not as a mnemonic underline
    assert win.input.keymap.control_for(int(Qt.Key.Key_Left)) == "left"


def test_remap_keys_esc_cancels_delete_empties_and_the_windows_keys_are_refused(open_window, qtbot):
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialogButtonBox

    win = open_window("pong")
    seen = {}

    def press_esc(dlg):   # the first field has the keys as the dialog opens
        seen["clash"] = dlg.clash()
        QTest.keyClick(focused(), Qt.Key.Key_Escape)
        seen["open"] = dlg.isVisible()
        if dlg.isVisible():
            dlg.reject()   # (so that a failure fails, not hangs)

    _open_remap(win, qtbot, press_esc)
    assert seen == {"clash": "", "open": False}             # the default keys clash with nothing
    assert win.input.keymap.mapping["up"] == ["Up", "W"]

    def give_p(dlg):
        e1, e2 = dlg.edits["fire"]
        QTest.mouseClick(e2, Qt.MouseButton.LeftButton)
        QTest.keyClick(focused(), Qt.Key.Key_P)
        seen["warning"] = dlg.warning.text()
        QTest.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)
        seen["open"] = dlg.isVisible()
        QTest.mouseClick(e2, Qt.MouseButton.LeftButton)
        QTest.keyClick(focused(), Qt.Key.Key_Delete)
        seen["emptied"] = e2.keySequence().isEmpty() and dlg.warning.text() == ""
        QTest.keyClick(focused(), Qt.Key.Key_Escape)
        if dlg.isVisible():
            dlg.reject()

    _open_remap(win, qtbot, give_p)
    assert seen["warning"] == "P is the key of Pause: give “Fire button” another one." and seen["open"]
    assert seen["emptied"] and win.input.keymap.mapping["fire"] == ["Space"]


# -- b. one save slot -------------------------------------------------------------------------------------------
def test_f5_saves_and_f7_loads_the_same_slot(open_window, qtbot):
    import numpy as np

    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_P)           # pause, so the saved frame is the one on screen
    qtbot.waitUntil(lambda: win.worker.paused, timeout=5000)
    qtbot.wait(200)
    saved_frame = win.session.frame_number
    saved_screen = win.view.frame().copy()
    qtbot.keyClick(focused(), Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: "Saved to slot 1" in win.statusBar().currentMessage(), timeout=5000)
    assert "Saved to slot 1" in win.view.notice
    for _ in range(30):                              # move on: step thirty frames
        qtbot.keyClick(focused(), Qt.Key.Key_Period)
    qtbot.waitUntil(lambda: win.session.frame_number == saved_frame + 30, timeout=5000)
    qtbot.keyClick(focused(), Qt.Key.Key_F7)
    qtbot.waitUntil(lambda: win.session.frame_number == saved_frame, timeout=5000)
    qtbot.waitUntil(lambda: "Loaded slot 1" in win.view.notice, timeout=5000)
    assert "Slot 1" in win.view.corner
    assert win.last_error == ""
    qtbot.waitUntil(lambda: np.array_equal(win.view.frame(), saved_screen), timeout=5000)
    shot(win, "save-load")


def test_the_save_states_dock_acts_on_a_chosen_state_and_says_when_it_is_locked(open_window, qtbot, tmp_path):
    from test_journeys_agents import show_dock_tab

    win = open_window("pong", store=Store(tmp_path / "s.db"))
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: "Saved to slot 1" in win.view.notice, timeout=5000)
    dock = win.snapshots
    show_dock_tab(win, qtbot, "Save states")
    qtbot.waitUntil(lambda: dock.list.count() == 1 and in_sight(dock.list.viewport()), timeout=5000)
    load = dock.buttons["Load"]
    assert not load.isEnabled() and "Choose a state" in load.toolTip()   # nothing chosen: nothing to load
    new_session(win, qtbot, "ann")
    qtbot.waitUntil(lambda: getattr(win.session, "recording", False), timeout=30000)
    show_dock_tab(win, qtbot, "Save states")
    item = dock.list.item(0)
    qtbot.mouseClick(dock.list.viewport(), Qt.MouseButton.LeftButton, pos=dock.list.visualItemRect(item).center())
    assert load.isEnabled()
    click_into(qtbot, load)
    assert "Locked: no loading states" in win.view.notice
    assert getattr(win.session, "recording", False)


# -- c. a scored session is never ended silently ------------------------------------------------------------
def test_switching_game_mid_session_asks_first(open_window, qtbot, tmp_path):
    win, sess = scored_pong(open_window, qtbot, tmp_path)
    click_into(qtbot, win.library.search)
    qtbot.keyClicks(focused(), "breakout")
    viewport = win.library.list.viewport()
    # No: the session goes on; while the question was up its episode waited (frames and clock)
    no = answer(Qt.Key.Key_N)
    held = []

    def look_then_answer(box):
        held.append(sess.frame_number)
        QTimer.singleShot(500, lambda: (held.append(sess.frame_number), no(box)))

    w = WhenModal(look_then_answer)
    double_click(qtbot, viewport, library_row(win, qtbot, "breakout"))
    qtbot.waitUntil(lambda: bool(no.texts), timeout=5000)
    w.stop()
    assert "abandoned" in no.texts["text"] and "episode 1" in no.texts["text"].lower()
    assert held[1] - held[0] <= 1, held   # (at most the frame under way when the box opened)
    f = sess.frame_number
    qtbot.waitUntil(lambda: sess.frame_number > f + 10, timeout=10000)
    assert win.session is sess and not sess.complete
    # Yes: the game switches and the unfinished episode is abandoned
    yes = answer(Qt.Key.Key_Y)
    w = WhenModal(yes)
    double_click(qtbot, viewport, library_row(win, qtbot, "breakout"))
    w.stop()
    qtbot.waitUntil(lambda: win.session.info.id == "breakout", timeout=30000)
    assert not getattr(win.session, "recording", False)
    activate(win, qtbot)                            # (offscreen, nothing re-activates the window after the box)
    assert focused() is win.view                    # the game chosen is played with the keys at once
    qtbot.keyPress(focused(), Qt.Key.Key_Left)
    assert win.input.snapshot().left
    qtbot.keyRelease(focused(), Qt.Key.Key_Left)
    [ep] = win.store.episodes(session_id=sess.session_id, status=None)
    assert ep.status == "abandoned"
    shot(win, "switched")


def test_ending_a_session_from_the_menu_asks_first(open_window, qtbot, tmp_path):
    win, sess = scored_pong(open_window, qtbot, tmp_path)
    for key in (Qt.Key.Key_N, Qt.Key.Key_Y):
        said = answer(key)
        w = WhenModal(said)
        _choose(_menu(win, qtbot, "&Session"), qtbot, "End session")
        qtbot.waitUntil(lambda: bool(said.texts), timeout=5000)
        w.stop()
        assert "end the ALE 2013 beginner session" in said.texts["text"] and "abandoned" in said.texts["text"]
        if key == Qt.Key.Key_N:   # No: the episode goes on
            f = sess.frame_number
            qtbot.waitUntil(lambda: sess.frame_number > f + 10, timeout=10000)
            assert win.session is sess and sess.recording
    qtbot.waitUntil(lambda: not getattr(win.session, "recording", False), timeout=30000)
    assert "session ended with 0 finished episodes" in win.statusBar().currentMessage()
    [ep] = win.store.episodes(session_id=sess.session_id, status=None)
    assert ep.status == "abandoned"


def test_f2_leaves_a_finished_replay_for_the_game(open_window, qtbot, tmp_path):
    store = Store(tmp_path / "s.db")
    _finished_session(store)
    sid = _finished_session(store)   # its episodes are the store's 3rd and 4th
    win = open_window("pong", store=store)
    activate(win, qtbot)
    tree = win.sessions.tree
    top = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
               if tree.topLevelItem(i).text(0).startswith(f"#{sid} "))
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    qtbot.keyClick(focused(), Qt.Key.Key_Right)      # expand
    qtbot.keyClick(focused(), Qt.Key.Key_Down)
    qtbot.keyClick(focused(), Qt.Key.Key_Down)       # episode 2
    said = []
    win.statusBar().messageChanged.connect(said.append)
    seek = win.sessions.seek_row
    assert not seek.isVisible()                      # no replay: the lists have its height
    qtbot.mouseClick(win.sessions.buttons["Replay"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Replay finished" in win.statusBar().currentMessage(), timeout=30000)
    assert any(m.startswith(f"Replaying episode 2 of session #{sid} (human:ann") for m in said), said
    assert win.session.rec.id == 4
    replay = win.session
    qtbot.waitUntil(lambda: seek.isVisible() and win.sessions.seek_label.text().startswith("replay "),
                    timeout=5000)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_F5)         # a replay is watched, not played: said so, as a replay
    qtbot.waitUntil(lambda: "while watching a replay" in win.view.notice, timeout=5000)
    assert "scored session" not in win.view.notice
    qtbot.keyClick(focused(), Qt.Key.Key_F2)         # F2: the game itself, to play
    qtbot.waitUntil(lambda: win.session is not replay, timeout=10000)
    assert not hasattr(win.session, "rec") and win.session.info.id == "pong"
    qtbot.waitUntil(lambda: not seek.isVisible(), timeout=5000)
    f = win.session.frame_number
    qtbot.waitUntil(lambda: win.session.frame_number > f + 10, timeout=10000)
    qtbot.keyPress(focused(), Qt.Key.Key_Left)
    assert win.input.snapshot().left
    qtbot.keyRelease(focused(), Qt.Key.Key_Left)


# -- rough edges --------------------------------------------------------------------------------------------
def test_status_bar_counts_the_episode_frames_apart_from_the_console_frames(open_window, qtbot):
    import re

    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)

    def counts():
        m = re.fullmatch(r"frame (\d+) \((\d+) this episode\), score -?\d+", win.st_frame.text())
        assert m, win.st_frame.text()       # (Pong has no lives: none are shown)
        return int(m[1]), int(m[2])

    qtbot.waitUntil(lambda: counts()[1] > 200, timeout=10000)
    total, _ = counts()
    qtbot.keyClick(focused(), Qt.Key.Key_F2)         # RESET: a new game
    qtbot.waitUntil(lambda: counts()[1] < 100 and counts()[0] > total, timeout=5000)


def test_once_keys_move_the_paddle_a_passing_pointer_does_not(open_window, qtbot):
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    win = open_window("pong")                         # a paddle game
    activate(win, qtbot)
    click_into(qtbot, win.view)

    def at(fraction):   # (the picture's place now: the window may still be laying out its docks)
        r = win.view.target_rect()
        return QPoint(r.x() + int(fraction * r.width()), r.center().y())

    def pointer_to(widget, pos):   # the window system's pointer event, delivered to what lies under it
        QTest.mouseMove(widget.window().windowHandle(), widget.mapTo(widget.window(), pos))

    def near(fraction):
        return win.input.paddle is not None and abs(win.input.paddle - fraction) < 0.02

    pointer_to(win.view, at(0.25))
    pointer_to(win.view, at(0.75))
    qtbot.waitUntil(lambda: near(0.75), timeout=2000)
    qtbot.keyPress(focused(), Qt.Key.Key_Left)        # the keys take the paddle
    qtbot.keyRelease(focused(), Qt.Key.Key_Left)
    assert win.input.paddle is None
    pointer_to(win.view, at(0.3))                # the pointer crosses the view: nothing changes
    pointer_to(win.view, at(0.6))
    qtbot.wait(50)
    assert win.input.paddle is None
    qtbot.mouseClick(win.view, Qt.MouseButton.LeftButton, pos=at(0.4))   # a click gives it back
    assert near(0.4)
    pointer_to(win.view, at(0.9))
    qtbot.waitUntil(lambda: near(0.9), timeout=2000)


def test_pause_says_paused_on_the_view_and_in_the_status_bar(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.waitUntil(lambda: win.st_fps.text().endswith("fps"), timeout=5000)
    qtbot.keyClick(focused(), Qt.Key.Key_P)
    qtbot.waitUntil(lambda: win.view.pause_label == "PAUSED", timeout=5000)
    qtbot.wait(1200)                                 # long enough for two rounds of statistics
    assert win.st_fps.text() == "paused"
    shot(win, "paused")
    qtbot.keyClick(focused(), Qt.Key.Key_P)
    qtbot.waitUntil(lambda: win.view.pause_label == "" and win.st_fps.text().endswith("fps"), timeout=5000)


def test_scored_session_shows_refusals_and_a_permanent_badge(open_window, qtbot, tmp_path):
    import re

    win, _ = scored_pong(open_window, qtbot, tmp_path)
    click_into(qtbot, win.view)
    badge = r"SCORED · ALE 2013 beginner · episode 1/5 · [0-4]:[0-5]\d left"
    qtbot.waitUntil(lambda: re.fullmatch(badge, win.view.corner) is not None, timeout=5000)
    qtbot.keyClick(focused(), Qt.Key.Key_P)          # pause is locked
    f = win.session.frame_number
    qtbot.waitUntil(lambda: win.session.frame_number > f + 20, timeout=5000)   # frames (and ticks) go by
    assert "Locked: no pause" in win.view.notice
    qtbot.keyClick(focused(), Qt.Key.Key_F5)         # so are save states
    qtbot.waitUntil(lambda: "Locked: no save states" in win.view.notice, timeout=5000)
    assert re.fullmatch(badge, win.view.corner)
    shot(win, "scored")


def test_a_finished_session_is_saved_and_play_goes_on_freely(open_window, qtbot, tmp_path, monkeypatch):
    from dataclasses import replace

    from arcade_lab.agents.evaluation import presets

    monkeypatch.setitem(presets.PRESETS, "ale2013", replace(presets.PRESETS["ale2013"], max_frames=40, episodes=2))
    win, sess = scored_pong(open_window, qtbot, tmp_path)
    click_into(qtbot, win.view)
    qtbot.waitUntil(lambda: win.session is not sess, timeout=20000)   # both episodes ran out of frames
    assert sess.complete and len(sess.scores) == 2
    assert not getattr(win.session, "recording", False) and win.session.info.id == "pong"
    assert win.view.message.startswith("Session complete: 2 episodes")
    assert "Saved to the leaderboard" in win.view.message and "Free play now" in win.view.message
    shot(win, "session-complete")
    board = win.sessions.board
    qtbot.waitUntil(lambda: board.topLevelItemCount() == 1, timeout=5000)
    assert board.topLevelItem(0).text(2) == "human:ann"
    f = win.session.frame_number
    qtbot.keyClick(focused(), Qt.Key.Key_P)           # free play: pause is no longer locked
    qtbot.waitUntil(lambda: win.view.pause_label == "PAUSED", timeout=5000)
    assert "Locked" not in win.view.notice
    qtbot.keyClick(focused(), Qt.Key.Key_P)
    qtbot.waitUntil(lambda: win.session.frame_number > f + 10, timeout=5000)


def test_the_episode_being_played_shows_no_score_or_frames_yet(open_window, qtbot, tmp_path):
    win, _ = scored_pong(open_window, qtbot, tmp_path)
    tree = win.sessions.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=5000)
    top = tree.topLevelItem(0)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    qtbot.keyClick(focused(), Qt.Key.Key_Right)      # expand
    qtbot.waitUntil(lambda: tree.topLevelItem(0).isExpanded(), timeout=5000)
    row = tree.topLevelItem(0).child(0)
    f = win.session.frame_number
    qtbot.waitUntil(lambda: win.session.frame_number > f + 30, timeout=5000)   # it has frames, and no 0 says
    assert [row.text(c) for c in range(3)] == ["Episode 1 (being played)", "…", "…"]   # otherwise


def test_export_with_nothing_selected_says_so(open_window, qtbot, tmp_path):
    win = open_window("pong", store=Store(tmp_path / "s.db"))
    activate(win, qtbot)
    qtbot.mouseClick(win.sessions.buttons["Export…"], Qt.MouseButton.LeftButton)
    assert "Select a session" in win.statusBar().currentMessage()
    qtbot.mouseClick(win.sessions.buttons["Replay"], Qt.MouseButton.LeftButton)
    assert "Select an episode" in win.statusBar().currentMessage()


def test_window_cannot_be_made_smaller_than_its_docks_and_status_need(open_window, qtbot):
    win = open_window("pong")
    qtbot.waitUntil(lambda: win.agent_ui is not None, timeout=60000)
    win.resize(640, 480)
    qtbot.wait(100)
    assert win.width() >= 1000 and win.height() >= 620
    hint = win.minimumSizeHint()
    assert hint.width() <= 1366 and hint.height() <= 720   # still fits a laptop screen


def _rom_folder(tmp_path) -> Path:
    import shutil

    from arcade_lab.engine import roms

    folder = tmp_path / "my roms"
    folder.mkdir()
    shutil.copy(roms.rom_path("breakout"), folder / "breakout.bin")
    (folder / "broken.bin").write_bytes(b"\x00" * 1000)
    return folder


def open_rom(win, qtbot, path: Path | None) -> str:
    """File ▸ Open ROM… (Ctrl+O), the path typed into the file dialog and Enter (None: Escape); the
    folder the dialog started in."""
    from PySide6.QtTest import QTest

    seen = []

    def act(dlg):
        seen.append(dlg.directory().absolutePath())
        if path is None:
            QTest.keyClick(focused(), Qt.Key.Key_Escape)
            return
        QTest.keyClick(focused(), Qt.Key.Key_A, CTRL)
        QTest.keyClicks(focused(), str(path))
        QTest.keyClick(focused(), Qt.Key.Key_Return)

    w = WhenModal(act)
    qtbot.keyClick(focused() or win, Qt.Key.Key_O, CTRL)
    w.stop()
    activate(win, qtbot)
    return seen[0]


def test_a_rom_that_cannot_open_is_named_once_in_the_error(open_window, qtbot, tmp_path):
    folder = _rom_folder(tmp_path)
    win = open_window("pong")
    activate(win, qtbot)
    open_rom(win, qtbot, folder / "broken.bin")
    msg = win.statusBar().currentMessage()
    assert msg.count("broken.bin") == 1 and "impossible size" in msg, msg
    assert win.session.info.id == "pong"


def test_random_bytes_opened_as_a_rom_are_said_to_have_no_rules(open_window, qtbot, tmp_path):
    import numpy as np

    junk = tmp_path / "junk.bin"
    junk.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    win = open_window("pong")
    activate(win, qtbot)
    open_rom(win, qtbot, junk)
    qtbot.waitUntil(lambda: win.session.info.path == junk, timeout=10000)
    assert "no game rules" in win.statusBar().currentMessage() and "no game rules" in win.st_game.text()
    assert message_shown_whole(win)


def message_shown_whole(win) -> bool:
    """The status bar's message is not cut off: the game's fields give way to it, and the permanent
    fields beside it leave it room."""
    sb = win.statusBar()
    msg = sb.currentMessage()
    room = sb.width() - sum(w.width() + 8 for w in (win.st_audio, win.st_pad) if w.isVisible())
    return bool(msg) and not win.st_game.isVisible() and sb.fontMetrics().horizontalAdvance(msg) < room


@pytest.mark.parametrize("gamepads", [True, False])
def test_a_long_message_takes_the_whole_status_bar_and_gives_the_fields_back(open_window, qtbot, tmp_path,
                                                                           monkeypatch, gamepads):
    """Ctrl+P names the screenshot's path: too long to share the bar with the sound and gamepad fields, it
    takes the whole bar (and is the bar's tooltip whole), and the fields come back after it."""
    import time

    win = open_window("pong", gamepads=gamepads)     # (without gamepads the fields are narrow: one word)
    win.resize(1000, win.height())
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_P)            # paused: the frame number in the file name stays
    qtbot.waitUntil(lambda: win.view.pause_label == "PAUSED", timeout=5000)
    qtbot.wait(200)
    sb = win.statusBar()
    fields = sum(w.sizeHint().width() for w in (win.st_audio, win.st_pad))
    assert fields > 20, "no permanent fields to make room from"
    # a data folder whose name puts the message midway between the room beside the fields and the whole bar
    fm = sb.fontMetrics()
    base = (f"Screenshot saved: {tmp_path}//screenshots/pong-{time.strftime('%Y%m%d-%H%M%S')}"
            f"-f{win.session.frame_number}.png")
    name = "d" * ((sb.width() - fields // 2 - fm.horizontalAdvance(base)) // fm.horizontalAdvance("d"))
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path / name))
    qtbot.keyClick(focused(), Qt.Key.Key_P, CTRL)
    qtbot.waitUntil(lambda: sb.currentMessage().startswith("Screenshot saved"), timeout=5000)
    msg = sb.currentMessage()
    assert str(tmp_path / name) in msg and Path(msg.split(": ", 1)[1]).is_file()
    assert sb.fontMetrics().horizontalAdvance(msg) > sb.width() - fields  # it would not fit beside them
    assert message_shown_whole(win) and not win.st_audio.isVisible() and not win.st_pad.isVisible()
    assert sb.toolTip() == msg
    qtbot.waitUntil(lambda: sb.currentMessage() == "", timeout=8000)  # its 5 s are up
    assert win.st_audio.isVisible() and win.st_pad.isVisible() and sb.toolTip() == ""


def add_folder(win, qtbot, path: Path) -> None:
    """File ▸ Add ROM folder…, the path typed into the folder dialog and Enter."""
    from PySide6.QtTest import QTest

    def act(dlg):
        QTest.keyClick(focused(), Qt.Key.Key_A, CTRL)
        QTest.keyClicks(focused(), str(path))
        QTest.keyClick(focused(), Qt.Key.Key_Return)

    w = WhenModal(act)
    _choose(_menu(win, qtbot, "&File"), qtbot, "Add ROM folder")
    w.stop()
    activate(win, qtbot)


def test_adding_a_rom_folder_says_what_it_brought_and_an_empty_one_says_so(open_window, qtbot, tmp_path):
    win = open_window("pong")
    activate(win, qtbot)
    empty = tmp_path / "nothing here"
    empty.mkdir()
    (empty / "notes.txt").write_text("no ROMs")
    add_folder(win, qtbot, empty)
    qtbot.waitUntil(lambda: win.statusBar().currentMessage().startswith("No ROMs in "), timeout=5000)
    assert str(empty) in win.statusBar().currentMessage() and ".bin" in win.statusBar().currentMessage()
    add_folder(win, qtbot, _rom_folder(tmp_path))
    qtbot.waitUntil(lambda: "from my roms in the Games list" in win.statusBar().currentMessage(), timeout=5000)
    assert win.statusBar().currentMessage().startswith("1 ROM from my roms")   # (broken.bin is no ROM)


def test_mute_and_volume_keys_say_why_nothing_is_heard_without_a_sound_device(open_window, qtbot):
    win = open_window("pong")               # (audio off: the silent stand-in, as without PortAudio)
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_M)
    qtbot.waitUntil(lambda: win.statusBar().currentMessage().startswith("Muted"), timeout=5000)
    assert "(kept for later: silent (" in win.statusBar().currentMessage()
    qtbot.keyClick(focused(), Qt.Key.Key_M)
    qtbot.waitUntil(lambda: win.statusBar().currentMessage().startswith("Sound on (kept for later: silent ("),
                    timeout=5000)
    qtbot.keyClick(focused(), Qt.Key.Key_Minus)
    qtbot.waitUntil(lambda: win.statusBar().currentMessage().startswith("Volume "), timeout=5000)
    assert "(kept for later: silent (" in win.statusBar().currentMessage()


def test_open_rom_dialog_starts_in_the_folder_last_used(open_window, qtbot, tmp_path):
    folder = _rom_folder(tmp_path)
    win = open_window("pong")
    activate(win, qtbot)
    open_rom(win, qtbot, folder / "breakout.bin")
    qtbot.waitUntil(lambda: win.session.info.id == "breakout", timeout=30000)
    assert Path(open_rom(win, qtbot, None)) == folder


def _finished_session(store):
    from dataclasses import replace

    from arcade_lab.agents.evaluation.presets import PRESETS
    from arcade_lab.app.recording import RecordedSession
    from arcade_lab.app.session import InputFrame

    sess = RecordedSession("pong", replace(PRESETS["ale2013"], max_frames=20, episodes=2), store, "ann", seed=1)
    while not sess.complete:
        sess.step(InputFrame())
    return sess.session_id


def test_the_leaderboard_counts_complete_sessions_only(open_window, qtbot, tmp_path):
    from dataclasses import replace

    from arcade_lab.agents.evaluation.presets import PRESETS
    from arcade_lab.app.recording import RecordedSession
    from arcade_lab.app.session import InputFrame

    store = Store(tmp_path / "s.db")
    _finished_session(store)                              # ann: both of its 2 episodes
    short = RecordedSession("pong", replace(PRESETS["ale2013"], max_frames=20, episodes=3), store, "bob", seed=1)
    while len(short.scores) < 1:
        short.step(InputFrame())
    short.close()                                         # bob stopped after 1 of 3: no baseline
    win = open_window("pong", store=store)
    activate(win, qtbot)
    board = win.sessions.board
    rows = [[board.topLevelItem(i).text(c) for c in range(6)] for i in range(board.topLevelItemCount())]
    assert [(r[2], r[4]) for r in rows] == [("human:ann", "2")]
    assert not board.horizontalScrollBar().isVisible()        # every column in sight, in the dock's width


def test_sessions_dock_keeps_expansion_and_selection_on_refresh(open_window, qtbot, tmp_path):
    store = Store(tmp_path / "s.db")
    _finished_session(store)
    win = open_window("pong", store=store)
    activate(win, qtbot)
    tree = win.sessions.tree
    top = tree.topLevelItem(0)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    assert focused() is tree
    qtbot.keyClick(focused(), Qt.Key.Key_Right)      # expand
    qtbot.keyClick(focused(), Qt.Key.Key_Down)       # episode 1
    qtbot.keyClick(focused(), Qt.Key.Key_Down)       # episode 2
    assert tree.currentItem().text(0).startswith("Episode 2")
    assert "truncated" not in tree.currentItem().text(4)   # the When column says when
    qtbot.mouseClick(win.sessions.buttons["Refresh"], Qt.MouseButton.LeftButton)
    assert tree.topLevelItem(0).isExpanded()
    assert tree.currentItem() is not None and tree.currentItem().text(0).startswith("Episode 2")
    # given room (a tall window), the episodes get it rather than the leaderboard's few rows
    win.resize(win.width(), 1400)
    board = win.sessions.board
    qtbot.waitUntil(lambda: tree.height() > tree.minimumSizeHint().height() + 40, timeout=5000)
    assert tree.height() >= 1.8 * board.height(), (tree.height(), board.height())
    shot(win.sessions, "sessions")


# -- presentation mode --------------------------------------------------------------------------------------
def _docks_open(win) -> set:
    from PySide6.QtWidgets import QDockWidget

    return {d.objectName() for d in win.findChildren(QDockWidget) if not d.isHidden()}


def _white_pixels(widget, rect) -> int:
    """Pure white pixels of ``widget`` inside ``rect`` (the overlay's text; no game colour is pure white)."""
    img = widget.grab().toImage()
    return sum(img.pixelColor(x, y).rgb() & 0xFFFFFF == 0xFFFFFF
               for y in range(rect.top(), rect.bottom(), 2) for x in range(rect.left(), rect.right(), 2))


def test_f12_presents_only_the_game_and_esc_puts_every_dock_back(open_window, qtbot):
    from PySide6.QtWidgets import QAbstractButton, QDockWidget

    win = open_window("pong")
    activate(win, qtbot)
    qtbot.waitUntil(lambda: "agents" in _docks_open(win), timeout=60000)
    # the player closed the library with its dock's close button: it must stay closed afterwards
    close = win.library.findChild(QAbstractButton, "qt_dockwidget_closebutton")
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    before, geometry = _docks_open(win), win.geometry()
    assert "library" not in before and {"sessions", "agents"} <= before
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_F12)
    qtbot.waitUntil(lambda: not any(d.isVisible() for d in win.findChildren(QDockWidget)), timeout=5000)
    assert not win.menuBar().isVisible() and not win.statusBar().isVisible()
    qtbot.waitUntil(lambda: win.view.geometry() == win.rect(), timeout=5000)   # the game fills the window
    qtbot.waitUntil(lambda: not win.view.overlay_rect().isEmpty(), timeout=5000)
    box = win.view.overlay_rect()
    assert win.view.rect().contains(box) and box.height() > win.view.height() // 6
    assert not box.intersects(win.view.target_rect())                          # beside the game, not over it
    lines = win.view.overlay_lines
    assert lines[0] == "Pong" and lines[1].startswith("Score ") and len(lines) == 2   # Pong has no lives to count
    assert _white_pixels(win.view, box) > 50                                    # the score is drawn there
    assert win.view.corner == ""                                                # no key hints for an audience
    shot(win, "presentation")
    qtbot.keyClick(focused(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: _docks_open(win) == before, timeout=5000)
    assert win.menuBar().isVisible() and win.statusBar().isVisible() and not win.library.isVisible()
    qtbot.waitUntil(lambda: win.geometry() == geometry, timeout=5000)
    assert win.view.overlay_rect().isEmpty()
    # F12 again enters, and F12 leaves as well
    qtbot.keyClick(focused(), Qt.Key.Key_F12)
    qtbot.waitUntil(lambda: not win.sessions.isVisible() and not win.menuBar().isVisible(), timeout=5000)
    qtbot.keyClick(focused(), Qt.Key.Key_F12)
    qtbot.waitUntil(lambda: _docks_open(win) == before and win.menuBar().isVisible(), timeout=5000)


# -- race mode ----------------------------------------------------------------------------------------------
def _menu(win, qtbot, title: str):
    """Click ``title`` in the menu bar: the menu that opens."""
    bar = win.menuBar()
    act = next(a for a in bar.actions() if a.text() == title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(act).center())
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    return QApplication.activePopupWidget()


def _choose(menu, qtbot, prefix: str) -> None:
    """Arrow down through ``menu`` to the entry starting with ``prefix`` and press Return."""
    for _ in range(len(menu.actions()) + 1):
        qtbot.keyClick(menu, Qt.Key.Key_Down)
        if menu.activeAction() is not None and menu.activeAction().text().startswith(prefix):
            qtbot.keyClick(menu, Qt.Key.Key_Return)
            return
    raise AssertionError(f"no {prefix!r} in the menu")


def _pick(qtbot, combo, text: str) -> None:
    """Open a combo box with a click and pick ``text`` with the keys."""
    into_sight(qtbot, combo)
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    # keys go to the list once it has the focus (before, they would turn the closed box)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None and focused() is combo.view(),
                    timeout=5000)
    for _ in range(combo.count()):
        if combo.view().currentIndex().data() == text:
            break
        qtbot.keyClick(focused(), Qt.Key.Key_Down)
    qtbot.keyClick(focused(), Qt.Key.Key_Return)
    assert combo.currentText() == text


def _type_number(qtbot, spin, n: int) -> None:
    into_sight(qtbot, spin)
    qtbot.mouseClick(spin, Qt.MouseButton.LeftButton)
    qtbot.keyClick(focused(), Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(focused(), str(n))
    assert spin.value() == n


def _race_window():
    return next((w for w in QApplication.topLevelWidgets()
                 if w.isVisible() and w.windowTitle().startswith("Race —") and hasattr(w, "sides")), None)


def _start_race(win, qtbot, setup) -> None:
    """Agents ▸ Race mode…, the setup dialog answered by ``setup(dialog)``; returns once the race shows."""
    w = WhenModal(setup)
    _choose(_menu(win, qtbot, "A&gents"), qtbot, "Race mode")
    qtbot.waitUntil(lambda: _race_window() is not None, timeout=60000)
    w.stop()


def _frame_shown(side) -> int:
    import re

    m = re.match(r"frame (\d+) · ", side.speed.text())
    return int(m.group(1)) if m else -1


def test_race_setup_runs_the_chosen_agents_then_restarts_and_closes(open_window, qtbot):
    import threading

    from PySide6.QtWidgets import QDialogButtonBox

    threads0 = set(threading.enumerate())
    win = open_window("pong")
    activate(win, qtbot)
    qtbot.waitUntil(lambda: any(a.text() == "A&gents" for a in win.menuBar().actions()), timeout=60000)
    seen = {}

    def setup(dlg):
        _pick(qtbot, dlg.who["left"], "Random")
        assert not dlg.budget["left"].isEnabled()                 # random play has no budget
        _pick(qtbot, dlg.who["right"], "UCT")
        _type_number(qtbot, dlg.budget["right"], 4)
        _type_number(qtbot, dlg.seed, 7)
        _pick(qtbot, dlg.start, "Power-on (both consoles switched on fresh)")
        qtbot.mouseClick(dlg.keep_real_time, Qt.MouseButton.LeftButton)   # the exact budget, however slow
        seen["keep"] = dlg.keep_real_time.isChecked()
        shot(dlg, "race-setup")
        qtbot.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)

    _start_race(win, qtbot, setup)
    assert seen == {"keep": False}
    rw = _race_window()
    left, right = rw.sides
    assert left.title.text() == "RANDOM" and right.title.text() == "UCT · 4 simulations"
    assert "seed 7" in rw.info.text() and "power-on" in rw.info.text()
    assert right.driver.agent.simulations == 4 and right.session is not left.session
    # both consoles run, each showing its pace against the clock
    qtbot.waitUntil(lambda: all(_frame_shown(s) > 60 for s in rw.sides), timeout=60000)
    assert all("× real time" in s.speed.text() for s in rw.sides)
    qtbot.waitUntil(lambda: left.view.frames_painted > 10 and right.view.frames_painted > 10, timeout=10000)
    shot(rw, "race")
    # Restart: both consoles back at the start, with the same players
    old = list(rw.sides)
    qtbot.mouseClick(rw.buttons["Restart"], Qt.MouseButton.LeftButton)
    assert all(not s.worker.isRunning() for s in old)
    new_left, new_right = rw.sides
    assert new_left is not left and new_right.title.text() == "UCT · 4 simulations"
    qtbot.waitUntil(lambda: all(0 < _frame_shown(s) < 60 for s in rw.sides), timeout=30000)
    # Close: both emulators stop and nothing of the race is left running
    qtbot.mouseClick(rw.buttons["Close"], Qt.MouseButton.LeftButton)
    assert not rw.isVisible() and _race_window() is None
    assert all(not s.worker.isRunning() for s in rw.sides)   # (the first pair stopped at the restart)
    assert rw not in win.agent_ui.races
    qtbot.waitUntil(lambda: not [t for t in threading.enumerate() if t not in threads0 and t.is_alive()
                                 and not t.daemon], timeout=10000)


def test_a_race_the_keyboard_plays_pauses_the_game_and_closing_it_gives_the_game_back(open_window, qtbot):
    from PySide6.QtWidgets import QDialogButtonBox

    win = open_window("pong")
    activate(win, qtbot)
    qtbot.waitUntil(lambda: any(a.text() == "A&gents" for a in win.menuBar().actions()), timeout=60000)

    def setup(dlg):
        _pick(qtbot, dlg.who["left"], "Human (keyboard)")
        _pick(qtbot, dlg.who["right"], "Random")
        qtbot.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)

    _start_race(win, qtbot, setup)
    rw = _race_window()
    assert win.pause_action.isChecked()              # the keys play the race, the game waits
    qtbot.waitUntil(lambda: all(_frame_shown(s) > 30 for s in rw.sides), timeout=60000)
    qtbot.mouseClick(rw.buttons["Close"], Qt.MouseButton.LeftButton)
    assert not win.pause_action.isChecked()
    frame = win.session.frame_number
    qtbot.waitUntil(lambda: win.session.frame_number > frame + 30, timeout=10000)


def test_verify_result_has_a_line_of_its_own_in_the_sessions_dock(open_window, qtbot, tmp_path):
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QLabel

    store = Store(tmp_path / "s.db")
    sid = _finished_session(store)
    win = open_window("pong", store=store)
    activate(win, qtbot)
    tree = win.sessions.tree
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                     pos=tree.visualItemRect(tree.topLevelItem(0)).center())
    qtbot.mouseClick(win.sessions.buttons["Verify"], Qt.MouseButton.LeftButton)
    result = win.sessions.findChild(QLabel, "verify_result")
    qtbot.waitUntil(lambda: result.isVisible(), timeout=30000)
    assert result.text() == f"Session {sid}: 2/2 episodes confirmed by replay"
    # laid out whole, clear of the buttons above it and of the status bar's figures
    qtbot.waitUntil(lambda: result.height() >= result.heightForWidth(result.width()), timeout=5000)
    where = QRect(result.mapTo(win, result.rect().topLeft()), result.size())
    assert not where.intersects(win.statusBar().geometry())
    verify = win.sessions.buttons["Verify"]
    assert not where.intersects(QRect(verify.mapTo(win, verify.rect().topLeft()), verify.size()))
    assert "confirmed" not in win.statusBar().currentMessage()
    qtbot.waitUntil(lambda: tree.topLevelItem(0).text(3) == "2/2", timeout=5000)   # the session's row counts them
    shot(win.sessions, "verify")


def _yellow_columns(widget, top: int):
    """Per column of ``widget``'s picture from row ``top`` down: whether any pixel is the banner's
    yellow text."""
    import numpy as np
    from PySide6.QtGui import QImage

    img = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = img.width(), img.height()
    px = np.frombuffer(img.constBits(), np.uint8).reshape(h, img.bytesPerLine())[:, :3 * w]
    px = px.reshape(h, w, 3)[top:].astype(int)
    yellow = (px[..., 0] > 120) & (px[..., 0] - px[..., 2] > 60) & (px[..., 1] > 0.6 * px[..., 0])
    return yellow.any(axis=0)


def test_game_over_banner_fits_the_view_in_a_large_and_a_small_window(open_window, qtbot):
    win = open_window("pong")
    activate(win, qtbot)
    win.resize(1600, 1000)
    game = _menu(win, qtbot, "&Game")
    _choose(game, qtbot, "Speed")
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() not in (None, game), timeout=5000)
    _choose(QApplication.activePopupWidget(), qtbot, "Unthrottled")   # the computer wins 21-0, quickly
    qtbot.waitUntil(lambda: win.view.message.startswith("GAME OVER"), timeout=180000)
    for size in ((1600, 1000), (1024, 640)):
        win.resize(*size)
        qtbot.waitUntil(lambda: win.width() == size[0], timeout=5000)
        banner = win.view.message_rect()
        assert win.view.rect().contains(banner)
        cols = _yellow_columns(win.view, banner.top())
        assert cols.sum() > 50 and not cols[:6].any() and not cols[-6:].any(), f"clipped at {size}"
    shot(win, "game-over")


def test_deleting_a_save_state_asks_first_and_no_keeps_it(open_window, qtbot):
    from test_journeys_agents import show_dock_tab

    win = open_window("pong")
    activate(win, qtbot)
    click_into(qtbot, win.view)
    qtbot.keyClick(focused(), Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: "Saved to slot 1" in win.view.notice, timeout=5000)
    dock = win.snapshots
    show_dock_tab(win, qtbot, "Save states")
    qtbot.waitUntil(lambda: dock.list.count() == 1 and in_sight(dock.list.viewport()), timeout=5000)
    item = dock.list.item(0)
    qtbot.mouseClick(dock.list.viewport(), Qt.MouseButton.LeftButton, pos=dock.list.visualItemRect(item).center())
    path = win.slots.path(win.session.info.md5, 1)
    for key, kept in ((Qt.Key.Key_Return, True), (Qt.Key.Key_Y, False)):   # Return takes the default: No
        said = answer(key)
        w = WhenModal(said)
        activate(win, qtbot)
        qtbot.mouseClick(dock.buttons["Delete"], Qt.MouseButton.LeftButton)
        w.stop()
        assert "Slot 1" in said.texts["text"] and "Pong" in said.texts["text"]
        assert path.exists() == kept and dock.list.count() == (1 if kept else 0)
