"""Packaging: the headless self-test the bundle runs, the desktop entry, AppStream metadata, icons, spec."""
from __future__ import annotations

import configparser
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"


def test_self_test_command_runs_a_game_headless():
    out = subprocess.run([sys.executable, "-m", "engine.cli", "play", "--self-test", "--frames", "30"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "self-test ok: pong, 30 frames" in out.stdout


def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "engine.cli", "--version"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.startswith("arcade-lab ")


def test_desktop_entry_and_metainfo_agree():
    desk = configparser.ConfigParser(interpolation=None)
    desk.optionxform = str
    [path] = PKG.glob("*.desktop")
    desk.read(path)
    entry = desk["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Exec"].split()[0] == "arcade-lab"
    assert (PKG / "icons" / f"{entry['Icon']}-256.png").is_file()
    [meta] = PKG.glob("*.metainfo.xml")
    root = ET.parse(meta).getroot()
    assert root.findtext("id") + ".desktop" == path.name
    assert root.find("launchable").text == path.name


def test_icons_in_every_size_are_square_pngs():
    sizes = []
    for p in PKG.glob("icons/arcade-lab-*.png"):
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert w == h == int(p.stem.rsplit("-", 1)[1])
        sizes.append(w)
    assert {16, 32, 48, 64, 128, 256} <= set(sizes)


def test_spec_collects_what_the_app_imports_lazily():
    spec = (PKG / "arcade-lab.spec").read_text()
    for needed in ("engine", "agents", "app", "numba", "llvmlite", "sounddevice", "pyqtgraph", "ale_py",
                   "launcher.py"):
        assert needed in spec, needed


@pytest.mark.skipif(not (ROOT / "dist" / "arcade-lab" / "arcade-lab").exists(), reason="no bundle built (make dist)")
def test_built_bundle_passes_its_self_test():
    exe = ROOT / "dist" / "arcade-lab" / "arcade-lab"
    # the bundle keeps its own JIT cache; the test process's NUMBA_CACHE_DIR would force a cold compile
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([str(exe), "play", "--self-test"], capture_output=True, text=True, timeout=900,
                         env={**env, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and "self-test ok" in out.stdout, out.stderr
