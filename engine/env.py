"""``engine.Env``: the Arcade Learning Environment, number for number (ALE 0.12.1 semantics).

Constructing an Env is ALE's ``loadROM`` (power-on, display autodetect, first reset in the default mode)
followed by ``setMode``/``setDifficulty``, exactly as ale-py's AtariEnv does; ``reset()`` is
``reset_game()``. All per-frame work (input, emulation, the game's rules, sticky actions) is compiled.
"""
from __future__ import annotations

import time

import numpy as np

from . import ale_core, games, machine, observe
from .console import _SNAP_SHAPE, Console, State, StateError
from .games.base import ACTION_MEANINGS, ALL_ACTIONS, G_SCORE, G_TERMINAL
from .layout import (AUD_N, AUD_ON, E_DIFF, E_EPFRAME, E_FRAME, E_FRAMESKIP, E_GAME, E_LAST_ACT, E_LAST_DELTA,
                     E_MAXFRAMES, E_MAXLIVES, E_MODE, E_PADDLE, E_PADDLE_MAX, E_PADDLE_MIN, E_PAL, E_STICKY_THRESH,
                     E_TRUNC_LIFE, E_USE_PADDLES, EV_BW, EV_COLOR, EV_P_RES, EV_RESET, EV_SELECT, N_SNAPSHOT, T_FBCUR,
                     T_FP, T_GREYED, T_P0M_POS, T_PARTIAL, T_PFM_REFL)
from .machine import latch_inputs, run_frame
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

# What ALE's restoreState leaves as it was: the environment's sticky action and its paddle strength, and
# the TIA fields its save omits (the frame being drawn: pointer, buffer, partial and greyed flags; the
# object mask pointers, which stay stale until the object next changes).
KEPT_ON_RESTORE = np.r_[E_LAST_ACT:E_LAST_ACT + 2, E_LAST_DELTA:E_LAST_DELTA + 2, T_FP, T_FBCUR, T_PARTIAL,
                        T_GREYED, T_P0M_POS:T_PFM_REFL + 1]
# each joystick action with its directions dropped: a paddle's fire button alone
_FIRE_ONLY = [ale_core.FIRE if int(f) else ale_core.NOOP for f in ale_core.JOYSTICK_TABLE[:18, 4]]


