"""`arcade-lab doctor`: what this installation has, and what to do about anything missing."""
from __future__ import annotations

import importlib
import os
import platform
import sys


def _version(mod: str) -> str | None:
    try:
        m = importlib.import_module(mod)
    except Exception:
        return None
    return getattr(m, "__version__", "present")


def checks() -> list[tuple[str, bool, str, str]]:
    """(item, ok, finding, advice)."""
    from . import __version__
    from .engine import roms
    from .engine._jit import cache_dir

    out: list[tuple[str, bool, str, str]] = []
    out.append(("Arcade Lab", True, __version__, ""))
    out.append(("Python", sys.version_info >= (3, 11), platform.python_version(), "Python 3.11 or newer is required"))
    for mod, why in (("numpy", "the emulator state"), ("numba", "the compiled emulator"),
                     ("llvmlite", "numba's code generator"), ("platformdirs", "user folders"),
                     ("gymnasium", "the Gymnasium API")):
        v = _version(mod)
        out.append((mod, v is not None, v or "missing", f"pip install {mod} ({why})"))
    qt = _version("PySide6")
    out.append(("Qt (PySide6)", qt is not None, qt or "missing", "pip install PySide6-Essentials (the desktop app)"))
    pg = _version("pyqtgraph")
    out.append(("pyqtgraph", pg is not None, pg or "missing", "pip install pyqtgraph (live plots)"))
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    out.append(("display", bool(display) or sys.platform != "linux",
                display or "none (the app needs a desktop; tests run offscreen)",
                "run on a desktop session, or under Xvfb"))
    try:
        import sounddevice as sd

        dev = sd.query_devices(kind="output")
        out.append(("audio", True, f"{dev['name']} ({int(dev['default_samplerate'])} Hz)", ""))
    except ImportError:
        out.append(("audio", False, "sounddevice missing", "pip install sounddevice (sound is silent without it)"))
    except Exception as e:
        out.append(("audio", False, f"no output device ({str(e).splitlines()[0][:60]})",
                    "install PortAudio (apt-get install libportaudio2); the app runs silently meanwhile"))
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        import pygame

        pygame.joystick.init()
        n = pygame.joystick.get_count()
        out.append(("gamepad", True, f"SDL {'.'.join(map(str, pygame.get_sdl_version()))}, {n} connected", ""))
    except Exception:
        out.append(("gamepad", False, "no SDL (pygame) support", "pip install pygame-ce (part of the default install)"))
    ale = roms.ale_rom_dir()
    n_ale = len([p for p in ale.iterdir() if p.suffix == ".bin"]) if ale else 0
    out.append(("ale-py ROMs", ale is not None, f"{n_ale} ROMs in {ale}" if ale else "ale-py not installed",
                "pip install ale-py (it ships the 108 ROMs and is the test oracle)"))
    user = roms.user_rom_dir()
    n_user = len(list(user.glob("*"))) if user.is_dir() else 0
    out.append(("user ROM folder", True, f"{user} ({n_user} files)", ""))
    cdir = cache_dir()
    n_cached = len(list(cdir.rglob("*.nbc"))) if cdir.is_dir() else 0
    warm = n_cached > 0
    out.append(("JIT cache", True, f"{cdir} ({n_cached} compiled objects"
                f"{'' if warm else ', cold: the first start compiles for ~2 min — `arcade-lab warm` does it now'})", ""))
    from .engine import blocks

    bdir = blocks.folder()
    n_blocks = len(list(bdir.glob("blocks_*.py"))) if bdir.is_dir() else 0
    from .engine import blocks_background

    if not blocks.enabled():
        how = " (off: ARCADE_LAB_BLOCKS=0)"
    elif blocks_background.wanted():
        how = "; a game without them gets them compiled in the background at its first start"
    else:
        how = " (ARCADE_LAB_BLOCKS=cached: none compiled in the background)"
    out.append(("compiled blocks", True, f"{n_blocks} ROMs' hot blocks compiled for this engine{how}; until then a "
                "game runs the interpreter alone — `arcade-lab warm --blocks --games all --jobs 2` compiles them "
                "all (~15 min on two cores)" + _older_blocks(), ""))
    return out


def _older_blocks() -> str:
    """What other engine versions' blocks folders hold, if any (removed once unused for 30 days)."""
    from .engine import blocks_background

    others = blocks_background.other_versions()
    if not others:
        return ""
    try:
        size = sum(f.stat().st_size for d in others for f in d.rglob("*") if f.is_file())
    except OSError:
        return ""
    return (f"; {len(others)} other engine version(s)' blocks hold {size / 1e6:.0f} MB "
            f"(each removed once unused for {blocks_background.UNUSED_DAYS} days)")


def main() -> int:
    bad = 0
    for item, ok, finding, advice in checks():
        mark = "ok " if ok else "!! "
        print(f"{mark}{item:<16} {finding}")
        if not ok and advice:
            print(f"    → {advice}")
            bad += 1
    print("all good" if not bad else f"{bad} item(s) need attention (the rest works without them)")
    return 0
