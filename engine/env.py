"""``engine.Env``: the Arcade Learning Environment, number for number (ALE 0.12.1 semantics).

Constructing an Env is ALE's ``loadROM`` (power-on, display autodetect, first reset in the default mode)
followed by ``setMode``/``setDifficulty``, exactly as ale-py's AtariEnv does; ``reset()`` is
``reset_game()``. All per-frame work (input, emulation, the game's rules, sticky actions) is compiled.
"""
from __future__ import annotations

import time

import numpy as np

from . import ale_core, games
from .console import _SNAP_SHAPE, Console, State, StateError
from .games.base import ACTION_MEANINGS, ALL_ACTIONS
from .layout import (E_DIFF, E_EPFRAME, E_FRAME, E_FRAMESKIP, E_GAME, E_MAXFRAMES, E_MAXLIVES, E_MODE, E_PADDLE_MAX,
                     E_PADDLE_MIN, E_PAL, E_STICKY_THRESH, E_TRUNC_LIFE, E_USE_PADDLES, T_FBCUR)
from .palettes import NTSC_GRAY, PAL_GRAY
from .rng import mt_seed, new_rng
from .roms import RomError

__all__ = ["Env", "State", "StateError", "sticky_threshold", "paddle_delta"]


def sticky_threshold(p: float) -> int:
    """ALE keeps the new action when ``mt19937()/2^32 >= p`` with p a C ``float``; as an integer test:
    ``mt19937() >= ceil(float32(p) * 2^32)``."""
    pf = float(np.float32(p))
    if pf <= 0.0:
        return 0
    return int(np.ceil(pf * 4294967296.0))


def paddle_delta(strength: float) -> int:
    """ALE's ``static_cast<int>(PADDLE_DELTA * fabs(strength))`` in single precision."""
    return int(np.float32(23000.0) * np.abs(np.float32(strength)))


_DELTA_FULL = paddle_delta(1.0)


