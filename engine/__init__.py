"""``arcade_lab.engine``: an ALE-exact Atari 2600 (numba) and the ALE-equivalent environment. No Qt here."""
from __future__ import annotations

from .roms import RomError, list_games, rom_path

__version__ = "0.1.0"

__all__ = ["RomError", "list_games", "rom_path", "Console", "Env", "State"]


def __getattr__(name):
    # Heavy, JIT-compiled parts load on first use so `import arcade_lab.engine` stays cheap.
    if name in ("Console",):
        from .console import Console
        return Console
    if name in ("Env", "State"):
        from . import env as _env
        return getattr(_env, name)
    raise AttributeError(f"module 'arcade_lab.engine' has no attribute {name!r}")