class UnavailableSetting(ValueError, RuntimeError):
    """A mode or difficulty the game does not have. A ValueError, and a RuntimeError as ale-py raises
    there, so that code written for either catches it."""


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
        self._made_from = game_or_rom_path
        self.info = self.console.info
        reg = games.get(self.info.id) if self.info.supported else None
        self.game = reg[1] if reg else None
        self.full_action_space = full_action_space
        s = self.console.s
        s[E_GAME] = reg[0] if reg else -1
        machine.install_kernels(s)  # this game's rules: compiled (or loaded) now, on first use
        s[E_PAL] = 1 if self.console.pal else 0
        props = self.info.props
        s[E_USE_PADDLES] = 1 if "PADDLES" in (props.controller_left, props.controller_right) else 0
        s[E_PADDLE_MIN] = ale_core.PADDLE_MIN
        s[E_PADDLE_MAX] = (self.game.paddle_max if self.game and self.game.paddle_max else ale_core.PADDLE_MAX)
        ale_core.reset_paddles(s)
        s[E_FRAMESKIP] = max(1, int(frameskip))  # ALE forces values below 1 to 1 (frames_per_act refuses them)
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
        c.take_blocks()  # compiled in the background since the console was made
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
        old = self.frames_per_act
        self.frames_per_act = max(1, int(frames))
        try:
            return self.act(action, paddle_strength)
        finally:
            self.frames_per_act = old

    @property
    def frames_per_act(self) -> int:
        """Frames one ``act`` emulates (ALE's frame skip)."""
        return int(self.console.s[E_FRAMESKIP])

    @frames_per_act.setter
    def frames_per_act(self, frames: int) -> None:
        if not isinstance(frames, (int, np.integer)) or isinstance(frames, bool) or frames < 1:
            raise ValueError(f"frames_per_act must be an integer >= 1, got {frames!r}")
        self.console.s[E_FRAMESKIP] = int(frames)

    # -- a person at the console ----------------------------------------------------------------------
    def play_frame(self, action: int = 0, *, paddle: float | None = None, paddle_strength: float = 1.0,
                   reset_switch: bool = False, select_switch: bool = False, color: bool = True,
                   new_game: bool = False, draw: bool = True) -> int:
        """One frame as a person plays it; the frame's reward.

        Player A's joystick is ``action`` (an ALE action id). On paddle games ``paddle`` is an absolute
        knob position in [0, 1] (0 fully left), or None to turn the knob with ``action``'s left/right at
        ``paddle_strength``. The console switches RESET and SELECT are held for this frame, and ``color``
        is the TV-type switch. No sticky actions, no frame skip and no game-over stop: after game over the
        console keeps running its attract mode. ``new_game`` starts the rules' episode again (score 0),
        which a caller does when the player presses RESET."""
        s = self.console.s
        a = int(action)
        if a != action or not 0 <= a < 18:
            raise ValueError(f"action must be an ALE action id 0..17, got {action!r}")
        delta = 0
        if s[E_USE_PADDLES]:
            delta = _DELTA_FULL if paddle_strength == 1.0 else paddle_delta(paddle_strength)
            if paddle is not None:
                target = self.paddle_target(paddle)
                s[E_PADDLE] = target
                s[EV_P_RES] = target
                a = _FIRE_ONLY[a]
        ale_core.apply_action(s, a, ale_core.PLAYER_B_NOOP, delta, 0)
        s[EV_RESET] = 1 if reset_switch else 0
        s[EV_SELECT] = 1 if select_switch else 0
        s[EV_COLOR] = 1 if color else 0
        s[EV_BW] = 0 if color else 1
        latch_inputs(s)
        if new_game and self.game is not None:
            ale_core.dispatch.game_reset(s, s[E_GAME])
            s[E_EPFRAME] = 0
        run_frame(s, self.console.rom, self.console.fb, draw)
        ale_core.dispatch.game_step(s, s[E_GAME])
        s[E_FRAME] += 1
        s[E_EPFRAME] += 1
        self._screen_buffer = int(s[T_FBCUR])
        return int(s[ale_core.G_REWARD]) if self.game is not None else 0

    @property
    def uses_paddles(self) -> bool:
        return bool(self.console.s[E_USE_PADDLES])

    @property
    def paddle_resistance(self) -> int:
        """Player A's paddle knob as ALE keeps it (a resistance: lower is further right)."""
        return int(self.console.s[E_PADDLE])

    @property
    def paddle_range(self) -> tuple[int, int]:
        """The lowest and highest resistance this game's paddle reaches."""
        return int(self.console.s[E_PADDLE_MIN]), int(self.console.s[E_PADDLE_MAX])

    def paddle_target(self, position: float) -> int:
        """The resistance of a knob turned to ``position`` in [0, 1] (0 fully left; clamped): turning right
        lowers the resistance, as ALE's RIGHT does."""
        lo, hi = self.paddle_range
        return int(hi - min(max(float(position), 0.0), 1.0) * (hi - lo))

    @property
    def has_rules(self) -> bool:
        """Whether ALE has rules for this ROM (score, lives, game over); other ROMs just run."""
        return self.game is not None

    @property
    def score(self) -> int:
        """The episode's score so far, as the game's rules read it."""
        return int(self.console.s[G_SCORE])

    @property
    def rules_game_over(self) -> bool:
        """The game itself has ended (truncation aside)."""
        return self.game is not None and bool(self.console.s[G_TERMINAL])

    def set_difficulty_switch(self, player: int, a: bool) -> None:
        """Flip one console difficulty switch (player 0 left, 1 right; A = set): the bits of ALE's
        difficulty, without the check that the game lists the combination."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        d = int(self.console.s[E_DIFF])
        self.console.s[E_DIFF] = (d | (1 << player)) if a else (d & ~(1 << player))

    @property
    def audio_log(self) -> bool:
        """Whether emulated frames log their sound-register writes (``engine.sound`` renders the log)."""
        return bool(self.console.s[AUD_ON])

    @audio_log.setter
    def audio_log(self, on: bool) -> None:
        self.console.s[AUD_ON] = 1 if on else 0

    def drop_audio_log(self) -> None:
        """Forget the logged sound writes (after a pause or a state load, sound starts from now)."""
        self.console.s[AUD_N] = 0

    def machine_snapshot(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of what the next frames depend on: the machine, the environment RNG and both screen
        buffers (a partly drawn frame shows rows of the frame before)."""
        h = self.console.height * 160
        return self.console.s[:N_SNAPSHOT].copy(), self.rng.copy(), self.console.fb[:2, :h].copy()

    def restore_machine_snapshot(self, state: np.ndarray, rng: np.ndarray, fb: np.ndarray) -> None:
        """Put back a :meth:`machine_snapshot` of this environment."""
        if state.shape != (N_SNAPSHOT,) or rng.shape != self.rng.shape or fb.ndim != 2 or fb.shape[0] != 2:
            raise ValueError("snapshot of another machine layout")
        self.console.s[:N_SNAPSHOT] = state  # the kernel addresses after the prefix stay this process's
        self.rng[:] = rng
        self.console.fb[:2, :fb.shape[1]] = fb
        self._screen_buffer = int(self.console.s[T_FBCUR])

    def standing(self) -> dict:
        """What an Env made with the same arguments needs to go on exactly where this one stands (copies
        and pickles, here and in the Gymnasium environment): the machine, the generators, both screens,
        which frames it draws and its seed."""
        return {"machine": self.machine_snapshot(), "draw_all": self._draw_all,
                "screen_buffer": self._screen_buffer, "seed": self.seed}

    def stand(self, standing: dict) -> None:
        """Go on from a :meth:`standing` of an Env made with the same arguments."""
        self.restore_machine_snapshot(*standing["machine"])
        self._draw_all = standing["draw_all"]
        self._screen_buffer = standing["screen_buffer"]
        self.seed = standing["seed"]

    def __getstate__(self) -> dict:
        # a copy or an unpickled one loads its cartridge again, then goes on where this one stands
        s = self.console.s
        return {"made_from": self._made_from, "standing": self.standing(),
                "kwargs": dict(frameskip=self.frames_per_act, repeat_action_probability=self.repeat_action_probability,
                               max_num_frames_per_episode=int(s[E_MAXFRAMES]),
                               full_action_space=self.full_action_space, seed=self.seed,
                               truncate_on_loss_of_life=bool(s[E_TRUNC_LIFE]))}

    def __setstate__(self, state: dict) -> None:
        Env.__init__(self, state["made_from"], **state["kwargs"])
        self.stand(state["standing"])

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

    def screen_view(self) -> np.ndarray:
        """The machine's last drawn frame as palette indices, without a copy (valid until the next frame).
        Unlike :meth:`screen` (ALE's ``getScreen``, which a ``restore_state`` leaves alone) this follows
        a restored machine, as a display does."""
        return self.console.screen(int(self.console.s[T_FBCUR]))

    def screen_rgb(self, out: np.ndarray | None = None) -> np.ndarray:
        """(H, 160, 3) uint8, as ALE ``getScreenRGB``; written into ``out`` when given (any uint8 buffer
        of H*160*3 elements; a C-contiguous one is written in place)."""
        return observe.screen_rgb(self.console.screen(self._screen_buffer), self.console.palette(), out)

    def screen_grayscale(self, out: np.ndarray | None = None) -> np.ndarray:
        """(H, 160) uint8 luminance, as ALE ``getScreenGrayscale``; into ``out`` when given."""
        lut = PAL_GRAY if self.console.pal else NTSC_GRAY
        return observe.screen_lut(self.console.screen(self._screen_buffer), lut, out)

    def ram(self) -> np.ndarray:
        return self.console.ram()

    # -- snapshots --------------------------------------------------------------------------------------
    def clone_state(self, include_rng: bool = False) -> State:
        c = self.console  # (inlined Console.clone_state: this round trip is on search agents' hot path)
        return State(c._md5, c._snap.copy(), self.rng.copy() if include_rng else None)

    def restore_state(self, state: State, *, whole: bool = False) -> None:
        """ALE ``restoreState``: the machine and the episode come back, except what ALE's state leaves
        out, which stays as the last frames left it (:data:`KEPT_ON_RESTORE`): the sticky "previous
        action" and its paddle strength, which belong to ALE's environment, and the TIA's frame-drawing
        position and object masks, which its TIA does not save. A planner's excursion (clone, act,
        restore) thus leaves its last action to be repeated by the next sticky draw, as in ALE.
        ``whole=True`` brings back everything in the state (replaying a recorded episode from its start
        state). The environment RNG comes back only when the state includes it."""
        c = self.console
        s = c.s
        kept = None if whole else s[KEPT_ON_RESTORE]
        # Console.restore_state inlined for search agents' hot path; a memoryview copy is ~0.2 µs quicker
        # than numpy's assignment and refuses anything but the same int64 layout.
        if type(state) is State and state.md5 == c._md5 and state.data.shape == _SNAP_SHAPE:
            try:
                c._snap_view[:] = state.data
            except (TypeError, ValueError):
                c.restore_state(state)
        else:
            c.restore_state(state)  # refuses with the reason
        if kept is not None:
            s[KEPT_ON_RESTORE] = kept
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
            raise UnavailableSetting(f"mode {m!r} is not available for {self.info.id} "
                                     f"(modes: {self.available_modes()})")
        self.console.s[E_MODE] = int(m)

    def set_difficulty(self, d: int) -> None:
        """Takes effect on the next emulated frame (ALE)."""
        if d not in self.available_difficulties():
            raise UnavailableSetting(f"difficulty {d!r} is not available for {self.info.id} "
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
