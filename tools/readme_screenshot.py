"""Regenerates the README's picture (docs/screenshot.png): the real window, 1280x800, on Seaquest with a
small UCT agent playing and every dock showing, grabbed after it has played a while.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python tools/readme_screenshot.py [OUT.png] [SECONDS]

(Under QT_QPA_PLATFORM=offscreen it works too, without the desktop's fonts and style.) Settings and the
score database are temporary: the user's are never touched."""
from __future__ import annotations

import os
import sys
import tempfile
import time


def main(out: str = "docs/screenshot.png", seconds: float = 25.0) -> None:
    os.environ["ARCADE_LAB_DATA"] = tempfile.mkdtemp()
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setProperty("quiet_errors", True)
    from arcade_lab.app.window import MainWindow

    settings = QSettings(os.path.join(tempfile.mkdtemp(), "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, audio=False, thumbnails=True, gamepads=False)
    win.open_game("seaquest")
    win.resize(1280, 800)
    win.show()

    def run_for(s: float) -> None:
        end = time.time() + s
        while time.time() < end:
            app.processEvents()
            time.sleep(0.005)

    run_for(6)                       # the first frames, the agent docks, the library's thumbnails
    agents = win.agent_ui.agents
    agents.configure("UCT", sims=24, depth=100)   # small enough to play at real time on two cores
    agents.attach()
    run_for(seconds)
    win.grab().save(out)
    print(f"{out}: frame {win.session.frame_number}, score {win.session.score}")
    win.ask_before_leaving = False
    win.close()


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["docs/screenshot.png"]), *(float(a) for a in sys.argv[2:3]))
