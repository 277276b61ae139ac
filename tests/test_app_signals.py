"""The app stops as a program should when asked by a signal: a logout or ``kill`` (SIGTERM), Ctrl+C in
its terminal (SIGINT). SDL, which the gamepad support starts, would otherwise keep both for itself."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_the_window_and_ends_the_app(sig, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "ARCADE_LAB_DATA": str(tmp_path)}
    with subprocess.Popen([sys.executable, "-m", "arcade_lab", "play", "pong", "--frames", "100000000"],
                          cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as app:
        try:
            line = app.stdout.readline()               # the app is up and playing
            assert line.startswith("first frame painted"), line
            time.sleep(0.5)
            app.send_signal(sig)
            _, err = app.communicate(timeout=30)
        finally:
            if app.poll() is None:
                app.kill()
                app.communicate()
    assert app.returncode == 0, err
    assert "Traceback" not in err, err
    assert (tmp_path / "settings.ini").is_file()        # it closed as the close button does (settings kept)
