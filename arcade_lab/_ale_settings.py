"""ALE's settings store, as ``ale_py.ALEInterface``'s setInt/getInt... see it: every value is kept as text.

Each public setting has a type, and setting it through another type's setter is refused; a few internal
ones (sound rates, volume, palette) take any. The getters parse the text as C's ``atoi``/``atof`` do, so
``getInt`` of a float setting reads its integer prefix, and an unknown key reads as -1, -1.0, False or "".
A float is kept with six significant digits (C++'s default stream precision), and that rounded value is
what a ROM load uses.
"""
from __future__ import annotations

import re

import numpy as np

INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1

_INTS = {"system_random_seed": 4753849, "max_num_frames": 0, "max_num_frames_per_episode": 0,
         "paddle_min": -1, "paddle_max": -1, "random_seed": -1, "frame_skip": 1, "reward_min": INT_MIN,
         "reward_max": INT_MAX, "fragsize": 64}
_FLOATS = {"repeat_action_probability": 0.25}
_BOOLS = {"run_length_encoding": True, "restricted_action_set": False, "color_averaging": False,
          "send_rgb": False, "truncate_on_loss_of_life": False, "display_screen": False, "sound_obs": False}
_STRINGS = {"cpu": "low", "rom_file": "", "record_screen_dir": "", "record_sound_filename": ""}
_INTERNAL = {"palette": "standard", "sound": "false", "fragsize": "512", "freq": "31400", "tiafreq": "31400",
             "volume": "100", "clipvol": "true"}
_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(inf(inity)?|nan|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)", re.I)


def _atoi(text: str) -> int:
    m = _INT_PREFIX.match(text)
    return int(m.group()) if m else 0


def _atof(text: str) -> float:
    m = _FLOAT_PREFIX.match(text)
    return float(np.float32(float(m.group()))) if m else 0.0


def _format_float(value: float) -> str:
    """C++ ``ostream << float``: six significant digits, %g style (a value beyond a float's range is inf)."""
    with np.errstate(over="ignore"):
        return "%g" % float(np.float32(value))


class Settings:
    """One ALEInterface's settings (ALE's default values at construction)."""

    def __init__(self):
        self._internal = dict(_INTERNAL)
        self._external: dict[str, str] = {}
        for table, fmt in ((_STRINGS, str), (_FLOATS, _format_float), (_BOOLS, lambda b: "1" if b else "0"),
                           (_INTS, str)):
            for key, value in table.items():
                self._store(key, fmt(value))

    def _store(self, key: str, text: str) -> None:
        if key in self._internal:
            self._internal[key] = text
        else:
            self._external[key] = text

    def _raw(self, key: str) -> str | None:
        return self._internal.get(key, self._external.get(key))

    def set(self, key: str, text: str, table: dict) -> None:
        if key not in self._internal and key not in table:
            raise RuntimeError(f"The key {key} you are trying to set does not exist or has incorrect value "
                               "type.\n")
        self._store(key, text)
        self._validate()

    def _validate(self) -> None:
        # ALE checks these after every set (its SDL build's bounds)
        for key, lo, hi, default in (("volume", 0, 100, "100"), ("freq", 0, 48000, "31400"),
                                     ("tiafreq", 0, 48000, "31400")):
            if not lo <= _atoi(self._internal[key]) <= hi:
                self._internal[key] = default
        if self._internal["palette"] not in ("standard", "z26", "user"):
            self._internal["palette"] = "standard"

    # -- typed setters (the value is already checked to be of the setter's type) --------------------
    def set_int(self, key: str, value: int) -> None:
        self.set(key, str(int(value)), _INTS)

    def set_float(self, key: str, value: float) -> None:
        self.set(key, _format_float(value), _FLOATS)

    def set_bool(self, key: str, value: bool) -> None:
        self.set(key, "1" if value else "0", _BOOLS)

    def set_string(self, key: str, value: str) -> None:
        self.set(key, value, _STRINGS)

    # -- getters ----------------------------------------------------------------------------------------
    def get_int(self, key: str) -> int:
        raw = self._raw(key)
        return -1 if raw is None else _atoi(raw)

    def get_float(self, key: str) -> float:
        raw = self._raw(key)
        return -1.0 if raw is None else _atof(raw)

    def get_bool(self, key: str) -> bool:
        raw = self._raw(key)
        accepted = ("1", "true", "True") if key in self._internal else ("1", "true")
        return raw in accepted

    def get_string(self, key: str) -> str:
        raw = self._raw(key)
        return "" if raw is None else raw

    def changed(self, key: str) -> bool:
        """Whether ``key`` differs from ALE's default."""
        return self._raw(key) != _DEFAULTS._raw(key)


_DEFAULTS = Settings()
