"""The main window: game view in the centre, library on the side, menus and a status bar."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings, Qt, QThread, QTimer
from PySide6.QtGui import QAction, QActionGroup, QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox

from .audio import open_audio
from .gamepad import Gamepads
from .input import InputState, KeyFilter, KeyMap, RemapDialog
from .panels.library import LibraryPanel, scan
from .screen import GameView
from .session import PlaySession
from .thumbnails import ThumbnailLoader
from .worker import SPEEDS, EmulatorWorker

ORG = "ArcadeLab"
APP = "Arcade Lab"


def screenshot_dir() -> Path:
    from platformdirs import user_pictures_dir

    return Path(user_pictures_dir()) / "Arcade Lab"


class MainWindow(QMainWindow):
    def __init__(self, *, audio=True, settings: QSettings | None = None, thumbnails: bool = True,
                 extra_paths=(), gamepads: bool = True):
        super().__init__()
        self.settings = settings or QSettings(ORG, "arcade-lab")
        self.setWindowTitle(APP)
        self.view = GameView(self)
        self.setCentralWidget(self.view)
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
        self.worker.frame_ready.connect(self._on_frame, Qt.ConnectionType.QueuedConnection)
        self.worker.session_loaded.connect(self._on_session, Qt.ConnectionType.QueuedConnection)
        self.worker.error.connect(self._on_error, Qt.ConnectionType.QueuedConnection)
        self.worker.stats.connect(self._on_stats, Qt.ConnectionType.QueuedConnection)
        self.library = LibraryPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library)
        self.library.game_chosen.connect(self.open_game)
        self.library.folder_added.connect(self._add_folder)
        self.extra_paths = list(extra_paths) + [p for p in self.settings.value("library/folders", [], type=list) if p]
        self.session: PlaySession | None = None
        self.last_error = ""
        self._build_status()
        self._build_menus()
        self._thumbs: ThumbnailLoader | None = None
        self.refresh_library(thumbnails)
        self.input.toggled.connect(self._on_toggle)
        geo = self.settings.value("window/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        else:
            self.resize(1180, 760)
        self.view.aspect_tv = self.settings.value("view/tv_aspect", False, type=bool)
        self.tv_action.setChecked(self.view.aspect_tv)
        self.worker.start()
        self._status_timer = QTimer(self)
        self._status_timer.timeout.connect(self._refresh_status)
        self._status_timer.start(250)
        from .panels.agents import install_agent_ui  # agents, training, scores, race (issue 8)
        self.agent_ui = install_agent_ui(self)

    # -- building ---------------------------------------------------------------------------------------
    def _build_status(self) -> None:
        sb = self.statusBar()
        self.st_game = QLabel("no game")
        self.st_mode = QLabel("")
        self.st_frame = QLabel("")
        self.st_fps = QLabel("")
        self.st_audio = QLabel(self.audio.state)
        self.st_pad = QLabel("")
        for w in (self.st_game, self.st_mode, self.st_frame, self.st_fps, self.st_audio, self.st_pad):
            sb.addPermanentWidget(w)

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
        for v in SPEEDS:
            a = self._act(sp, f"{v:g}×", lambda checked=False, v=v: self.set_speed(v), checkable=True)
            grp.addAction(a)
            a.setChecked(v == 1.0)
        a = self._act(sp, "Unthrottled", lambda checked=False: self.set_speed(None), checkable=True)
        grp.addAction(a)
        self.mode_menu = g.addMenu("Mode")
        self.diff_menu = g.addMenu("Difficulty")
        v = mb.addMenu("&View")
        self._act(v, "Fullscreen", self.toggle_fullscreen, "F11")
        self.present_action = self._act(v, "Presentation mode", self.toggle_presentation, "F12", checkable=True)
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
        i = mb.addMenu("&Input")
        self._act(i, "Remap keys…", self.remap_keys)
        a = mb.addMenu("&Audio")
        self.mute_action = self._act(a, "Mute", self.toggle_mute, "M", checkable=True)
        self.mute_action.setChecked(self.audio.muted)
        self._act(a, "Volume up", lambda: self.change_volume(0.1), "+")
        self._act(a, "Volume down", lambda: self.change_volume(-0.1), "-")
        self._refresh_recent()

    # -- library ----------------------------------------------------------------------------------------
    def refresh_library(self, thumbnails: bool = True) -> None:
        infos, errors = scan(self.extra_paths)
        self.library.populate(infos)
        if thumbnails and infos:
            if self._thumbs is not None:
                self._thumbs.stop()
                self._thumbs.wait(2000)
            self._thumbs = ThumbnailLoader(infos, self)
            self._thumbs.ready.connect(self.library.set_thumbnail)
            self._thumbs.start(QThread.Priority.LowPriority)

    def _add_folder(self, path: str) -> None:
        if path not in self.extra_paths:
            self.extra_paths.append(path)
            self.settings.setValue("library/folders", [p for p in self.extra_paths])
        self.refresh_library()

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
    def open_game(self, what, **kw) -> bool:
        """Load a game (RomInfo, id or path). A bad ROM shows an error and the current game keeps running."""
        target = what.path if hasattr(what, "path") else what
        try:
            sess = PlaySession(str(target), **kw)
        except Exception as e:
            self._on_error(f"Cannot open {target}: {e}")
            return False
        self.worker.set_session(sess)
        self._remember(str(target))
        return True

    def restart(self) -> None:
        if self.session is not None:
            self.worker.call(lambda s: s.env.reset())

    def _palette_for(self, sess: PlaySession):
        from engine.palettes import PALETTES

        return sess.palette() if self.palette_choice == "Auto" else PALETTES[self.palette_choice]

    def set_palette_choice(self, name: str) -> None:
        self.palette_choice = name
        self.settings.setValue("view/palette", name)
        if self.session is not None:
            self.view.set_palette(self._palette_for(self.session))
            self.view.update()

    def _on_mouse_x(self, fraction: float) -> None:
        if self.session is not None and self.session.uses_paddles:
            self.input.paddle = fraction

    def _on_session(self, sess: PlaySession) -> None:
        self.session = sess
        self.view.set_palette(self._palette_for(sess))
        self.view.message = ""
        self.st_game.setText(f"{sess.info.title} ({sess.info.id})" + ("" if sess.has_rules else " — no game rules"))
        self.setWindowTitle(f"{sess.info.title} — {APP}")
        self._build_mode_menus(sess)

    def _build_mode_menus(self, sess: PlaySession) -> None:
        self.mode_menu.clear()
        grp = QActionGroup(self)
        for m in sess.env.available_modes():
            a = QAction(str(m), self, checkable=True)
            a.setChecked(m == sess.env.mode)
            a.triggered.connect(lambda checked=False, m=m: self.open_game(sess.info.path, mode=m))
            grp.addAction(a)
            self.mode_menu.addAction(a)
        self.diff_menu.clear()
        grp2 = QActionGroup(self)
        for d in sess.env.available_difficulties():
            a = QAction(str(d), self, checkable=True)
            a.setChecked(d == sess.difficulty)
            a.triggered.connect(lambda checked=False, d=d: self.worker.call(lambda s: s.env.set_difficulty(d)))
            grp2.addAction(a)
            self.diff_menu.addAction(a)

    def _on_frame(self, frame_number: int) -> None:
        frame, n = self.worker.take_frame()
        if frame is not None:
            self.view.show_frame(frame)
        sess = self.session
        if sess is not None:
            if sess.game_over:
                self.view.message = "GAME OVER — press RESET (F2) to play again"
            elif self.view.message.startswith("GAME OVER"):
                self.view.message = ""
            if self.view.presentation:
                lines = [sess.info.title]
                if sess.has_rules:
                    lines.append(f"Score {sess.score}")
                    lines.append(f"Lives {sess.lives}")
                self.view.overlay_lines = lines

    def _on_error(self, msg: str) -> None:
        self.last_error = msg
        self.statusBar().showMessage(msg.split("\n")[0], 10000)
        if not QApplication.instance().property("quiet_errors"):
            QMessageBox.warning(self, APP, msg.split("\n")[0])

    def _on_stats(self, st: dict) -> None:
        self.st_fps.setText(f"{st['fps']:.1f} fps")
        self.st_audio.setText(st["audio"] + (f", {st['underruns']} underruns" if st["underruns"] else ""))

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
        self.st_mode.setText(f"mode {sess.env.mode}, difficulty {sess.difficulty}")
        if self.gamepads is not None:
            self.st_pad.setText(self.gamepads.state)
        extra = f", score {sess.score}, lives {sess.lives}" if sess.has_rules else ""
        self.st_frame.setText(f"frame {sess.frame_number}{extra}")

    # -- controls -------------------------------------------------------------------------------------------
    def toggle_pause(self) -> None:
        self.worker.pause(self.pause_action.isChecked())

    def step_frame(self) -> None:
        self.pause_action.setChecked(True)
        self.worker.step_frame()

    def set_speed(self, v) -> None:
        self.worker.set_speed(v)

    def toggle_fullscreen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def toggle_presentation(self) -> None:
        on = self.present_action.isChecked()
        self.view.presentation = on
        self.library.setVisible(not on)
        self.menuBar().setVisible(not on)
        self.statusBar().setVisible(not on)
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def toggle_tv(self) -> None:
        self.view.aspect_tv = self.tv_action.isChecked()
        self.settings.setValue("view/tv_aspect", self.view.aspect_tv)
        self.view.update()

    def toggle_mute(self) -> None:
        self.audio.muted = self.mute_action.isChecked()
        self.settings.setValue("audio/muted", self.audio.muted)

    def change_volume(self, d: float) -> None:
        self.audio.volume = min(1.0, max(0.0, self.audio.volume + d))
        self.settings.setValue("audio/volume", self.audio.volume)
        self.statusBar().showMessage(f"Volume {int(self.audio.volume * 100)}%", 1500)

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
        self.worker.stop()
        self.worker.wait(5000)
        QApplication.instance().removeEventFilter(self.key_filter)

    def closeEvent(self, event) -> None:  # noqa: N802
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.shutdown()
        super().closeEvent(event)
