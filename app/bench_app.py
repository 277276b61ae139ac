"""`arcade-lab bench --app`: how well the app keeps the console's pace.

Runs the real window (offscreen, or on whatever display Qt finds) on a game for N seconds with sound on
(when a device exists), then reports the achieved frame rate, frames the GUI never painted (dropped),
deadlines missed, audio underruns, and startup time to the first painted frame — warm (JIT cache filled)
and cold (empty cache, measured in a subprocess).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def _startup_probe(game: str) -> float:
    """Seconds from interpreter start to the first painted frame (run in a fresh process)."""
    code = (
        "import time, sys; t0 = time.perf_counter()\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from PySide6.QtCore import QSettings\n"
        "import tempfile, os\n"
        "app = QApplication(sys.argv[:1]); app.setProperty('quiet_errors', True)\n"
        "from app.window import MainWindow\n"
        "st = QSettings(os.path.join(tempfile.mkdtemp(), 's.ini'), QSettings.Format.IniFormat)\n"
        "w = MainWindow(audio=False, settings=st, thumbnails=False)\n"
        f"w.open_game({game!r}); w.show()\n"
        "while w.view.frames_painted < 1: app.processEvents(); time.sleep(0.001)\n"
        "print(time.perf_counter() - t0); w.close()\n"
    )
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def run(game: str = "pong", seconds: float = 60.0, cold: bool = True) -> dict:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from .window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setProperty("quiet_errors", True)
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "bench.ini"), QSettings.Format.IniFormat)
    win = MainWindow(audio=True, settings=settings, thumbnails=False)
    win.open_game(game)
    win.show()
    while win.session is None or win.worker.frames_emulated < 10:
        app.processEvents()
        time.sleep(0.005)
    w = win.worker
    f0, d0, l0, u0, p0 = w.frames_emulated, w.frames_dropped, w.frames_late, w.audio.underruns, win.view.frames_painted
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        app.processEvents()
        time.sleep(0.002)
    dt = time.perf_counter() - t0
    result = {
        "game": game, "seconds": round(dt, 2),
        "frame_rate": round((w.frames_emulated - f0) / dt, 2),
        "target_rate": win.session.frame_rate,
        "frames_painted": win.view.frames_painted - p0,
        "dropped_frames": w.frames_dropped - d0,
        "late_frames": w.frames_late - l0,
        "audio": w.audio.state,
        "audio_underruns": w.audio.underruns - u0,
    }
    win.close()
    result["startup_warm_s"] = round(_startup_probe(game), 2)
    if cold:
        saved = os.environ.get("ARCADE_LAB_CACHE")
        os.environ["ARCADE_LAB_CACHE"] = tempfile.mkdtemp(prefix="arcade-lab-cold-")
        os.environ.pop("NUMBA_CACHE_DIR", None)
        try:
            result["startup_cold_s"] = round(_startup_probe(game), 2)
        finally:
            if saved is None:
                os.environ.pop("ARCADE_LAB_CACHE", None)
            else:
                os.environ["ARCADE_LAB_CACHE"] = saved
    return result


def main(args) -> int:
    res = run(getattr(args, "game", None) or "pong", float(getattr(args, "seconds", 60)), not getattr(args, "no_cold", False))
    for k, v in res.items():
        print(f"{k:>18}: {v}")
    if getattr(args, "json", False):
        print(json.dumps(res))
    return 0
