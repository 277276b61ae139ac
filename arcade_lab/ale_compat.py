"""ale-py 0.12.1's Python API on Arcade Lab's emulator: port ale-py code by changing one import::

    import arcade_lab.ale_compat as ale_py          # instead of: import ale_py
    from arcade_lab.ale_compat.env import AtariEnv  # instead of: from ale_py.env import AtariEnv

Same names, signatures, enum values, setting names, exception types and results: ``ALEInterface``,
``Action``, ``LoggerMode``, ``ALEState``, ``AtariEnv`` (with its ``ALE/<Game>-v5`` and legacy Gymnasium
ids, registered on import and replacing ale-py's where ale-py was imported first), ``roms``,
``ALEVectorInterface``. Where ale-py ends the process (a missing ROM file) or plays an action no joystick
has (an id above 17) this raises a RuntimeError instead, and a ROM ALE has no rules for loads and runs (no
rewards, no game over) where ale-py refuses it.

Differences: ``AtariVectorEnv`` is ``arcade_lab.engine.ale_vector.ArcadeLabVectorEnv`` (ale-py's options,
preprocessing, asynchronous batches and ``xla()``, the last through host callbacks, ``engine.vector_xla``),
its ``ale`` an ``ALEVectorInterface``; no
sound is played (``sound`` is a no-op; ``sound_obs`` works); a ROM load refuses the settings it cannot honour (colour averaging, screen or sound recording, paddle limits,
another system seed); ``ALEState.serialize()`` writes Arcade Lab's state format (``arcade_lab.State``'s).

The submodules ``env``, ``roms``, ``registration`` and ``vector_env`` are namespaces this module creates
(``sys.modules`` entries named after it), so the module works under any name it is imported as.
"""
from __future__ import annotations

import enum
import hashlib
import importlib.metadata
import importlib.util
import os
import sys
import types
import warnings
from pathlib import Path
from typing import NotRequired, TypedDict

import gymnasium
import numpy as np

from arcade_lab._ale_settings import INT_MAX, INT_MIN, Settings
from arcade_lab.engine import roms as _roms
from arcade_lab.engine.registration import LEGACY_GAMES, game_name

__version__ = "0.12.1"  # the ale-py release whose API and behaviour this module reproduces
SDL_SUPPORT = importlib.util.find_spec("pygame") is not None  # the display window uses pygame-ce

__all__ = ["Action", "ALEInterface", "ALEState", "ALEVectorInterface", "LoggerMode", "SDL_SUPPORT", "AtariEnv",
           "AtariEnvStepMetadata", "AtariVectorEnv"]


class Action(enum.Enum):
    """ALE's joystick actions (a plain enum, as ale-py's: ``Action.FIRE != 1``, ``Action.FIRE.value == 1``)."""

    NOOP = 0
    FIRE = 1
    UP = 2
    RIGHT = 3
    LEFT = 4
    DOWN = 5
    UPRIGHT = 6
    UPLEFT = 7
    DOWNRIGHT = 8
    DOWNLEFT = 9
    UPFIRE = 10
    RIGHTFIRE = 11
    LEFTFIRE = 12
    DOWNFIRE = 13
    UPRIGHTFIRE = 14
    UPLEFTFIRE = 15
    DOWNRIGHTFIRE = 16
    DOWNLEFTFIRE = 17

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class LoggerMode(enum.Enum):
    Info = 0
    Warning = 1
    Error = 2

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class AtariEnvStepMetadata(TypedDict):
    """Step info options."""

    lives: int
    episode_frame_number: int
    frame_number: int
    seeds: NotRequired[tuple[int, int]]


# -- argument checks with ale-py's (nanobind's) exception types ------------------------------------------
def _bad_args(func: str, signatures: tuple[str, ...], args) -> TypeError:
    names = ", ".join(type(a).__name__ for a in args)
    sigs = "\n".join(f"    {i}. {s}" for i, s in enumerate(signatures, 1))
    return TypeError(f"{func}(): incompatible function arguments. The following argument types are "
                     f"supported:\n{sigs}\n\nInvoked with types: ALEInterface, {names}")


def _c_int(value, lo: int, hi: int) -> int | None:
    """``value`` as a C integer in [lo, hi], or None where nanobind would refuse it."""
    if isinstance(value, (float, np.floating, str, bytes)):
        return None
    try:
        v = value.__index__()
    except (AttributeError, TypeError):
        return None
    return v if lo <= v <= hi else None


