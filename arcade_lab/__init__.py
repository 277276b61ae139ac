"""Arcade Lab: an ALE-exact Atari 2600 emulator (numba), its ALE-equivalent and Gymnasium environments,
the ALE 2013 agents, evaluation, and a desktop app.

``import arcade_lab`` is light: it registers the Gymnasium ids (``ArcadeLab/Pong-v5`` …) as ``import
ale_py`` registers ``ALE/*``, and loads the emulator only when ``Env``, ``State`` or ``VectorEnv`` is
first used::

    import gymnasium as gym
    import arcade_lab

    gym.register_envs(arcade_lab)
    env = gym.make("ArcadeLab/Pong-v5")

Packages: ``arcade_lab.engine`` (emulator and environments, no Qt), ``arcade_lab.agents`` (policies and
evaluation, no Qt), ``arcade_lab.app`` (the PySide6 desktop program); the command line, ``doctor``,
``bench``, ``parity`` and ``warm`` sit above all three.
"""
from __future__ import annotations

from .engine import RomError, __version__, list_games, rom_path

__all__ = ["Env", "State", "StateError", "VectorEnv", "RomError", "list_games", "rom_path", "__version__"]

_LAZY = {"Env": "env", "State": "env", "StateError": "env", "VectorEnv": "vector"}


def __getattr__(name):
    # The emulator compiles (or loads its cache) on first use, never at import.
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.engine.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _register_gymnasium_ids() -> None:
    try:
        from .engine.registration import register
    except ImportError:  # Gymnasium is a dependency; a stripped environment still gets the plain API
        return
    register()


_register_gymnasium_ids()