class Env:
    """An ALE-equivalent environment for one ROM (by game id or path)."""

    def __init__(self, game_or_rom_path, *, mode: int | None = None, difficulty: int | None = None,
                 frameskip: int = 1, repeat_action_probability: float = 0.25,
                 max_num_frames_per_episode: int = 0, full_action_space: bool = False,
                 seed: int | None = None, truncate_on_loss_of_life: bool = False):
        if not isinstance(frameskip, (int, np.integer)) or isinstance(frameskip, bool):
            raise ValueError(f"frameskip must be an integer, got {frameskip!r}")
        if not 0.0 <= float(repeat_action_probability) <= 1.0:
            raise ValueError(f"repeat_action_probability must be in [0, 1], got {repeat_action_probability!r}")
        if max_num_frames_per_episode < 0:
            raise ValueError("max_num_frames_per_episode must be >= 0 (0 means no limit)")
        self.console = Console(game_or_rom_path)
        self.info = self.console.info
        reg = games.get(self.info.id) if self.info.supported else None
        self.game = reg[1] if reg else None
        self.full_action_space = full_action_space
        s = self.console.s
        s[E_GAME] = reg[0] if reg else -1
        s[E_PAL] = 1 if self.console.pal else 0
        props = self.info.props
        s[E_USE_PADDLES] = 1 if "PADDLES" in (props.controller_left, props.controller_right) else 0
        s[E_PADDLE_MIN] = ale_core.PADDLE_MIN
        s[E_PADDLE_MAX] = (self.game.paddle_max if self.game and self.game.paddle_max else ale_core.PADDLE_MAX)
        ale_core.reset_paddles(s)
        s[E_FRAMESKIP] = max(1, int(frameskip))  # ALE forces values below 1 to 1
        s[E_STICKY_THRESH] = sticky_threshold(repeat_action_probability)
        s[E_MAXFRAMES] = int(max_num_frames_per_episode)
        s[E_TRUNC_LIFE] = 1 if truncate_on_loss_of_life else 0
        self.repeat_action_probability = float(repeat_action_probability)
        self.seed = int(time.time()) & 0xFFFFFFFF if seed is None else int(seed) & 0xFFFFFFFF
        self.rng = new_rng(self.seed)
        s[E_MODE] = self.game.default_mode if self.game else 0
        s[E_DIFF] = 0
        # lives at construction: the rules' reset values, before any frame (ALE m_max_lives)
        ale_core.dispatch.game_reset(s, s[E_GAME])
        s[E_MAXLIVES] = ale_core.lives(s)
        # Frames inside a frame skip that nobody sees skip their pixel writes (ale_core.act_observed: exact,
        # replaying a step fully drawn when its last frame does not cover the window); scratch copies:
        self._snap_scratch = np.empty_like(s)
        self._rng_scratch = np.empty_like(self.rng)
        self._draw_all = False
        self._reset()
        if mode is not None:
            self.set_mode(mode)
        if difficulty is not None:
            self.set_difficulty(difficulty)

    # -- ALE interface --------------------------------------------------------------------------------
    def reset(self) -> None:
        """ALE ``reset_game``: the full reset choreography."""
        self._reset()

    def _reset(self) -> None:
        c = self.console
        ale_core.reset_for_observer(c.s, c.rom, c.fb, self.rng, self._snap_scratch, self._rng_scratch,
                                    self._draw_all)
        self._screen_buffer = int(c.s[T_FBCUR])

    def act(self, action: int, paddle_strength: float = 1.0) -> int:
        """Play ``action`` for frame-skip frames (sticky actions per frame); the summed reward."""
        a = int(action)
        if a != action or not 0 <= a < 18:
            raise ValueError(f"action must be an ALE action id 0..17, got {action!r}")
        s = self.console.s
        # the float32 arithmetic costs ~1.5 µs a step; the default strength's delta is a constant
        delta = _DELTA_FULL if paddle_strength == 1.0 else paddle_delta(paddle_strength)
        r, self._draw_all = ale_core.act_observed(s, self.console.rom, self.console.fb, self.rng, a, delta,
                                                  self._snap_scratch, self._rng_scratch, self._draw_all)
        self._screen_buffer = int(s[T_FBCUR])
        return int(r)

    def act_frames(self, action: int, frames: int, paddle_strength: float = 1.0) -> int:
        """``act`` for an explicit number of frames (stochastic frame skip of the Gymnasium v0/v4 ids)."""
        s = self.console.s
        old = int(s[E_FRAMESKIP])
        s[E_FRAMESKIP] = max(1, int(frames))
        try:
            return self.act(action, paddle_strength)
        finally:
            s[E_FRAMESKIP] = old

    def game_truncated(self) -> bool:
        """Ended by the frame cap (or a lost life, when asked) rather than by the game."""
        return bool(ale_core.is_truncated(self.console.s))

    def game_over(self, with_truncation: bool = True) -> bool:
        s = self.console.s
        return bool(ale_core.is_terminal(s)) if with_truncation else bool(s[ale_core.G_TERMINAL])

    def lives(self) -> int:
        return int(ale_core.lives(self.console.s))

    @property
    def frame_number(self) -> int:
        return int(self.console.s[E_FRAME])

    @property
    def episode_frame_number(self) -> int:
        return int(self.console.s[E_EPFRAME])

    # -- observations ---------------------------------------------------------------------------------
    def screen(self) -> np.ndarray:
        """(H, 160) uint8 palette indices, as ALE ``getScreen``."""
        return self.console.screen(self._screen_buffer).copy()

    def screen_rgb(self) -> np.ndarray:
        return self.console.palette()[self.console.screen(self._screen_buffer)]

    def screen_grayscale(self) -> np.ndarray:
        lut = PAL_GRAY if self.console.pal else NTSC_GRAY
        return lut[self.console.screen(self._screen_buffer)]

    def ram(self) -> np.ndarray:
        return self.console.ram()

    # -- snapshots --------------------------------------------------------------------------------------
    def clone_state(self, include_rng: bool = False) -> State:
        c = self.console  # (inlined Console.clone_state: this round trip is on search agents' hot path)
        return State(c._md5, c._snap.copy(), self.rng.copy() if include_rng else None)

    def restore_state(self, state: State) -> None:
        c = self.console
        # Console.restore_state inlined for search agents' hot path; a memoryview copy is ~0.2 µs quicker
        # than numpy's assignment and refuses anything but the same int64 layout.
        if type(state) is State and state.md5 == c._md5 and state.data.shape == _SNAP_SHAPE:
            try:
                c._snap_view[:] = state.data
            except (TypeError, ValueError):
                c.restore_state(state)
        else:
            c.restore_state(state)  # refuses with the reason
        if state.rng is not None:
            self.rng[:] = state.rng

    # -- action sets, modes, difficulties ------------------------------------------------------------
    def minimal_actions(self) -> list[int]:
        return list(self.game.minimal_action_set()) if self.game else list(ALL_ACTIONS)

    def legal_actions(self) -> list[int]:
        return list(self.game.legal_actions()) if self.game else list(ALL_ACTIONS)

    def action_set(self) -> list[int]:
        return self.legal_actions() if self.full_action_space else self.minimal_actions()

    def action_meanings(self) -> list[str]:
        return [ACTION_MEANINGS[a] for a in self.action_set()]

    def available_modes(self) -> list[int]:
        return list(self.game.modes) if self.game else [0]

    def available_difficulties(self) -> list[int]:
        return list(self.game.difficulties) if self.game else [0]

    def set_mode(self, m: int) -> None:
        """Takes effect at the next ``reset()`` (ALE)."""
        if m not in self.available_modes():
            raise ValueError(f"mode {m!r} is not available for {self.info.id} (modes: {self.available_modes()})")
        self.console.s[E_MODE] = int(m)

    def set_difficulty(self, d: int) -> None:
        """Takes effect on the next emulated frame (ALE)."""
        if d not in self.available_difficulties():
            raise ValueError(f"difficulty {d!r} is not available for {self.info.id} "
                             f"(difficulties: {self.available_difficulties()})")
        self.console.s[E_DIFF] = int(d)

    @property
    def mode(self) -> int:
        return int(self.console.s[E_MODE])

    @property
    def difficulty(self) -> int:
        return int(self.console.s[E_DIFF])

    def seed_rng(self, seed: int) -> None:
        """Reseed the environment RNG (sticky actions, Adventure's mode selection)."""
        self.seed = int(seed) & 0xFFFFFFFF
        mt_seed(self.rng, 0, 1, self.seed)


# keep RomError importable from here for callers that only import env
RomError = RomError
