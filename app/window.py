"""The main window: game view in the centre, library on the side, menus and a status bar."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QSettings, Qt, QThread, QTimer
from PySide6.QtGui import QAction, QActionGroup, QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMessageBox, QToolBar

from arcade_lab.engine.roms import ROM_SUFFIXES, RomError, rom_path

from .audio import open_audio
from .gamepad import Gamepads
from .input import InputState, KeyFilter, KeyMap, RemapDialog
from .panels.library import LibraryPanel, scan
from .panels.sessions import NewSessionDialog, SessionsPanel
from .panels.snapshots import SnapshotsPanel
from .places import ORG, app_settings, screenshot_dir
from .statefile import Slots, StateFileError
from .screen import GameView
from .session import PlaySession
from .thumbnails import ThumbnailLoader
from .worker import SPEEDS, EmulatorWorker

APP = "Arcade Lab"
BANNER_MS = 12_000  # how long a finished session's summary stays over the game


def _without(reason: str, path: str) -> str:
    """``reason`` less a leading ``path: `` (the ROM loader names the file; the window already did)."""
    return reason[len(path) + 2:] if reason.startswith(path + ": ") else reason


def _set_brief(label: QLabel, state: str, extra: str = "") -> None:
    """A permanent status field: its state's first words ("silent", "sound on", "no gamepad connected"),
    with the whole of it, the reason in brackets included, as the tooltip."""
    brief = state.split(" (")[0] + (f", {extra}" if extra else "")
    if label.text() != brief:
        label.setText(brief)
    full = state + (f"; {extra}" if extra else "")
    if label.toolTip() != full:
        label.setToolTip(full)


def _recent_key(sess, target) -> str:
    """How Recent games and the next start name a game: by its id where ``target`` is the catalog's own ROM
    for it (the library opens the file, the command line names the id: one entry either way), else by path."""
    key = str(target)
    try:
        if Path(key).resolve() == rom_path(sess.info.id).resolve():
            return sess.info.id
    except (RomError, OSError):
        pass
    return key


class MainWindow(QMainWindow):
    def __init__(self, *, audio=True, settings: QSettings | None = None, thumbnails: bool = True,
                 extra_paths=(), gamepads: bool = True, store=None):
        from .qt_refcount_guard import guard

        guard()  # PySide6 6.12 drains None's refcount in paint calls (see the module); before any painting
        super().__init__()
        self.settings = settings or app_settings()
        self.setWindowTitle(APP)
        self.view = GameView(self)
        self.setCentralWidget(self.view)
        self._banner = ""   # shown over the next game loaded (a finished session's summary)
        self.input = InputState(KeyMap.load(self.settings))
        self.key_filter = KeyFilter(self.input, self)
        QApplication.instance().installEventFilter(self.key_filter)
        self.audio = open_audio(audio and self.settings.value("audio/enabled", True, type=bool))
        self.audio.volume = float(self.settings.value("audio/volume", 0.6))
        self.audio.muted = self.settings.value("audio/muted", False, type=bool)
        self.worker = EmulatorWorker(self.input, self.audio, self)
        self.gamepads = Gamepads(self.input) if gamepads else None
        self.worker.gamepads = self.gamepads if (self.gamepads and self.gamepads.available) else None
        self.view.mouse_x.connect(self._on_mouse_x)
        self.view.mouse_press.connect(self._on_mouse_press)
        self.worker.frame_ready.connect(self._on_frame, Qt.ConnectionType.QueuedConnection)
        self.worker.session_loaded.connect(self._on_session, Qt.ConnectionType.QueuedConnection)
        self.worker.error.connect(self._on_error, Qt.ConnectionType.QueuedConnection)
        self.worker.stats.connect(self._on_stats, Qt.ConnectionType.QueuedConnection)
        self.library = LibraryPanel(self, settings=self.settings)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library)
        self.library.game_chosen.connect(self.open_game)
        self.library.folder_added.connect(self._add_folder)
        self.extra_paths = list(extra_paths) + [p for p in self.settings.value("library/folders", [], type=list) if p]
        self.session: PlaySession | None = None
        self.last_error = ""
        self.startup_notice = ""
        self.store = store if store is not None else self._open_store()
        self.slots = Slots()
        self.slot = 1
        self.snapshots = SnapshotsPanel(self.slots, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.snapshots)
        self.snapshots.load_requested.connect(self.load_state)
        self.snapshots.error.connect(self._on_error)
        self.snapshots.done.connect(lambda msg: self.statusBar().showMessage(msg, 5000))
        self.sessions = SessionsPanel(self.store, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.sessions)
        self.sessions.export_requested.connect(self.export_session)
        self.sessions.verify_requested.connect(self.verify_session)
        self.sessions.export_episodes_requested.connect(self.export_episodes)
        self.sessions.verify_episodes_requested.connect(self.verify_episodes)
        self.sessions.replay_requested.connect(self.replay_episode)
        self.sessions.seek_requested.connect(self.seek_replay)
        self.sessions.hint.connect(lambda msg: self.statusBar().showMessage(msg, 5000))
        self.sessions.follow(lambda: self.session)
        # states and sessions share a tab group: the right column keeps room for the agents' docks
        self.tabifyDockWidget(self.snapshots, self.sessions)
        self.sessions.raise_()
        self.sessions.refresh()
        self.worker.notice.connect(self._on_notice, Qt.ConnectionType.QueuedConnection)
        self.input.refused.connect(self.refuse)
        self._build_status()
        self._build_menus()
        self._thumbs: ThumbnailLoader | None = None
        self.refresh_library(thumbnails, defer=True)
        self.input.toggled.connect(self._on_toggle)
        geo = self.settings.value("window/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        else:
            self.resize(1180, 760)
        # below this the docks and the status bar's figures are cut off; it still fits a 1366x768 laptop
        self.setMinimumSize(1024, 640)
        self.view.aspect_tv = self.settings.value("view/tv_aspect", False, type=bool)
        self.tv_action.setChecked(self.view.aspect_tv)
        self.worker.start()
        self._status_timer = QTimer(self)
        self._status_timer.timeout.connect(self._refresh_status)
        self._status_timer.start(250)
        if self.startup_notice:
            self.statusBar().showMessage(self.startup_notice, 15000)
        # The Agents/Training/Scores docks cost ~1 s (pyqtgraph and its plots): they are added just after
        # the first frame is on screen, or earlier when something asks for them.
        self._agent_ui = None
        self._agent_ui_scheduled = False
        self._presentation: dict | None = None   # what presentation mode hid, while it runs
        self._closing = False
        self.ask_before_leaving = True   # (test teardown turns it off)

    def _open_store(self):
        """The episode store; a crash's leftovers are marked now, and the player is told. A store that
        cannot be opened disables recording but never the app."""
        from arcade_lab.agents.evaluation.store import Store, StoreError

        try:
            st = Store()
        except StoreError as e:
            self.startup_notice = f"Sessions are disabled: {e}"
            return None
        lost = st.recover()
        if lost:
            self.startup_notice = (f"{len(lost)} episode(s) interrupted last time (the app was closed or crashed "
                                   f"mid-episode) were marked abandoned; earlier episodes are intact.")
        return st

    # -- building ---------------------------------------------------------------------------------------
    def _build_status(self) -> None:
        sb = self.statusBar()
        self.st_game = QLabel("no game")
        self.st_mode = QLabel("")
        self.st_frame = QLabel("")
        self.st_fps = QLabel("")
        self.st_audio = QLabel("")
        self.st_pad = QLabel("")
        # The game's fields give way to a message while it shows (Qt hides a status bar's normal widgets
        # then); the permanent fields stay, so they are kept to a word or two, the details in tooltips.
        for w in (self.st_game, self.st_mode, self.st_frame, self.st_fps):
            sb.addWidget(w)
        for w in (self.st_audio, self.st_pad):
            sb.addPermanentWidget(w)
        _set_brief(self.st_audio, self.audio.state)
        sb.messageChanged.connect(self._make_room)

    def _make_room(self, msg: str) -> None:
        """A message longer than the room the permanent fields leave it (a file's path, an error) hides
        them while it shows, and is the status bar's tooltip whole (a path can outrun any window)."""
        sb = self.statusBar()
        fields = (self.st_audio, self.st_pad)
        beside = sb.width() - sum(w.sizeHint().width() + 12 for w in fields) - 16
        wide = bool(msg) and sb.fontMetrics().horizontalAdvance(msg) > beside
        for w in fields:
            w.setVisible(not wide)
        sb.setToolTip(msg)

    def _act(self, menu, text, slot, shortcut=None, checkable=False) -> QAction:
        a = QAction(text, self)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
        a.setCheckable(checkable)
        a.triggered.connect(slot)
        menu.addAction(a)
        self.addAction(a)
        return a

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._act(f, "Find a game", self.find_game, "Ctrl+F")
        self._act(f, "Open ROM…", self.library._open_file, "Ctrl+O")
        self._act(f, "Add ROM folder…", self.library._open_folder)
        self.recent_menu = f.addMenu("Recent games")
        self._act(f, "Save screenshot", self.save_screenshot, "Ctrl+P")
        f.addSeparator()
        self._act(f, "Quit", self.close, "Ctrl+Q")
        g = mb.addMenu("&Game")
        self.pause_action = self._act(g, "Pause", self.toggle_pause, "P", checkable=True)
        self._act(g, "Step one frame", self.step_frame, ".")
        self._act(g, "Restart game (ALE reset)", self.restart, "Ctrl+R")
        sp = g.addMenu("Speed")
        grp = QActionGroup(self)
        self.speed_actions: dict = {}   # speed (None: unthrottled) -> its menu entry
        for v in SPEEDS:
            a = self._act(sp, f"{v:g}×", lambda checked=False, v=v: self.set_speed(v), checkable=True)
            grp.addAction(a)
            a.setChecked(v == 1.0)
            self.speed_actions[v] = a
        a = self._act(sp, "Unthrottled", lambda checked=False: self.set_speed(None), checkable=True)
        grp.addAction(a)
        self.speed_actions[None] = a
        g.addSeparator()
        # (a menu action's `checked` must never arrive as the slot: both keys use the current one)
        self._act(g, "Save state", lambda: self.save_state(), "F5")
        self._act(g, "Load state", lambda: self.load_state(), "F7")
        self.slot_menu = g.addMenu("State slot")
        self.slot_menu.aboutToShow.connect(self._build_slot_menu)
        self._act(g, "Rewind: hold Backspace", lambda: self.statusBar().showMessage(
            "Hold Backspace to run time backwards; release to play on from there", 4000))
        g.addSeparator()
        self.mode_menu = g.addMenu("Mode")
        self.diff_menu = g.addMenu("Difficulty")
        v = mb.addMenu("&View")
        self._act(v, "Fullscreen", self.toggle_fullscreen, "F11")
        self.present_action = self._act(v, "Presentation mode", self.toggle_presentation, "F12", checkable=True)
        # Esc leaves presentation mode; enabled only while presenting, so Esc keeps its meaning elsewhere
        self.leave_presentation_action = QAction("Leave presentation mode", self)
        self.leave_presentation_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.leave_presentation_action.setEnabled(False)
        self.leave_presentation_action.triggered.connect(self._leave_presentation)
        self.addAction(self.leave_presentation_action)
        self.tv_action = self._act(v, "4:3 TV aspect", self.toggle_tv, checkable=True)
        pal_menu = v.addMenu("Palette")
        grp_p = QActionGroup(self)
        self.palette_choice = self.settings.value("view/palette", "Auto")
        for name in ("Auto", "NTSC", "PAL", "SECAM"):
            a = self._act(pal_menu, name, lambda checked=False, n=name: self.set_palette_choice(n), checkable=True)
            grp_p.addAction(a)
            a.setChecked(name == self.palette_choice)
        self.lib_action = self.library.toggleViewAction()
        v.addAction(self.lib_action)
        s = mb.addMenu("&Session")
        self._act(s, "New session…", self.new_session_dialog, "Ctrl+N")
        self._act(s, "End session", self.end_session)
        self._act(s, "Export session…", lambda: self.export_session(self._current_session_id()))
        self._act(s, "Verify session", lambda: self.verify_session(self._current_session_id()))
        s.addAction(self.sessions.toggleViewAction())
        s.addAction(self.snapshots.toggleViewAction())
        i = mb.addMenu("&Input")
        self._act(i, "Remap keys…", self.remap_keys)
        a = mb.addMenu("&Audio")
        self.mute_action = self._act(a, "Mute", self.toggle_mute, "M", checkable=True)
        self.mute_action.setChecked(self.audio.muted)
        self._act(a, "Volume up", lambda: self.change_volume(0.1), "+")
        self._act(a, "Volume down", lambda: self.change_volume(-0.1), "-")
        h = mb.addMenu("&Help")
        self._act(h, "Keys and controls…", self.show_keys)
        self._act(h, "About Arcade Lab…", self.show_about)
        self._refresh_recent()

    # -- help ---------------------------------------------------------------------------------------------
    def find_game(self) -> None:
        """The Games dock's search, keys in it (shown first if closed): type, Up/Down, Return plays."""
        self.library.show()
        self.library.raise_()
        self.library.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.library.search.selectAll()

    def keys_text(self) -> str:
        """The controls as the key map has them now, and every menu shortcut."""
        from .input import HELD, LABELS, TOGGLES

        km = self.input.keymap.mapping
        lines = [f"{LABELS[c]}: {' or '.join(km.get(c, [])) or 'no key'}" for c in HELD + TOGGLES]
        lines.append("Paddle games also follow the mouse over the game; after the keys have moved the paddle, "
                     "click in the game to hand it back to the mouse.")
        lines.append("")

        def walk(menu):
            for a in menu.actions():
                if a.menu() is not None:
                    walk(a.menu())
                elif not a.shortcut().isEmpty():
                    key = a.shortcut().toString()
                    name = a.text().replace("&", "").rstrip("…").replace(f" ({key})", "")   # (named once)
                    lines.append(f"{name}: {key}")
        for top in self.menuBar().actions():
            if top.menu() is not None:
                walk(top.menu())
        return "\n".join(lines)

    def show_keys(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, f"Keys — {APP}", self.keys_text(), parent=self)
        box.setInformativeText("Input → Remap keys… changes the game's keys.")
        box.exec()

    def show_about(self) -> None:
        from arcade_lab import __version__

        where = [f"Scores: {self.store.path}" if self.store is not None else "Scores: not stored (no database)",
                 f"Settings: {self.settings.fileName()}", f"Screenshots: {screenshot_dir()}"]
        QMessageBox.about(self, f"About {APP}",
                          f"{APP} {__version__}: play Atari 2600 games, record human baselines, watch agents "
                          "play, with an emulator that reproduces ALE (ale-py 0.12.1) frame for frame.\n\n"
                          + "\n".join(where))

    # -- library ----------------------------------------------------------------------------------------
    def refresh_library(self, thumbnails: bool = True, defer: bool = False) -> None:
        """Fill the library; thumbnails render in a thread. ``defer``: start that thread once the first
        game frame is on screen (it competes for the GIL and the GUI thread with the start-up), or after
        a few seconds when no game opens."""
        infos, errors = scan(self.extra_paths)
        self.library.populate(infos)
        if thumbnails and infos:
            if self._thumbs is not None:
                self._thumbs.stop()
                self._thumbs.wait(2000)
            self._thumbs = ThumbnailLoader(infos, self)
            self._thumbs.ready.connect(self.library.set_thumbnail)
            if defer:
                QTimer.singleShot(5000, self, self._start_thumbnails)
            else:
                self._start_thumbnails()

    @property
    def _thumbs_pending(self) -> bool:
        """A thumbnail thread made but not started yet."""
        return self._thumbs is not None and not (self._thumbs.isRunning() or self._thumbs.isFinished())

    def _start_thumbnails(self) -> None:
        if self._thumbs_pending and not self._closing:
            self._thumbs.start(QThread.Priority.LowPriority)

    def _add_folder(self, path: str) -> None:
        """Add a folder of ROMs to the library, and say how many it brought (none: which files count)."""
        if path not in self.extra_paths:
            self.extra_paths.append(path)
            self.settings.setValue("library/folders", [p for p in self.extra_paths])
        self.refresh_library()
        here = Path(path).resolve()
        found = sum(1 for i in self.library.infos if i.path is not None and Path(i.path).resolve().parent == here)
        if found:
            self.statusBar().showMessage(f"{found} ROM{'s' if found > 1 else ''} from {here.name} in the Games list", 6000)
        else:
            suffixes = ", ".join(sorted(ROM_SUFFIXES))
            self.statusBar().showMessage(f"No ROMs in {here} (the Games list takes files ending {suffixes}); "
                                         "it is looked in again at every start", 10000)

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for p in self.settings.value("recent", [], type=list)[:10]:
            act = QAction(Path(p).name if Path(p).suffix else p, self)
            act.triggered.connect(lambda checked=False, p=p: self.open_game(p))
            self.recent_menu.addAction(act)

    def _remember(self, key: str) -> None:
        rec = [key] + [p for p in self.settings.value("recent", [], type=list) if p != key]
        self.settings.setValue("recent", rec[:10])
        self.settings.setValue("last_game", key)
        self._refresh_recent()

    # -- games --------------------------------------------------------------------------------------------
    def open_game(self, what, *, ask: bool = True, **kw) -> bool:
        """Load a game (RomInfo, id or path). A bad ROM shows an error and the current game keeps running;
        during a scored session the player is asked first (``ask``)."""
        target = what.path if hasattr(what, "path") else what
        try:
            sess = PlaySession(str(target), **kw)
        except Exception as e:
            self._on_error(f"Cannot open {target}: {_without(str(e), str(target))}")
            return False
        unknown = "" if sess.has_rules else " (a ROM with no game rules: no score, no game over)"
        if ask and not self.confirm_leave(f"Open {sess.info.title}{unknown}"):
            return False
        self.worker.set_session(sess)
        self._remember(_recent_key(sess, target))
        if unknown:
            self.statusBar().showMessage(f"{sess.info.title}: no game rules, so no score and no game over "
                                         "(is it an Atari 2600 ROM?)", 8000)
        return True

    def _replaying(self) -> bool:
        from .recording import ReplaySession

        return isinstance(self.session, ReplaySession)

    def restart(self) -> None:
        if self._replaying():  # F2 leaves a replay for the game itself
            self.open_game(self.session.info.path, ask=False)
            return
        if self.locked("switches", "restart"):
            return
        if self.session is not None:
            self.worker.call(lambda s: s.env.reset())

    def _palette_for(self, sess: PlaySession):
        from arcade_lab.engine.palettes import PALETTES

        return sess.palette() if self.palette_choice == "Auto" else PALETTES[self.palette_choice]

    def set_palette_choice(self, name: str) -> None:
        self.palette_choice = name
        self.settings.setValue("view/palette", name)
        if self.session is not None:
            self.view.set_palette(self._palette_for(self.session))
            self.view.update()

    def _on_mouse_x(self, fraction: float) -> None:
        if self.session is not None and self.session.uses_paddles and self.input.mouse_has_paddle:
            self.input.paddle = fraction

    def _on_mouse_press(self, fraction: float) -> None:
        self.input.mouse_has_paddle = True   # a click in the view gives the paddle back to the mouse
        self._on_mouse_x(fraction)

    def _on_session(self, sess: PlaySession) -> None:
        self.session = sess
        self.input.switches_locked = "switches" in sess.locks
        self.input.rewind_locked = "rewind" in sess.locks
        if "pause" in sess.locks:
            self.pause_action.setChecked(False)
        if "speed" in sess.locks:
            self._tick_speed(1.0)   # the worker put the game back to real time
        self.snapshots.set_game(sess.info.md5, sess.info.title)
        self.library.show_current(sess.info.md5)
        self.sessions.refresh()
        self.view.set_palette(self._palette_for(sess))
        self.view.message, self._banner = self._banner, ""
        if self.view.message:
            QTimer.singleShot(BANNER_MS, self, lambda m=self.view.message: self._clear_message(m))
        if QApplication.activeModalWidget() is None:
            self.view.setFocus()  # a game chosen in the library (or a replay) is played with the keys at once
        self.view.set_corner("")
        self._show_slot()
        self.st_game.setText(f"{sess.info.title} ({sess.info.id})" + ("" if sess.has_rules else " — no game rules"))
        self.setWindowTitle(f"{sess.info.title} — {APP}")
        self._build_mode_menus(sess)

    def _clear_message(self, text: str) -> None:
        if self.view.message == text:
            self.view.message = ""
            self.view.update()   # (a paused game paints no frame that would clear it)

    def _build_mode_menus(self, sess: PlaySession) -> None:
        self.mode_menu.clear()
        grp = QActionGroup(self)
        for m in sess.env.available_modes():
            a = QAction(str(m), self, checkable=True)
            a.setChecked(m == sess.env.mode)
            a.triggered.connect(lambda checked=False, m=m: self._tick(self.mode_menu, sess.env.mode)
                                if self.locked("mode", "mode change") else self.open_game(sess.info.path, mode=m))
            grp.addAction(a)
            self.mode_menu.addAction(a)
        self.diff_menu.clear()
        grp2 = QActionGroup(self)
        for d in sess.env.available_difficulties():
            a = QAction(str(d), self, checkable=True)
            a.setChecked(d == sess.difficulty)
            a.triggered.connect(lambda checked=False, d=d: self._tick(self.diff_menu, sess.difficulty)
                                if self.locked("mode", "difficulty change")
                                else self.worker.call(lambda s: s.env.set_difficulty(d)))
            grp2.addAction(a)
            self.diff_menu.addAction(a)

    @property
    def agent_ui(self):
        if self._agent_ui is None:
            from .panels.agents import install_agent_ui  # agents, training, scores, race

            self._agent_ui = install_agent_ui(self)
        return self._agent_ui

    def _install_agent_ui_later(self) -> None:
        if not self._agent_ui_scheduled:
            self._agent_ui_scheduled = True
            QTimer.singleShot(0, self, self._late_agent_ui)  # the window as context: never after it is gone

    def _late_agent_ui(self) -> None:
        if not self._closing:
            self.agent_ui  # noqa: B018  (the property builds the docks)
            # Start-up is over: numba, Qt and pyqtgraph left ~180 000 long-lived objects, and every full
            # collection walked them all (80-150 ms in the GUI thread, dropped frames). Frozen, they are
            # never scanned again; what the app allocates later is collected as usual. (No collect()
            # first: a forced collection here would only move the pause, and what little garbage exists
            # now stays — once.)
            import gc

            gc.freeze()

    def _on_frame(self, frame_number: int) -> None:
        frame, n = self.worker.take_frame()
        if frame is not None:
            self.view.show_frame(frame)
            if self.view.frames_painted:
                # the rest of start-up waits until the first frame is on screen: a queued call made
                # before that paint would run ahead of it (the agent docks take ~0.5 s to build)
                self._install_agent_ui_later()
                self._start_thumbnails()  # (only when one is pending)
        sess = self.session
        if sess is not None:
            self._drain_events(sess)
            if getattr(sess, "recording", False) or hasattr(sess, "rec"):
                pass  # recorded sessions and replays set their own message in _drain_events
            elif sess.game_over:
                self.view.message = "GAME OVER — press RESET (F2) to play again"
            elif self.view.message.startswith("GAME OVER"):
                self.view.message = ""
            self._update_overlay()

    def _on_notice(self, msg: str) -> None:
        self.statusBar().showMessage(msg, 3000)
        self.view.flash(msg)
        if msg.startswith("Saved to slot"):
            self.snapshots.refresh()  # the file exists now (written on the emulator thread)

    def _on_error(self, msg: str) -> None:
        self.last_error = msg
        self.statusBar().showMessage(msg.split("\n")[0], 10000)
        if not QApplication.instance().property("quiet_errors"):
            QMessageBox.warning(self, APP, msg.split("\n")[0])

    def _on_stats(self, st: dict) -> None:
        if self.worker.paused:
            return  # (the last figure would claim the paused game still runs at full speed)
        self.st_fps.setText(f"{st['fps']:.1f} fps")
        _set_brief(self.st_audio, st["audio"], f"{st['underruns']} underruns" if st["underruns"] else "")

    def _on_toggle(self, control: str, on: bool) -> None:
        sess = self.session
        if sess is None:
            return
        if control == "color":
            self.worker.call(lambda s: setattr(s, "color", on))
            self.statusBar().showMessage("Colour" if on else "Black & white", 2000)
        else:
            player = 0 if control == "difficulty_left" else 1
            self.worker.call(lambda s: s.set_difficulty_bit(player, on))
            side = "Left" if player == 0 else "Right"
            self.statusBar().showMessage(f"{side} difficulty {'A' if on else 'B'}", 2000)

    def _refresh_status(self) -> None:
        sess = self.session
        if sess is None:
            return
        self._show_slot()
        paused = self.worker.paused
        self.view.set_paused(paused)
        if paused:
            self.st_fps.setText("paused")
        elif self.st_fps.text() == "paused":
            self.st_fps.setText("resuming…")
        self.st_mode.setText(f"mode {sess.env.mode}, difficulty {sess.difficulty}")
        if self.gamepads is not None:
            _set_brief(self.st_pad, self.gamepads.state)
        extra = ""
        if sess.has_rules:   # (ALE counts 0 lives for games without them, such as Pong: nothing to show)
            extra = f", score {sess.score}" + (f", lives {sess.lives}" if sess.lives > 0 else "")
        # the console's frame count runs on across episodes (save states name it); the episode's restarts
        self.st_frame.setText(f"frame {sess.frame_number} ({sess.env.episode_frame_number} this episode){extra}")

    # -- controls -------------------------------------------------------------------------------------------
    def toggle_pause(self) -> None:
        if self.pause_action.isChecked() and self.locked("pause", "pause"):
            self.pause_action.setChecked(False)
            return
        self.worker.pause(self.pause_action.isChecked())

    def step_frame(self) -> None:
        if self.locked("pause", "single-stepping"):
            return
        self.pause_action.setChecked(True)
        self.worker.step_frame()

    def set_speed(self, v) -> bool:
        """Run at ``v`` times real time (None: as fast as possible); False when the session forbids it."""
        if self.locked("speed", "speed change"):
            self._tick_speed(1.0)   # (a session that locks the speed runs at 1x)
            return False
        self.worker.set_speed(v)
        self._tick_speed(v)
        return True

    def _tick_speed(self, v) -> None:
        """The Speed menu ticks ``v``, the speed the game runs at, whichever control set it."""
        self.speed_actions[v].setChecked(True)

    @staticmethod
    def _tick(menu, value) -> None:
        """A refused choice in a checkable menu: the tick goes back to the value still in force."""
        for a in menu.actions():
            a.setChecked(a.text() == str(value))

    # -- locks ------------------------------------------------------------------------------------------------
    def locked(self, lock: str, what: str) -> bool:
        """True (and the player is told, on screen and in the status bar) when the running scored session
        forbids ``what``."""
        sess = self.session
        if sess is None or lock not in sess.locks:
            return False
        if self._replaying():
            msg = f"Locked: no {what} while watching a replay (F2 leaves it and plays the game)"
        else:
            title = sess.preset.title if hasattr(sess, "preset") else "this session"
            msg = f"Locked: no {what} during a scored session ({title})"
        self.last_refusal = msg
        self.statusBar().showMessage(msg, 4000)
        self.view.flash(msg, 3000)
        return True

    def refuse(self, control: str) -> None:
        """A locked key was pressed (the input layer swallowed it). RESET during a replay leaves it."""
        if control == "reset" and self._replaying():
            self.restart()
            return
        lock = "switches" if control == "reset" else control
        self.locked(lock, {"switches": "console switches", "rewind": "rewind"}.get(lock, lock))

    # -- save states --------------------------------------------------------------------------------------------
    def _build_slot_menu(self) -> None:
        self.slot_menu.clear()
        grp = QActionGroup(self)
        entries = {e.slot: e for e in self.slots.entries(self.session.info.md5)} if self.session else {}
        for n in range(10):
            e = entries.get(n)
            when = (time.strftime("%d %b %H:%M:%S", time.localtime(e.state.created)) if e and e.state
                    else ("damaged" if e else "empty"))
            a = QAction(f"Slot {n} — {when}", self, checkable=True)
            a.setChecked(n == self.slot)
            a.triggered.connect(lambda checked=False, n=n: self.set_slot(n))
            grp.addAction(a)
            self.slot_menu.addAction(a)

    def set_slot(self, n: int) -> None:
        """The slot F5 saves to and F7 loads from."""
        self.slot = n
        self._show_slot()
        self.view.flash(f"State slot {n}", 1500)

    def _show_slot(self) -> None:
        if self.session is not None:
            self.view.set_corner(self._corner_text(self.session))

    def _corner_text(self, sess) -> str:
        """A running scored session's badge; else the state slot, where states are allowed."""
        p = getattr(sess, "preset", None)
        if getattr(sess, "recording", False) and p.scored and not sess.complete:
            parts = ["SCORED", p.title, f"episode {sess.episode_number}" + (f"/{p.episodes}" if p.episodes else "")]
            limit = p.horizon or p.max_frames
            if limit and sess.driver is not None:
                left = math.ceil(max(0, limit - sess.driver.frames) / sess.frame_rate)
                parts.append(f"{left // 60}:{left % 60:02d} left")
            return " · ".join(parts)
        if "states" in sess.locks or self.presenting:   # (an audience needs no key hints)
            return ""
        return f"Slot {self.slot} · F5 save · F7 load"

    def save_state(self, slot: int | None = None) -> None:
        if self.session is None or self.locked("states", "save states"):
            return
        slot = self.slot if slot is None else slot
        from . import statefile

        def save(sess):
            self.slots.save(sess.info.md5, slot, statefile.from_session(sess))
            self.worker.notice.emit(f"Saved to slot {slot}")

        self.worker.call(save)

    def load_state(self, slot: int | None = None) -> bool:
        if self.session is None or self.locked("states", "loading states"):
            return False
        slot = self.slot if slot is None else slot
        from . import statefile

        try:
            st = self.slots.load(self.session.info.md5, slot, self.session.info.title)
        except StateFileError as e:
            self._on_error(str(e))
            return False
        self.worker.load_state(lambda sess: statefile.to_session(st, sess), f"Loaded slot {slot}")
        return True

    # -- sessions -----------------------------------------------------------------------------------------------
    def _drain_events(self, sess) -> None:
        events = getattr(sess, "events", None)
        if getattr(sess, "recording", False) and not sess.complete:
            total = sess.preset.episodes
            self.st_game.setText(f"{sess.info.title} — {sess.preset.title}, episode {sess.episode_number}"
                                 + (f"/{total}" if total else "") + f" · {sess.player}")
        if not events:
            if getattr(sess, "recording", False) and not sess.complete:
                self.view.message = ""
            return
        last = ""
        while events:
            last = events.popleft()
        self.statusBar().showMessage(last, 6000)
        if "finished" in last or "complete" in last:
            self.sessions.refresh()
        if getattr(sess, "complete", False) and sess is self.session and not self._closing:
            self._free_play_after(sess, last)

    def _free_play_after(self, sess, summary: str) -> None:
        """A session that has played all its episodes is in the store already (each episode was written
        when it ended): the game goes on in free play, with the summary over it for a while."""
        self._banner = (f"{summary}. Saved to the leaderboard (Session ▸ Export session… writes it to "
                        "files). Free play now.")
        self.open_game(sess.info.path, ask=False, mode=sess.env.mode, difficulty=sess.difficulty)

    def new_session_dialog(self) -> None:
        if self.store is None:
            self._on_error(self.startup_notice or "Sessions are disabled: the score database is unavailable")
            return
        dlg = NewSessionDialog(self.store.players(), self.library.infos,
                               self.session.info.id if self.session else None, self,
                               preset=self.settings.value("session/preset"))
        if dlg.exec():
            v = dlg.values()
            self.settings.setValue("session/preset", v["preset"])
            self.start_session(v["player"], v["game"], v["preset"], mode=v["mode"], difficulty=v["difficulty"],
                               notes=v["notes"])

    def start_session(self, player: str, game, preset: str, *, mode=None, difficulty=None, notes=None,
                      seed=None) -> bool:
        """Start a recorded session (what the dialog does; tests call it directly)."""
        from arcade_lab.agents.evaluation.presets import PRESETS

        from .recording import RecordedSession

        if self.store is None:
            self._on_error("Sessions are disabled: the score database is unavailable")
            return False
        if not self.confirm_leave("Start a new session"):
            return False
        name = player if ":" in player else f"human:{player}"
        try:
            self.store.player(name, "human", notes)
            sess = RecordedSession(game, PRESETS[preset], self.store, name, mode=mode, difficulty=difficulty,
                                   seed=seed)
        except Exception as e:
            self._on_error(f"Cannot start the session: {e}")
            return False
        self.pause_action.setChecked(False)
        self.worker.pause(False)
        self.worker.set_session(sess)
        self.statusBar().showMessage(f"{PRESETS[preset].title} session started for {name}", 5000)
        return True

    def end_session(self) -> None:
        sess = self.session
        if sess is not None and getattr(sess, "recording", False):
            if not self.confirm_leave("Stop playing"):
                return
            done = len(sess.scores)
            self.open_game(sess.info.path, ask=False)   # the worker closes the recorded session on the switch
            QTimer.singleShot(300, self.sessions.refresh)
            self.statusBar().showMessage(f"{sess.preset.title} session ended with {done} finished "
                                         f"episode{'' if done == 1 else 's'}", 6000)

    def _unfinished_scored_session(self):
        sess = self.session
        if (sess is None or not getattr(sess, "recording", False) or sess.complete
                or not sess.preset.scored):
            return None
        return sess

    def confirm_leave(self, action: str) -> bool:
        """True when nothing scored would be lost, or the player agreed to end the running scored session
        (its unfinished episode is then marked abandoned and never counted)."""
        sess = self._unfinished_scored_session()
        if sess is None or not self.ask_before_leaving or self._closing or not self.isVisible():
            return True
        total = sess.preset.episodes
        done = len(sess.scores)
        box = QMessageBox(QMessageBox.Icon.Question, APP,
                          f"{action} and end the {sess.preset.title} session?", parent=self)
        box.setInformativeText(
            f"Episode {sess.episode_number}" + (f" of {total}" if total else "")
            + " is unfinished: it will be marked abandoned and will not count. The session ends with "
            + f"{done} finished episode{'' if done == 1 else 's'}.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def _current_session_id(self) -> int | None:
        sess = self.session
        if sess is not None and getattr(sess, "session_id", None):
            return sess.session_id
        rows = self.store.sessions() if self.store else []
        return rows[-1]["id"] if rows else None

    def export_session(self, session_id: int | None, folder=None) -> list:
        if session_id is None or self.store is None:
            return []
        if folder is None:
            from PySide6.QtWidgets import QFileDialog

            folder = QFileDialog.getExistingDirectory(self, "Export session to folder")
            if not folder:
                return []
        from arcade_lab.agents.evaluation.export import write_session

        try:
            files = write_session(self.store, session_id, folder, csv_file=True, png=False)
        except Exception as e:
            self._on_error(f"Export failed: {e}")
            return []
        self.statusBar().showMessage(f"Exported session {session_id}: " + ", ".join(str(f) for f in files), 8000)
        return files

    def export_episodes(self, episode_ids: list, folder=None) -> list:
        """Agent episodes to ``episodes-<first>[-<last>].json`` and ``.csv`` in a folder the person picks."""
        if not episode_ids or self.store is None:
            return []
        if folder is None:
            from PySide6.QtWidgets import QFileDialog

            folder = QFileDialog.getExistingDirectory(self, "Export agent episodes to folder")
            if not folder:
                return []
        from arcade_lab.agents.evaluation.export import write_episodes

        lo, hi = min(episode_ids), max(episode_ids)
        name = f"episodes-{lo}" + (f"-{hi}" if hi != lo else "")
        try:
            files = write_episodes(self.store, episode_ids, folder, name)
        except Exception as e:
            self._on_error(f"Export failed: {e}")
            return []
        self.statusBar().showMessage(f"Exported {len(episode_ids)} episode{'s' if len(episode_ids) > 1 else ''}: "
                                     + ", ".join(str(f) for f in files), 8000)
        return files

    def verify_episodes(self, episode_ids: list) -> int:
        """Replay agent episodes headless and mark ✔/✘; the number confirmed."""
        if not episode_ids or self.store is None:
            return 0
        from arcade_lab.agents.evaluation.replay import replay_episode

        ok = 0
        for eid in episode_ids:
            rec = self.store.episode(eid)
            if rec is None:
                continue
            v = replay_episode(rec, self.store.settings_of(rec))
            self.store.set_verified(eid, v.ok)
            ok += v.ok
        self.sessions.refresh()
        n = len(episode_ids)
        self.sessions.show_result(f"{ok}/{n} agent episode{'s' if n > 1 else ''} confirmed by replay")
        return ok

    def verify_session(self, session_id: int | None) -> int:
        """Replay every episode of the session headless and mark ✔/✘; the number confirmed."""
        if session_id is None or self.store is None:
            return 0
        from arcade_lab.agents.evaluation.replay import replay_episode

        sess = self.store.session(session_id)
        ok = 0
        eps = self.store.episodes(session_id=session_id, full=True)
        for rec in eps:
            v = replay_episode(rec, sess["settings"] if sess else None)
            self.store.set_verified(rec.id, v.ok)
            ok += v.ok
        self.sessions.refresh()
        self.sessions.show_result(f"Session {session_id}: {ok}/{len(eps)} episodes confirmed by replay")
        if self.sessions.isHidden():   # (Session ▸ Verify with the dock closed: the answer must be seen)
            self.sessions.show()
        self.sessions.raise_()
        return ok

    def replay_episode(self, episode_id: int) -> bool:
        """Watch a recorded episode in the game view (speed menu applies; seek with seek_replay)."""
        from .recording import ReplaySession

        rec = self.store.episode(episode_id) if self.store else None
        if rec is None:
            return False
        try:
            sess = ReplaySession(rec, self.store.settings_of(rec))
        except Exception as e:
            self._on_error(f"Cannot replay episode {episode_id}: {e}")
            return False
        if not self.confirm_leave(f"Replay episode {episode_id}"):
            return False
        self.worker.set_session(sess)
        if sess.thoughts is not None:  # an agent's episode that kept its thoughts: the Agents dock shows them
            from .panels.replay_thoughts import follow_replay_thoughts

            follow_replay_thoughts(self, sess)
        label = f"episode {episode_id}"
        if rec.session_id is not None:   # as the Sessions dock numbers it: within its session
            ids = [e.id for e in self.store.episodes(session_id=rec.session_id, status=None)]
            if episode_id in ids:
                label = f"episode {ids.index(episode_id) + 1} of session #{rec.session_id}"
        self.statusBar().showMessage(f"Replaying {label} ({rec.player}, score {rec.score:g})", 5000)
        return True

    def seek_replay(self, step: int) -> None:
        if hasattr(self.session, "seek"):
            self.worker.call(lambda s: s.seek(step))

    def toggle_fullscreen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    # -- presentation mode: the game alone, full screen, with a large score ---------------------------------
    @property
    def presenting(self) -> bool:
        return self._presentation is not None

    def toggle_presentation(self) -> None:
        if self.present_action.isChecked():
            self._enter_presentation()
        else:
            self._leave_presentation()

    def _enter_presentation(self) -> None:
        if self._presentation is not None:
            return
        self.agent_ui  # noqa: B018  (docks the start-up adds later would otherwise open over the game)
        # the dock layout (closed docks, tabs, sizes) and the window's size and state, to put back on leaving
        self._presentation = {"docks": self.saveState(), "geometry": self.saveGeometry(), "rect": self.geometry(),
                              "state": self.windowState(), "menu": not self.menuBar().isHidden(),
                              "status": not self.statusBar().isHidden()}
        for w in self.findChildren(QDockWidget) + self.findChildren(QToolBar):
            w.hide()
        self.menuBar().hide()
        self.statusBar().hide()
        self.view.presentation = True
        self._update_overlay()
        self._show_slot()
        self.present_action.setChecked(True)
        self.leave_presentation_action.setEnabled(True)
        self.showFullScreen()
        self.view.setFocus()

    def _leave_presentation(self) -> None:
        saved, self._presentation = self._presentation, None
        self.present_action.setChecked(False)
        self.leave_presentation_action.setEnabled(False)
        if saved is None:
            return
        self.view.presentation = False
        self._show_slot()
        self.view.update()
        self.menuBar().setVisible(saved["menu"])
        self.statusBar().setVisible(saved["status"])
        self.setWindowState(saved["state"])
        if not saved["state"] & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized):
            self.setGeometry(saved["rect"])   # exactly where it was (restoreGeometry would refit it)
        self.restoreState(saved["docks"])
        self.show()
        self.view.setFocus()

    def _update_overlay(self) -> None:
        sess = self.session
        if sess is None or not self.view.presentation:
            return
        lines = [sess.info.title]
        if sess.has_rules:
            lines.append(f"Score {sess.score}")
            if sess.lives > 0:   # (ALE counts 0 for games without lives, such as Pong: no line to show)
                lines.append(f"Lives {sess.lives}")
        if lines != self.view.overlay_lines:
            self.view.overlay_lines = lines
            self.view.update()

    def toggle_tv(self) -> None:
        self.view.aspect_tv = self.tv_action.isChecked()
        self.settings.setValue("view/tv_aspect", self.view.aspect_tv)
        self.view.update()

    def toggle_mute(self) -> None:
        self.audio.muted = self.mute_action.isChecked()
        self.settings.setValue("audio/muted", self.audio.muted)
        self.statusBar().showMessage(("Muted" if self.audio.muted else "Sound on") + self._no_sound(), 3000)

    def change_volume(self, d: float) -> None:
        self.audio.volume = min(1.0, max(0.0, self.audio.volume + d))
        self.settings.setValue("audio/volume", self.audio.volume)
        self.statusBar().showMessage(f"Volume {int(self.audio.volume * 100)}%" + self._no_sound(), 3000)

    def _no_sound(self) -> str:
        """Why nothing is heard whatever the volume, where nothing can be: the setting is kept for later."""
        state = self.audio.state
        return f" (kept for later: {state})" if state.startswith("silent") else ""

    def remap_keys(self) -> None:
        dlg = RemapDialog(self.input.keymap, self)
        if dlg.exec():
            for control, names in dlg.result_mapping().items():
                self.input.keymap.set(control, names)
            self.input.keymap.save(self.settings)

    def save_screenshot(self) -> Path | None:
        """The true screen (160 pixels wide, palette colours) as PNG in the user's pictures folder."""
        sess = self.session
        if sess is None:
            return None
        frame = self.view.frame()
        rgb = np.ascontiguousarray(sess.palette()[frame])
        h, w, _ = rgb.shape
        img = QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
        d = screenshot_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{sess.info.id}-{time.strftime('%Y%m%d-%H%M%S')}-f{sess.frame_number}.png"
        img.save(str(path))
        self.statusBar().showMessage(f"Screenshot saved: {path}", 5000)
        return path

    # -- lifecycle ----------------------------------------------------------------------------------------------
    def shutdown(self) -> None:
        if self._thumbs is not None:
            self._thumbs.stop()
            self._thumbs.wait(5000)
        ui = self._agent_ui
        driver = ui.agents.driver if ui is not None else None
        if driver is not None:
            driver.abort_decision()   # a search under way must not hold the emulator thread past its stop
        self.worker.stop()
        self.worker.wait(5000)
        if driver is not None and not self.worker.isRunning():
            driver.store_unfinished()   # an agent's episode under way is kept (cut short), not lost
        if ui is not None:
            ui.shutdown()   # the agent's own resources, training processes, race windows
        sess = self.worker.session
        if sess is not None and hasattr(sess, "close"):
            sess.close()  # an unfinished episode is marked abandoned, the session closed
        QApplication.instance().removeEventFilter(self.key_filter)

    def event(self, e) -> bool:  # noqa: N802
        # a modal dialog over the window (a question, a file dialog, the key map): the game waits for it
        worker = getattr(self, "worker", None)
        if worker is not None and e.type() in (QEvent.Type.WindowBlocked, QEvent.Type.WindowUnblocked):
            worker.hold(e.type() == QEvent.Type.WindowBlocked)
        if e.type() == QEvent.Type.WindowUnblocked:
            QTimer.singleShot(0, self, self._take_keys_back)
        return super().event(e)

    def _take_keys_back(self) -> None:
        """Once a dialog has closed, the window takes the keys again where nothing else did (without a
        window manager nobody hands activation back, and the menu shortcuts — P, F5 — went dead while
        the game's keys still arrived)."""
        if QApplication.activeWindow() is None and QApplication.activeModalWidget() is None and self.isVisible():
            self.activateWindow()

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.confirm_leave("Quit"):
            event.ignore()
            return
        self._closing = True
        # (the window as it was before presentation mode, not the full screen without docks)
        geo = self._presentation["geometry"] if self._presentation else self.saveGeometry()
        self.settings.setValue("window/geometry", geo)
        self.shutdown()
        super().closeEvent(event)
