"""`arcade-lab play [GAME]`: open the desktop app (on Pong by default)."""
from __future__ import annotations

import sys


def _games() -> list[str]:
    from arcade_lab.engine.roms import list_games

    return list_games()


def main(args=None) -> int:
    game = getattr(args, "game", None)
    frames = int(getattr(args, "frames", 0) or 0)
    if getattr(args, "self_test", False):
        return self_test(game or "pong", frames or 120)
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from .qt_refcount_guard import guard
    from .splash import warm_up

    guard()  # PySide6 6.12's paint calls drain None's refcount: the splash paints too

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Arcade Lab")
    app.setOrganizationName("ArcadeLab")
    app.setDesktopFileName("io.github.arcadelab.ArcadeLab")
    icon = _icon_path()
    if icon:
        app.setWindowIcon(QIcon(str(icon)))
    from .places import app_settings

    target = game or app_settings().value("last_game", "pong") or "pong"
    warm_up(app, game=target if target in _games() else "pong")  # the rules the window opens first
    from .window import MainWindow

    win = MainWindow()
    if not win.open_game(target) and target != "pong":
        win.open_game("pong")
    win.show()
    _close_on_signals(win)
    if frames:
        # smoke tests and startup timing: say when the first frame is on screen (wall clock, so a shell
        # can subtract its own start time), quit once this many frames were emulated
        import time

        painted = []

        def check():
            if not painted and win.view.frames_painted >= 1:
                painted.append(time.time())
                print(f"first frame painted at {painted[0]:.3f}", flush=True)
            if win.worker.frames_emulated >= frames and painted:
                win.close()
        t = QTimer(win)
        t.timeout.connect(check)
        t.start(20)
    code = app.exec()
    return int(code)


def _close_on_signals(win) -> None:
    """SIGTERM (a logout, ``kill``) and SIGINT (Ctrl+C in the terminal) close the window as its close
    button would, without the question a person is asked: finished episodes are all stored already, one
    under way is marked abandoned. Installed once the window stands, these replace what SDL took when the
    gamepads started (SIGTERM, for quit events nothing reads). Python runs a signal handler only between
    bytecodes of the main thread, so a timer hands that thread back to Python four times a second while
    Qt's loop waits."""
    import signal

    from PySide6.QtCore import QTimer

    def close(signum, frame):
        win.ask_before_leaving = False
        QTimer.singleShot(0, win.close)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, close)
    wake = QTimer(win)
    wake.timeout.connect(lambda: None)
    wake.start(250)


def _icon_path():
    from importlib import resources

    try:
        p = resources.files("arcade_lab.resources").joinpath("icons/arcade-lab-256.png")
        return p if p.is_file() else None
    except Exception:
        return None


def self_test(game: str, frames: int) -> int:
    """Headless check that a bundle works: load a game, run frames, report, exit 0."""
    import time

    from .session import InputFrame, PlaySession

    t = time.perf_counter()
    sess = PlaySession(game)
    for _ in range(frames):
        sess.step(InputFrame(), audio=True)
    dt = time.perf_counter() - t
    print(f"self-test ok: {sess.info.id}, {frames} frames, score {sess.score}, {dt:.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
