"""Shared fixtures: where the shared test data and ale-py's ROMs are, and skips when they are absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Cached compiled blocks are used, missing ones are not compiled behind the suite's back (each would be a
# process compiling for 5-40 s beside the tests); tests/test_blocks.py turns that on where it tests it.
os.environ.setdefault("ARCADE_LAB_BLOCKS", "cached")
SHARED = Path(os.environ.get("ARCADE_LAB_SHARED", ROOT.parent / "shared"))
TEST_DATA = SHARED / "test-data"


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """The project's wheel, built once per test run (what `pip install` installs)."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    [whl] = out.glob("arcade_lab-*.whl")
    return whl


@pytest.fixture(scope="session")
def unpacked_wheel(built_wheel, tmp_path_factory) -> Path:
    """A folder laid out as site-packages after installing the wheel."""
    import zipfile

    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(built_wheel) as z:
        z.extractall(site)
    return site


@pytest.fixture(scope="session")
def test_data() -> Path:
    if not TEST_DATA.is_dir():
        pytest.skip(f"shared test data not found at {TEST_DATA} (set ARCADE_LAB_SHARED)")
    return TEST_DATA


@pytest.fixture(scope="session")
def ale_roms() -> Path:
    from arcade_lab.engine import roms

    d = roms.ale_rom_dir()
    if d is None:
        pytest.skip("ale-py is not installed: its bundled ROMs are the test ROMs")
    return d


def have_ale() -> bool:
    try:
        import ale_py  # noqa: F401
    except Exception:
        return False
    return True


requires_ale = pytest.mark.skipif(not have_ale(), reason="ale-py (the oracle) is not importable")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory, monkeypatch):
    """Score database and save states of every test live in a temporary folder, never the user's."""
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path_factory.mktemp("data")))


@pytest.fixture
def open_window(qtbot, tmp_path):
    """``open_window(game, **MainWindow options)``: the app's window on ``game``, private settings, no
    sound or thumbnails, shown and emulating; closed after the test."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arcade_lab.app.window import MainWindow

    opened = []

    def open_(game: str = "pong", timeout: int = 60000, **kw):
        QApplication.instance().setProperty("quiet_errors", True)
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        kw = {"audio": False, "thumbnails": False, **kw}
        win = MainWindow(settings=settings, **kw)
        # a test that stopped mid-session must not wait on the "end the session?" question at teardown
        qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "ask_before_leaving", False))
        opened.append(win)
        assert win.open_game(game)
        win.show()
        qtbot.waitUntil(lambda: win.session is not None and win.worker.frames_emulated > 5, timeout=timeout)
        return win

    yield open_
    for win in opened:
        win.ask_before_leaving = False
        win.close()
