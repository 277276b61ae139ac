"""How smoothly the view moves while UCT keeps real time: the real window (offscreen unless a display is
set) on a game, UCT attached as the Agents dock attaches it, the worker's frame times recorded for N
seconds. Prints the share of frame intervals near one console period, the longest intervals, the frames
of schedule given up, simulations per decision and how many decisions took a search ahead's result.

    python tools/agent_pace.py --game breakout --seconds 60 [--no-ahead] [--threads 1]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def measure(game: str, seconds: float, ahead: bool, threads: int, depth: int) -> dict:
    import numpy as np
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arcade_lab.agents.registry import make_agent
    from arcade_lab.app.agent_driver import AgentDriver
    from arcade_lab.app.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setProperty("quiet_errors", True)
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(audio=False, settings=settings, thumbnails=False)
    win.open_game(game)
    win.show()

    def pump(until) -> None:
        while not until():
            app.processEvents()
            time.sleep(0.002)

    pump(lambda: win.session is not None and win.worker.frames_emulated > 30)
    sess, worker = win.session, win.worker
    agent = make_agent("uct", sess.env, 0, simulations=500, depth_frames=depth, workers=threads)
    driver = AgentDriver(agent, frames_per_action=5, keep_real_time=True, search_ahead=ahead)
    stamps: list[float] = []
    decision_frame: list[bool] = []   # the frame a decision was taken for (its input sampled after it)
    worker.call(lambda s: driver.install(worker, s))
    pump(lambda: driver.decisions > 20)          # past the first decisions (compilation, first searches)
    def stamp(_s) -> None:
        stamps.append(time.perf_counter())
        decision_frame.append(driver._since_decision == 1)
    worker.hooks.append(stamp)
    behind0, d0 = driver.frames_behind, driver.decisions
    efforts: list[int] = []
    t_end = time.perf_counter() + seconds
    seen = driver.decisions
    while time.perf_counter() < t_end:
        app.processEvents()
        time.sleep(0.005)
        if driver.decisions != seen and driver._effort:
            efforts.append(driver._effort[-1])
            seen = driver.decisions
    behind = driver.frames_behind - behind0
    decisions = driver.decisions - d0
    out = {"ahead": ahead, "used": driver.ahead_used, "missed": driver.ahead_missed}
    driver.uninstall()
    win.ask_before_leaving = False
    win.close()
    iv = np.diff(np.asarray(stamps)) * 1000.0
    at_decision = np.asarray(decision_frame[1:])
    period = 1000.0 / sess.frame_rate
    out.update({
        "game": game, "seconds": seconds, "threads": threads, "frames": len(stamps),
        "fps": len(stamps) / seconds,
        "share_near_period": float(np.mean(np.abs(iv - period) <= 4.0)),   # within 4 ms of 16.7 ms
        "share_under_2ms": float(np.mean(iv < 2.0)),                         # frames run in a burst
        "share_over_25ms": float(np.mean(iv > 25.0)),
        "interval_ms_p50_p95_p99_max": [round(float(np.percentile(iv, q)), 1) for q in (50, 95, 99)]
        + [round(float(iv.max()), 1)],
        "over_25ms_at_decision_frames": int(np.sum((iv > 25.0) & at_decision)),
        "over_25ms_at_other_frames": int(np.sum((iv > 25.0) & ~at_decision)),
        "frames_behind": round(behind, 1), "decisions": decisions,
        "sims_per_decision_mean": round(float(np.mean(efforts)), 1) if efforts else None,
    })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="breakout")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--depth", type=int, default=300, help="UCT horizon in frames")
    ap.add_argument("--no-ahead", action="store_true", help="decide on the emulator thread (no search ahead)")
    a = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(json.dumps(measure(a.game, a.seconds, not a.no_ahead, a.threads, a.depth)))


if __name__ == "__main__":
    main()
