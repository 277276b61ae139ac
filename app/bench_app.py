"""`arcade-lab bench --app`: how well the app keeps the console's pace.

Runs the real window (offscreen, or on whatever display Qt finds) on a game for N seconds with sound on
(when a device exists), once its start is over, then reports the achieved frame rate, frames the GUI never
painted (dropped), deadlines missed, audio underruns (also per minute), Python's full collections in that
time and the longest (each stalls both threads), and startup time to the first painted frame — warm (JIT cache filled;
median of several starts) and cold (empty cache, measured in a subprocess) — and, when ``make dist``
built a bundle, the bundle's first start on fresh user folders and the median of its next starts.
"""
from __future__ import annotations

import gc
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
        "from arcade_lab.app.window import MainWindow\n"
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


def _bundle_probe(exe: str, game: str, home: str) -> float:
    """Seconds from launching a built bundle to its first painted frame, with ``home`` as its user
    folders (a fresh one is a first start: the bundle seeds the JIT cache from the one it ships)."""
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_LAB_CACHE"}
    env.update(XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_CONFIG_HOME=os.path.join(home, "config"))
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    t0 = time.time()
    out = subprocess.run([exe, "play", game, "--frames", "1"], capture_output=True, text=True, env=env,
                         timeout=1800)
    for line in out.stdout.splitlines():
        if line.startswith("first frame painted at "):
            return float(line.rsplit(" ", 1)[1]) - t0
    raise RuntimeError(f"the bundle did not report a frame: {out.stderr[-2000:]}")


def _full_collections():
    """``(durations, callback)``: the durations of Python's full (generation 2) collections from now until
    ``callback`` is removed from ``gc.callbacks``; each holds the GIL, stalling the emulator thread and the
    window alike."""
    out = []
    started = []

    def callback(phase, info):
        if info["generation"] != 2:
            return
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            out.append(time.perf_counter() - started[0])

    gc.callbacks.append(callback)
    return out, callback


SETTLE_S = 1.0
WARM_STARTS = 5  # warm starts are timed this many times; the median is reported (single starts vary ±20 %)


def _median_start(probe) -> tuple[float, float, float]:
    times = sorted(probe() for _ in range(WARM_STARTS))
    return times[len(times) // 2], times[0], times[-1]


def bundle_startup(exe: str, game: str = "pong") -> dict:
    """First start (fresh user folders) and the next starts of a ``make dist`` bundle."""
    home = tempfile.mkdtemp(prefix="arcade-lab-bundle-")
    first = _bundle_probe(exe, game, home)
    med, lo, hi = _median_start(lambda: _bundle_probe(exe, game, home))
    return {"bundle_first_start_s": round(first, 2), "bundle_warm_start_s": round(med, 2),
            "bundle_warm_start_range_s": f"{lo:.2f}-{hi:.2f}"}


def default_bundle() -> str | None:
    from pathlib import Path

    exe = Path(__file__).resolve().parent.parent / "dist" / "arcade-lab" / "arcade-lab"
    return str(exe) if exe.is_file() else None


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
    # Play is measured once the start is over: the first frame painted, the agent docks built just after
    # it (the GUI thread is busy for a few hundred ms then), and SETTLE_S more.
    settled = None
    while settled is None or time.perf_counter() - settled < SETTLE_S:
        app.processEvents()
        time.sleep(0.005)
        if settled is None and win.view.frames_painted > 0 and win._agent_ui is not None:
            settled = time.perf_counter()
    w = win.worker
    f0, d0, l0, u0, p0 = w.frames_emulated, w.frames_dropped, w.frames_late, w.audio.underruns, win.view.frames_painted
    pauses, on_collection = _full_collections()
    t0 = time.perf_counter()
    try:
        while time.perf_counter() - t0 < seconds:
            app.processEvents()
            time.sleep(0.002)
    finally:
        gc.callbacks.remove(on_collection)
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
        "dropped_per_minute": round((w.frames_dropped - d0) * 60 / dt, 1),
        "underruns_per_minute": round((w.audio.underruns - u0) * 60 / dt, 1),
        "full_collections": len(pauses),
        "longest_collection_ms": round(max(pauses, default=0.0) * 1000, 1),
    }
    win.close()
    med, lo, hi = _median_start(lambda: _startup_probe(game))
    result["startup_warm_s"] = round(med, 2)
    result["startup_warm_range_s"] = f"{lo:.2f}-{hi:.2f}"
    if cold:
        saved = os.environ.get("ARCADE_LAB_CACHE")
        os.environ["ARCADE_LAB_CACHE"] = tempfile.mkdtemp(prefix="arcade-lab-cold-")
        try:
            result["startup_cold_s"] = round(_startup_probe(game), 2)
        finally:
            if saved is None:
                os.environ.pop("ARCADE_LAB_CACHE", None)
            else:
                os.environ["ARCADE_LAB_CACHE"] = saved
    return result


def main(args) -> int:
    game = getattr(args, "game", None) or "pong"
    res = run(game, float(getattr(args, "seconds", 60)), not getattr(args, "no_cold", False))
    exe = default_bundle()
    if exe:  # a built bundle (make dist): its first start loads the cache it ships
        res.update(bundle_startup(exe, game))
    for k, v in res.items():
        print(f"{k:>25}: {v}")
    if getattr(args, "json", False):
        print(json.dumps(res))
    return 0