def _c_float(value) -> float | None:
    if isinstance(value, (str, bytes)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _checked(func: str, signature: str, args, *checks):
    """Each argument through its check; a TypeError naming ``signature`` where one refuses."""
    out = [check(a) for a, check in zip(args, checks)]
    if any(v is None for v in out):
        raise _bad_args(func, (signature,), args)
    return out


def _is(kind):
    return lambda v: v if type(v) is kind else None


_UINT = (lambda v: _c_int(v, 0, 2 ** 32 - 1))
_INT = (lambda v: _c_int(v, INT_MIN, INT_MAX))


# -- states ------------------------------------------------------------------------------------------------
def _same_as_ale(a, b) -> bool:
    """Two states as ALE compares them: ALE's state holds neither its environment's sticky action nor the
    TIA fields its save omits, which our machine snapshot carries (``Env.KEPT_ON_RESTORE``)."""
    import numpy as np

    from arcade_lab.engine.env import KEPT_ON_RESTORE

    if a.md5 != b.md5 or a.data.shape != b.data.shape or (a.rng is None) != (b.rng is None):
        return False
    same = a.data == b.data
    same[KEPT_ON_RESTORE] = True
    return bool(same.all()) and (a.rng is None or np.array_equal(a.rng, b.rng))


class ALEState:
    """A snapshot of an ALEInterface: the machine, and the environment RNG when cloned with it. As in ALE,
    what a restore keeps from the environment (the previous action that sticky actions repeat) is not in
    it. ``ALEState()`` is empty; ``ALEState(serialized)`` reads ``serialize()``'s bytes (an
    ``arcade_lab.State``'s ``to_bytes()``); states pickle as their bytes and compare by content."""

    __hash__ = object.__hash__  # ale-py's states hash by identity

    def __init__(self, *args):
        self._state = None
        if len(args) == 1 and isinstance(args[0], bytes):
            self._read(args[0])
        elif len(args) == 2 and isinstance(args[0], ALEState) and isinstance(args[1], bytes):
            self._read(args[1])
        elif args:
            raise TypeError("ALEState(): expected no argument, serialized bytes, or a state and serialized "
                            f"bytes; got {', '.join(type(a).__name__ for a in args)}")

    @classmethod
    def _of(cls, state) -> "ALEState":
        new = cls()
        new._state = state
        return new

    def _read(self, blob: bytes) -> None:
        from arcade_lab.engine.console import State

        self._state = State.from_bytes(blob)  # StateError (a ValueError) says what is wrong

    def serialize(self) -> bytes:
        return b"" if self._state is None else self._state.to_bytes()

    def equals(self, other: "ALEState") -> bool:
        if not isinstance(other, ALEState):
            raise TypeError(f"ALEState.equals() takes an ALEState, not {type(other).__name__}")
        if self._state is None or other._state is None:
            return self._state is None and other._state is None
        return _same_as_ale(self._state, other._state)

    __eq__ = equals

    def __getstate__(self) -> bytes:
        return self.serialize()

    def __setstate__(self, blob: bytes) -> None:
        self.__init__(*((blob,) if blob else ()))

    def _slot(self, index: int) -> int:
        return 0 if self._state is None else int(self._state.data[index])

    def getFrameNumber(self) -> int:  # noqa: N802  (ale-py's names)
        from arcade_lab.engine.layout import E_FRAME

        return self._slot(E_FRAME)

    def getEpisodeFrameNumber(self) -> int:  # noqa: N802
        from arcade_lab.engine.layout import E_EPFRAME

        return self._slot(E_EPFRAME)

    def getCurrentMode(self) -> int:  # noqa: N802
        from arcade_lab.engine.layout import E_MODE

        return self._slot(E_MODE)

    def getDifficulty(self) -> int:  # noqa: N802
        from arcade_lab.engine.layout import E_DIFF

        return self._slot(E_DIFF)


# -- the interface ------------------------------------------------------------------------------------------
# Settings a ROM load cannot honour when changed from ALE's defaults: what they do in ALE.
_UNSUPPORTED = {
    "color_averaging": "phosphor colour averaging of consecutive frames",
    "record_screen_dir": "saving every frame as a PNG (call saveScreenPNG after act instead)",
    "record_sound_filename": "recording the sound to a WAV file",
    "paddle_min": "custom paddle limits",
    "paddle_max": "custom paddle limits",
    "system_random_seed": "another seed for the console's power-on RNG",
}
_SOUND_RATES = ("freq", "tiafreq", "volume")
_logger_mode = LoggerMode.Info


class ALEInterface:
    """ale-py's ``ALEInterface``: set the settings, ``loadROM``, then act. Settings are read by ``loadROM``
    (as in ALE, changing one afterwards takes effect at the next load)."""

    def __init__(self):
        self._settings = Settings()
        self._env = None
        self._sound = None
        self._reward_range = (INT_MIN, INT_MAX)
        self._window = None
        self._display = False

    def __reduce__(self):
        raise TypeError("cannot pickle 'ALEInterface' object")

    # -- settings ------------------------------------------------------------------------------------
    def getString(self, key: str) -> str:  # noqa: N802
        return self._settings.get_string(*_checked("getString", "getString(self, arg: str, /) -> str", (key,),
                                                   _is(str)))

    def getInt(self, key: str) -> int:  # noqa: N802
        return self._settings.get_int(*_checked("getInt", "getInt(self, arg: str, /) -> int", (key,), _is(str)))

    def getBool(self, key: str) -> bool:  # noqa: N802
        return self._settings.get_bool(*_checked("getBool", "getBool(self, arg: str, /) -> bool", (key,),
                                                 _is(str)))

    def getFloat(self, key: str) -> float:  # noqa: N802
        return self._settings.get_float(*_checked("getFloat", "getFloat(self, arg: str, /) -> float", (key,),
                                                  _is(str)))

    def setString(self, key: str, value: str) -> None:  # noqa: N802
        self._settings.set_string(*_checked("setString", "setString(self, arg0: str, arg1: str, /) -> None",
                                            (key, value), _is(str), _is(str)))

    def setInt(self, key: str, value: int) -> None:  # noqa: N802
        self._settings.set_int(*_checked("setInt", "setInt(self, arg0: str, arg1: int, /) -> None",
                                         (key, value), _is(str), _INT))

    def setBool(self, key: str, value: bool) -> None:  # noqa: N802
        self._settings.set_bool(*_checked("setBool", "setBool(self, arg0: str, arg1: bool, /) -> None",
                                          (key, value), _is(str), _is(bool)))

    def setFloat(self, key: str, value: float) -> None:  # noqa: N802
        self._settings.set_float(*_checked("setFloat", "setFloat(self, arg0: str, arg1: float, /) -> None",
                                           (key, value), _is(str), _c_float))

    @staticmethod
    def setLoggerMode(mode: LoggerMode) -> None:  # noqa: N802
        global _logger_mode
        if not isinstance(mode, LoggerMode):
            raise TypeError(f"setLoggerMode(): expected a LoggerMode, got {type(mode).__name__}")
        _logger_mode = mode  # nothing here logs: kept for code that sets it

    # -- ROMs ------------------------------------------------------------------------------------------
    def loadROM(self, rom_file) -> None:  # noqa: N802
        """Build the console from ``rom_file`` with the current settings and reset it (ALE's loadROM)."""
        if not isinstance(rom_file, (str, os.PathLike)):
            raise _bad_args("loadROM", ("loadROM(self, arg: str, /) -> None",
                                        "loadROM(self, arg: os.PathLike, /) -> None"), (rom_file,))
        path = os.fspath(rom_file)
        if not path or not os.path.isfile(path):
            raise RuntimeError(f"ROM file {path!r} not found.")
        st = self._settings
        self._refuse_unsupported()
        from arcade_lab.engine.gym import SoundObs, make_env
        from arcade_lab.engine.roms import RomError

        sound = SoundObs() if st.get_bool("sound_obs") else None
        seed = st.get_int("random_seed")
        try:
            env = make_env(path, sound_obs=sound, frameskip=max(1, st.get_int("frame_skip")),
                           repeat_action_probability=min(max(st.get_float("repeat_action_probability"), 0.0),
                                                         1.0),
                           max_num_frames_per_episode=max(0, st.get_int("max_num_frames_per_episode")),
                           truncate_on_loss_of_life=st.get_bool("truncate_on_loss_of_life"),
                           seed=None if seed == -1 else seed & 0xFFFFFFFF)
        except RomError as e:
            raise RuntimeError(f"Unable to create console for {path}: {e.reason}") from None
        self._env, self._sound = env, sound
        self._reward_range = (st.get_int("reward_min"), st.get_int("reward_max"))
        self._display = st.get_bool("display_screen")
        st.set_string("rom_file", path)

    def _refuse_unsupported(self) -> None:
        st = self._settings
        for key, what in _UNSUPPORTED.items():
            if st.changed(key):
                raise RuntimeError(f"arcade_lab.ale_compat cannot honour the setting {key!r} ({what}); "
                                   "set it back to its default before loadROM")
        if st.get_bool("sound_obs") and any(st.changed(k) for k in _SOUND_RATES):
            raise RuntimeError("sound_obs is produced at ALE's default rates only: leave 'freq', 'tiafreq' "
                               "and 'volume' unchanged")

    @staticmethod
    def isSupportedROM(rom) -> str | None:  # noqa: N802
        """The game id of a ROM ALE has rules for (recognised by MD5), else None."""
        if not isinstance(rom, (str, os.PathLike)):
            raise TypeError(f"isSupportedROM(): expected a path, got {type(rom).__name__}")
        path = Path(rom)
        if not path.exists():
            raise RuntimeError("ROM file doesn't exist")
        try:
            data = path.read_bytes()
        except OSError as e:
            raise RuntimeError(f"Failed to open rom file ({e.strerror or e}).") from None
        entry = _roms.rom_table().get(hashlib.md5(data).hexdigest())
        return entry.id if entry is not None and entry.ale_rules else None

    def _need_env(self):
        if self._env is None:
            raise RuntimeError("ROM not set")
        return self._env

    # -- playing ---------------------------------------------------------------------------------------
    def act(self, action, paddle_strength: float = 1.0) -> int:
        """Play ``action`` (an Action or its id) for ``frame_skip`` frames; their reward, clipped to
        ``reward_min``/``reward_max``."""
        a, strength = self._act_args(action, paddle_strength)
        env = self._need_env()
        reward = env.act(a, strength)
        if self._sound is not None:
            self._sound.act(env)
        if self._display:
            self._show(env.frames_per_act)
        lo, hi = self._reward_range
        return min(max(reward, lo), hi)

    @staticmethod
    def _act_args(action, paddle_strength) -> tuple[int, float]:
        a = action.value if isinstance(action, Action) else _UINT(action)
        strength = _c_float(paddle_strength)
        if a is None or strength is None:
            raise _bad_args("act", ("act(self, action: int, paddle_strength: float = 1.0) -> int",
                                    "act(self, action: Action, paddle_strength: float = 1.0) -> int"),
                            (action, paddle_strength))
        if a >= len(Action):
            raise RuntimeError(f"Invalid Player A Action: {a}")
        return a, strength

    def _show(self, frames: int) -> None:
        env = self._env
        if self._window is None:
            from arcade_lab._ale_window import Window

            self._window = Window(f"Arcade Lab - {env.info.title}")
        self._window.show(env.screen_rgb(), frames, 50.0 if env.console.pal else 60.0)

    def _close_window(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def reset_game(self) -> None:
        self._need_env().reset()

    def game_over(self, with_truncation: bool = True) -> bool:
        return self._need_env().game_over(bool(with_truncation))

    def game_truncated(self) -> bool:
        return self._need_env().game_truncated()

    def lives(self) -> int:
        return self._need_env().lives()

    def getFrameNumber(self) -> int:  # noqa: N802
        return self._need_env().frame_number

    def getEpisodeFrameNumber(self) -> int:  # noqa: N802
        return self._need_env().episode_frame_number

    # -- actions, modes, difficulties --------------------------------------------------------------------
    def getLegalActionSet(self) -> list[Action]:  # noqa: N802
        return [Action(a) for a in self._need_env().legal_actions()]

    def getMinimalActionSet(self) -> list[Action]:  # noqa: N802
        return [Action(a) for a in self._need_env().minimal_actions()]

    def getAvailableModes(self) -> list[int]:  # noqa: N802
        return self._need_env().available_modes()

    def getAvailableDifficulties(self) -> list[int]:  # noqa: N802
        return self._need_env().available_difficulties()

    def setMode(self, mode: int) -> None:  # noqa: N802
        """Takes effect at the next ``reset_game``."""
        (m,) = _checked("setMode", "setMode(self, arg: int, /) -> None", (mode,), _UINT)
        env = self._need_env()
        if m not in env.available_modes():
            raise RuntimeError("Invalid game mode requested")
        env.set_mode(m)

    def setDifficulty(self, difficulty: int) -> None:  # noqa: N802
        (d,) = _checked("setDifficulty", "setDifficulty(self, arg: int, /) -> None", (difficulty,), _UINT)
        env = self._need_env()
        if d not in env.available_difficulties():
            raise RuntimeError("Invalid difficulty requested")
        env.set_difficulty(d)

    # -- observations --------------------------------------------------------------------------------------
    def getScreenDims(self) -> tuple[int, int]:  # noqa: N802
        return (self._need_env().console.height, 160)

    def getScreen(self, buffer=None):  # noqa: N802
        """(H, 160) palette indices; into ``buffer`` (a C-contiguous uint8 array of that shape) when given."""
        env = self._need_env()
        if buffer is None:
            return env.screen()
        self._screen_buffer("getScreen", buffer, 2, "Invalid shape, ")
        np.copyto(buffer, env.screen())
        return None

    def getScreenRGB(self, buffer=None):  # noqa: N802
        env = self._need_env()
        if buffer is None:
            return env.screen_rgb()
        self._screen_buffer("getScreenRGB", buffer, 3, "Invalid shape ")
        env.screen_rgb(buffer)
        return None

    def getScreenGrayscale(self, buffer=None):  # noqa: N802
        env = self._need_env()
        if buffer is None:
            return env.screen_grayscale()
        self._screen_buffer("getScreenGrayscale", buffer, 2, "Invalid shape ")
        env.screen_grayscale(buffer)
        return None

    def _screen_buffer(self, func: str, buf, ndim: int, shape_words: str) -> None:
        if not _usable(buf):
            raise _bad_args(func, (f"{func}(self) -> numpy.ndarray[dtype=uint8]",
                                   f"{func}(self, buffer: ndarray[dtype=uint8, order='C', device='cpu']) "
                                   "-> None"), (buf,))
        words = {2: "two", 3: "three"}[ndim]
        if buf.ndim != ndim:
            raise RuntimeError(f"Expected a numpy array with {words} dimensions.")
        want = (self._env.console.height, 160, 3)[:ndim]
        if buf.shape != want:
            raise RuntimeError(f"{shape_words}{_tuple(buf.shape)}, expecting shape {_tuple(want)}")

    def getRAMSize(self) -> int:  # noqa: N802
        return 128

    def getRAM(self, buffer=None):  # noqa: N802
        """The 128 bytes of the console's RAM; into ``buffer`` (a C-contiguous uint8 array of 128) when given."""
        ram = self._need_env().ram()
        if buffer is None:
            return ram
        _fixed_buffer("getRAM", buffer, 128)
        np.copyto(buffer, ram)
        return None

    def setRAM(self, index: int, value: int) -> None:  # noqa: N802
        """Write one RAM byte, as a poke at 0x80 + index."""
        i, v = _checked("setRAM", "setRAM(self, arg0: int, arg1: int, /) -> None", (index, value), _UINT,
                        lambda x: _c_int(x, 0, 255))
        if i >= 128:
            raise RuntimeError("setRAM index out of bounds.")
        from arcade_lab.engine.layout import RAM0

        self._need_env().console.s[RAM0 + i] = v

    def getAudioSize(self) -> int:  # noqa: N802
        return 512

    def getAudio(self, buffer=None):  # noqa: N802
        """The last act's 512 sound samples with ``sound_obs`` set at load (else zeros)."""
        self._need_env()
        samples = np.zeros(512, np.uint8) if self._sound is None else self._sound.samples.copy()
        if buffer is None:
            return samples
        _fixed_buffer("getAudio", buffer, 512)
        np.copyto(buffer, samples)
        return None

    def saveScreenPNG(self, filename: str) -> None:  # noqa: N802
        """The screen as an RGB PNG, each pixel two wide (ALE's screen exporter)."""
        from arcade_lab.engine.png import png_bytes

        rgb = self._need_env().screen_rgb()
        Path(filename).write_bytes(png_bytes(np.repeat(rgb, 2, axis=1)))

    # -- states ----------------------------------------------------------------------------------------------
    def cloneState(self, include_rng: bool = False) -> ALEState:  # noqa: N802
        """The machine and the episode, and the environment RNG with ``include_rng`` (sticky actions)."""
        from arcade_lab.engine.layout import AUD_N, AUD_ON, E_LAST_ACT, E_LAST_DELTA

        state = self._need_env().clone_state(include_rng=bool(include_rng))
        # What a restore leaves as it was is not part of an ALE state (the sticky previous action and its
        # paddle strength belong to the environment, the sound log to this interface): blank, so that
        # states compare as ale-py's do.
        state.data[[AUD_ON, AUD_N, E_LAST_ACT, E_LAST_ACT + 1, E_LAST_DELTA, E_LAST_DELTA + 1]] = 0
        return ALEState._of(state)

    def restoreState(self, state: ALEState) -> None:  # noqa: N802
        """ALE's restoreState: the previous (sticky) action stays; the RNG comes back if the state has it."""
        if not isinstance(state, ALEState):
            raise _bad_args("restoreState", ("restoreState(self, arg: ALEState, /) -> None",), (state,))
        if state._state is None:
            raise RuntimeError("cannot restore an empty ALEState")
        from arcade_lab.engine.console import StateError

        env = self._need_env()
        try:
            if self._sound is None:
                env.restore_state(state._state)
            else:
                self._sound.restore(env, state._state)
        except StateError as e:
            raise RuntimeError(str(e)) from None

    def cloneSystemState(self) -> ALEState:  # noqa: N802
        return self.cloneState(include_rng=True)

    def restoreSystemState(self, state: ALEState) -> None:  # noqa: N802
        self.restoreState(state)


def _usable(buf) -> bool:
    return (isinstance(buf, np.ndarray) and buf.dtype == np.uint8 and buf.flags.c_contiguous
            and buf.flags.writeable)


def _fixed_buffer(func: str, buf, size: int) -> None:
    if not (_usable(buf) and buf.shape == (size,)):
        raise _bad_args(func, (f"{func}(self) -> numpy.ndarray[dtype=uint8, shape=({size})]",
                               f"{func}(self, buffer: ndarray[dtype=uint8, shape=({size}), order='C', "
                               "device='cpu']) -> None"), (buf,))


def _tuple(shape) -> str:
    return "(" + ", ".join(str(int(d)) for d in shape) + ")"


# -- ROM files (ale-py's ``roms``) -------------------------------------------------------------------------
def _ale_py_rom_dir() -> Path | None:
    """ale-py's bundled ROM folder, from its installed files: found even where this module is imported
    under the name ``ale_py``."""
    try:
        folder = Path(importlib.metadata.distribution("ale-py").locate_file("ale_py/roms"))
    except importlib.metadata.PackageNotFoundError:
        return _roms.ale_rom_dir()
    return folder if folder.is_dir() else _roms.ale_rom_dir()


def get_all_rom_ids() -> list[str]:
    """Every ROM id ale-py knows (the 108 it bundles), in its order (``atlantis2`` before ``atlantis``)."""
    return sorted((e.id for e in _roms.rom_table().values()), key=lambda rom: rom + "~")


def get_rom_path(name: str) -> Path | None:
    """The ROM file of a game id: from ``$ALE_ROMS_DIR`` when set, else ale-py's bundled ROMs and Arcade
    Lab's user ROM folder. None (with a warning) for an id ale-py does not know; OSError for a file whose
    MD5 is not the expected one."""
    expected = {e.id: e.md5 for e in _roms.rom_table().values()}
    if name not in expected:
        warnings.warn(f"Rom {name} not supported.")
        return None
    env_dir = os.environ.get("ALE_ROMS_DIR")
    folders = [Path(env_dir)] if env_dir else [_ale_py_rom_dir(), _roms.user_rom_dir()]
    if env_dir and not folders[0].is_dir():
        raise NotADirectoryError(f"ROM directory {folders[0].absolute()} doesn't exist")
    for folder in folders:
        path = folder / f"{name}.bin" if folder else None
        if path is not None and path.is_file():
            md5 = hashlib.md5(path.read_bytes()).hexdigest()
            if md5 != expected[name]:
                raise OSError(f"The hash of {path.name} does not match what was expected!\n"
                              f"Expected ({expected[name]}),\nObtained ({md5}).")
            return path
    raise FileNotFoundError(f"{name}.bin is in none of {', '.join(str(f) for f in folders if f)}")


# -- the Gymnasium environment -----------------------------------------------------------------------------
def _as_int32(value: int) -> int:
    return value - 2 ** 32 if value >= 2 ** 31 else value


def _make_atari_env():
    from arcade_lab.engine.gym import ArcadeLabEnv

    class AtariEnv(ArcadeLabEnv):
        """ale-py's ``AtariEnv``: Arcade Lab's Gymnasium environment driven through an :class:`ALEInterface`
        (``env.ale``), with ale-py's ``Action`` values in ``_action_set`` and ``ALEState`` snapshots.
        ``render_mode="human"`` shows the game in a window at the console's pace."""

        metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}

        def _ale_view(self) -> ALEInterface:
            ale = ALEInterface()
            ale.setLoggerMode(LoggerMode.Error)
            ale.setFloat("repeat_action_probability", self._sticky)
            if self._max_frames:
                ale.setInt("max_num_frames_per_episode", self._max_frames)
            if self.render_mode == "human":
                ale.setBool("display_screen", True)
                ale.setBool("sound", True)
            ale.setBool("sound_obs", bool(self.sound_obs))
            return ale

        def load_game(self) -> None:
            """ale-py's: loadROM with this environment's seed, then its mode and difficulty."""
            ale = self.ale
            ale.setInt("random_seed", _as_int32(self._ale_seed))
            path = roms.get_rom_path(self._game)
            if path is None:
                raise gymnasium.error.Error(f"unknown game {self._game!r} (ids: {', '.join(get_all_rom_ids())})")
            ale.loadROM(path)
            if self._mode is not None:
                ale.setMode(self._mode)
            if self._difficulty is not None:
                ale.setDifficulty(self._difficulty)
            self.machine, self._sound = ale._env, ale._sound

        def __init__(self, *args, **kwargs):
            try:
                super().__init__(*args, **kwargs)
            except TypeError as e:  # a wrong argument: named for the class asked for, as ale-py names it
                if str(e).startswith("ArcadeLabEnv.__init__()"):
                    raise TypeError("AtariEnv" + str(e)[len("ArcadeLabEnv"):]) from None
                raise
            self._action_set = [Action(a) for a in self._action_ids]

        @staticmethod
        def map_action_idx(left_center_right: int, down_center_up: int, fire: bool) -> Action:
            return Action(ArcadeLabEnv.map_action_idx(left_center_right, down_center_up, fire))

        def reset(self, *, seed=None, options=None):
            out = super().reset(seed=seed, options=options)
            self._human_frame()
            return out

        def step(self, action):
            out = super().step(action)
            self._human_frame()
            return out

        def _human_frame(self) -> None:
            if self.render_mode == "human":
                frames = self.machine.frame_number - getattr(self, "_shown_frame", self.machine.frame_number)
                self._shown_frame = self.machine.frame_number
                self.ale._show(max(1, frames))

        def close(self) -> None:
            self.ale._close_window()
            super().close()

        def clone_state(self, include_rng: bool = False) -> ALEState:
            return self.ale.cloneState(include_rng=include_rng)

        def restore_state(self, state: ALEState) -> None:
            self.ale.restoreState(state)

    AtariEnv.__module__ = __name__
    AtariEnv.__qualname__ = "AtariEnv"  # pickle finds it through this module's __getattr__
    return AtariEnv


class ALEVectorInterface:
    """ale-py's ``ALEVectorInterface``: its constructor's arguments, ``reset(reset_indices, reset_seeds)``,
    ``send(action_idx, paddle_strength)``, ``recv()``, ``get_action_set()`` (``Action`` values),
    ``get_num_envs()``, ``get_observation_shape()`` and ``handle()``; ``AtariVectorEnv.ale`` is one. It
    runs on an ``AtariVectorEnv`` made with the same options."""

    def __init__(self, rom_path: os.PathLike, num_envs: int, frame_skip: int = 4, stack_num: int = 4,
                 img_height: int = 84, img_width: int = 84, grayscale: bool = True, maxpool: bool = True,
                 noop_max: int = 30, use_fire_reset: bool = True, episodic_life: bool = False,
                 life_loss_info: bool = False, reward_clipping: bool = True, max_episode_steps: int = 108000,
                 repeat_action_probability: float = 0.0, full_action_space: bool = False, batch_size: int = 0,
                 num_threads: int = 0, thread_affinity_offset: int = -1, autoreset_mode="NextStep") -> None:
        env = sys.modules[__name__].AtariVectorEnv(   # (made on first use, as the module's other classes)
            os.fspath(rom_path), num_envs, frameskip=frame_skip, stack_num=stack_num, img_height=img_height,
            img_width=img_width, grayscale=grayscale, maxpool=maxpool, noop_max=noop_max,
            use_fire_reset=use_fire_reset, episodic_life=episodic_life, life_loss_info=life_loss_info,
            reward_clipping=reward_clipping, max_num_frames_per_episode=max_episode_steps,
            repeat_action_probability=repeat_action_probability, full_action_space=full_action_space,
            batch_size=batch_size, num_threads=num_threads, thread_affinity_offset=thread_affinity_offset,
            autoreset_mode=autoreset_mode)
        self._env = env  # it owns the lanes; its own ``ale`` is this interface's view of them
        self._vi = env.ale._vi

    @classmethod
    def _over(cls, vi) -> "ALEVectorInterface":
        view = cls.__new__(cls)
        view._env, view._vi = None, vi
        return view

    def reset(self, reset_indices: np.ndarray, reset_seeds: np.ndarray):
        return self._vi.reset(reset_indices, reset_seeds)

    def send(self, action_idx: np.ndarray, paddle_strength: np.ndarray | None) -> None:
        self._vi.send(action_idx, paddle_strength)

    def recv(self):
        return self._vi.recv()

    def get_action_set(self) -> list[Action]:
        return [Action(a) for a in self._vi.get_action_set()]

    def get_num_envs(self) -> int:
        return self._vi.get_num_envs()

    def get_observation_shape(self) -> tuple:
        return self._vi.get_observation_shape()

    def handle(self) -> np.ndarray:
        return self._vi.handle()

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
        else:
            self._vi.close()


def _make_vector_env():
    from arcade_lab.engine.vector import ArcadeLabVectorEnv

    class AtariVectorEnv(ArcadeLabVectorEnv):
        """ale-py's ``AtariVectorEnv`` (Arcade Lab's ``ArcadeLabVectorEnv``), whose ``ale`` is an
        :class:`ALEVectorInterface`."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.ale = ALEVectorInterface._over(self.ale)

    AtariVectorEnv.__module__ = __name__
    AtariVectorEnv.__qualname__ = "AtariVectorEnv"
    return AtariVectorEnv


_LAZY = {"AtariEnv": _make_atari_env, "AtariVectorEnv": _make_vector_env}


def __getattr__(name):
    # The emulator loads when an environment class is first asked for, not at import.
    if name in _LAZY:
        value = _LAZY[name]()
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- ale-py's submodules and Gymnasium ids ------------------------------------------------------------------
def _submodule(name: str, doc: str, lazy=(), **attrs) -> types.ModuleType:
    mod = types.ModuleType(f"{__name__}.{name}", doc)
    mod.__dict__.update(attrs)
    if lazy:
        def attr(key):
            if key in lazy:
                return getattr(sys.modules[__name__], key)
            raise AttributeError(f"module {mod.__name__!r} has no attribute {key!r}")

        mod.__getattr__ = attr
    sys.modules[mod.__name__] = mod
    return mod


def rom_id_to_name(rom: str) -> str:
    """``montezuma_revenge`` -> ``MontezumaRevenge``."""
    return game_name(rom)


def _register(env_id: str, **kwargs) -> None:
    # an id ale-py registered (it was imported first) now makes ours; re-registering ours is a no-op
    spec = gymnasium.registry.get(env_id)
    if spec is not None and spec.entry_point == kwargs["entry_point"]:
        return
    gymnasium.registry.pop(env_id, None)
    gymnasium.register(id=env_id, **kwargs)


def register_v0_v4_envs() -> None:
    """``<Game>-v0``/``-v4`` and their ``NoFrameskip`` ids for the 62 legacy games, as ale-py's."""
    for rom in LEGACY_GAMES:
        for suffix, frameskip in (("", (2, 5)), ("NoFrameskip", 1)):
            for version, p in (("v0", 0.25), ("v4", 0.0)):
                _register(f"{rom_id_to_name(rom)}{suffix}-{version}", entry_point=f"{__name__}.env:AtariEnv",
                          kwargs=dict(game=rom, repeat_action_probability=p, full_action_space=False,
                                      frameskip=frameskip, max_num_frames_per_episode=108_000))


def register_v5_envs() -> None:
    """``ALE/<Game>-v5`` for every single-player game, as ale-py's."""
    for rom in get_all_rom_ids():
        if rom in {"combat", "joust", "maze_craze", "warlords"}:  # multiplayer only
            continue
        _register(f"ALE/{rom_id_to_name(rom)}-v5", entry_point=f"{__name__}.env:AtariEnv",
                  vector_entry_point=f"{__name__}.vector_env:AtariVectorEnv",
                  kwargs=dict(game=rom, repeat_action_probability=0.25, full_action_space=False, frameskip=4,
                              max_num_frames_per_episode=108_000))


roms = _submodule("roms", "ROM files by game id (ale-py's ``ale_py.roms``).", get_all_rom_ids=get_all_rom_ids,
                  get_rom_path=get_rom_path)
env = _submodule("env", "The Gymnasium environment (ale-py's ``ale_py.env``).", lazy=("AtariEnv",),
                 AtariEnvStepMetadata=AtariEnvStepMetadata)
vector_env = _submodule("vector_env", "The vector environment (Arcade Lab's own; see the module docs).",
                        lazy=("AtariVectorEnv",))
registration = _submodule("registration", "The Gymnasium ids (ale-py's ``ale_py.registration``).",
                          rom_id_to_name=rom_id_to_name, register_v0_v4_envs=register_v0_v4_envs,
                          register_v5_envs=register_v5_envs)

register_v0_v4_envs()
register_v5_envs()
