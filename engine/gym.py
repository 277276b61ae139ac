"""Gymnasium API over ``engine.Env``, with the same ids and defaults as ale-py's registrations.

``ArcadeLab/<Game>-v5``: frame skip 4, sticky actions 0.25, 108 000-frame cap, minimal action set;
``ArcadeLab/<Game>-v0`` / ``-v4`` (stochastic frame skip 2-4, sticky 0.25 / 0) and their ``NoFrameskip``
variants for the legacy games — mirroring ale-py 0.12.1. ``reset(seed=s)`` reloads the ROM with the
environment RNG seeded exactly as ale-py's AtariEnv does (SeedSequence(s) -> (numpy seed, ALE seed)).

``sound_obs=True`` adds ALE's sound observation (:class:`SoundObs`). The environment pickles and
deep-copies with its whole machine: a copy continues exactly as the original would. A window for
``render_mode="human"`` is not the engine's business: ``gymnasium.make(id, render_mode="human")`` wraps
the environment in Gymnasium's HumanRendering, and ``arcade_lab.ale_compat.AtariEnv`` opens its own.
"""
from __future__ import annotations

import copy
import operator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import error, spaces
from gymnasium.utils import EzPickle, seeding

from . import ale_core, observe, sound
from .env import _DELTA_FULL, Env
from .games.base import ACTION_MEANINGS
from .layout import (AUD_LOG_MAX, AUD_LOG_OFFSET, AUD_N, AUD_ON, CYC, E_EPFRAME, E_FRAME, E_FRAMESKIP, T_AUDC0,
                     T_AUDC1, T_AUDF0, T_AUDF1, T_AUDV0, T_AUDV1, T_FBCUR)
from .palettes import NTSC_GRAY, PAL_GRAY
from .registration import LEGACY_GAMES, NAMESPACE, game_name, register  # noqa: F401

# ale-py's keys for gymnasium.utils.play: w a s d move, space fires, e does nothing
_UP, _LEFT, _DOWN, _RIGHT, _FIRE, _NOOP = "w", "a", "s", "d", " ", "e"
KEYS_OF_ACTION = {
    0: (_NOOP,), 1: (_FIRE,), 2: (_UP,), 3: (_RIGHT,), 4: (_LEFT,), 5: (_DOWN,),
    6: (_UP, _RIGHT), 7: (_UP, _LEFT), 8: (_DOWN, _RIGHT), 9: (_DOWN, _LEFT),
    10: (_UP, _FIRE), 11: (_RIGHT, _FIRE), 12: (_LEFT, _FIRE), 13: (_DOWN, _FIRE),
    14: (_UP, _RIGHT, _FIRE), 15: (_UP, _LEFT, _FIRE), 16: (_DOWN, _RIGHT, _FIRE), 17: (_DOWN, _LEFT, _FIRE),
}


def action_id(action) -> int:
    """An ALE action id from an int or an enum member such as ``ale_py.Action.FIRE``."""
    return int(getattr(action, "value", action))


class SoundObs:
    """ALE's ``sound_obs``: 512 unsigned 8-bit samples (128 is silence) after every ``act``.

    ALE queues the sound-register writes of the frames it emulates and, when an act's last frame is done,
    applies them (only the last write to each register counts) and clocks its two voices 512 times, one
    sample per clock. In ale-py 0.12.1 nothing else touches the voices or the queue: a reset or a
    restored state leaves both as they are, and states carry no sound. The voices are ``engine.sound``'s
    (the same Stella model); our frames log the writes (``Env.audio_log``). Writes made only while a
    ROM is first powered on (before its first reset) are not heard."""

    SAMPLES = 512
    _MASKS = (0x0F, 0x0F, 0x1F, 0x1F, 0x0F, 0x0F)  # AUDC0 AUDC1 AUDF0 AUDF1 AUDV0 AUDV1, registers 0x15..0x1A
    _TIA_REGS = (T_AUDC0, T_AUDC1, T_AUDF0, T_AUDF1, T_AUDV0, T_AUDV1)

    def __init__(self):
        self.voices = sound.new_voices()
        self.samples = np.zeros(self.SAMPLES, dtype=np.uint8)
        self._levels = np.zeros(self.SAMPLES, dtype=np.float64)
        # synth_frame's inputs for "no timed writes, 512 samples": a clock at 512 sample periods, no log
        self._clock = np.zeros(max(AUD_N, CYC) + 1, dtype=np.int64)
        self._no_log = np.zeros((3, 1), dtype=np.uint8)

    def take_writes(self, env: Env) -> None:
        """Apply the writes ``env`` logged so far and empty its log (applying them early changes nothing:
        only the samples are made at the end of an act)."""
        s = env.console.s
        n = int(s[AUD_N])
        if n:
            log = env.console.fb[2, AUD_LOG_OFFSET:AUD_LOG_OFFSET + 5 * n].reshape(n, 5)
            last = dict(zip(log[:, 3].tolist(), log[:, 4].tolist()))  # the last write to each register
            if n >= AUD_LOG_MAX:  # a full log may have dropped later writes: the TIA has their values
                last = {0x15 + i: int(s[reg]) for i, reg in enumerate(self._TIA_REGS)}
            for addr, value in last.items():
                i = addr - 0x15
                self.voices[sound.V_AUDC + i] = value & self._MASKS[i]
        s[AUD_N] = 0

    def act(self, env: Env) -> np.ndarray:
        """What ALE does at the end of an act: the queued writes, then 512 samples into ``samples``."""
        self.take_writes(env)
        self._clock[AUD_N] = 0
        self._clock[CYC] = self.SAMPLES * sound.CYCLES_PER_SAMPLE
        sound.synth_frame(self._clock, self._no_log, self.voices, self._levels)
        # synth_frame's level/30 - 0.5 back to ALE's 128 + 4 * (AUDV0 + AUDV1 of the voices that are high)
        np.rint((self._levels + 0.5) * 120.0, out=self._levels)
        self.samples[:] = self._levels.astype(np.uint8) + 128
        return self.samples

    def restore(self, env: Env, state, **kwargs) -> None:
        """``env.restore_state(state)`` with the sound left as ALE leaves it: the writes waiting stay, and
        the state's own log switch and count do not come back."""
        self.take_writes(env)
        env.restore_state(state, **kwargs)
        env.console.s[AUD_ON] = 1
        env.console.s[AUD_N] = 0

    def __deepcopy__(self, memo):
        new = SoundObs()
        new.voices[:] = self.voices
        new.samples[:] = self.samples
        return new


class _SoundEnv(Env):
    """An Env that logs its sound-register writes for a :class:`SoundObs`, from its first reset on."""

    def __init__(self, game_or_rom_path, *, sound_obs: SoundObs, **kwargs):
        self.sound_obs = sound_obs
        super().__init__(game_or_rom_path, **kwargs)

    def __getstate__(self):
        raise TypeError("this environment logs sound for a Gymnasium environment: copy or pickle that one")

    def _reset(self) -> None:
        self.sound_obs.take_writes(self)  # room in the log for the reset's frames
        self.console.s[AUD_ON] = 1
        super()._reset()


def make_env(game_or_rom_path, *, sound_obs: SoundObs | None = None, **kwargs) -> Env:
    """An :class:`Env`, logging its sound for ``sound_obs`` when one is given."""
    if sound_obs is None:
        return Env(game_or_rom_path, **kwargs)
    return _SoundEnv(game_or_rom_path, sound_obs=sound_obs, **kwargs)


class AleView:
    """The subset of ``ale_py.ALEInterface`` that Gymnasium's wrappers (e.g. AtariPreprocessing) and
    ALE-style code call, answered by our environment (camelCase names as in ale-py). The whole interface
    is ``arcade_lab.ale_compat.ALEInterface``."""

    def __init__(self, owner: "ArcadeLabEnv"):
        self._owner = owner

    @property
    def _env(self) -> Env:
        return self._owner.machine

    @staticmethod
    def _out(data: np.ndarray, out):
        """``data``, or None once written into the caller's ``out`` (as ale-py's getters do)."""
        if out is None:
            return data
        np.copyto(out.reshape(data.shape), data)
        return None

    def lives(self) -> int:
        return self._env.lives()

    def act(self, action, paddle_strength: float = 1.0) -> int:
        r = self._env.act(action_id(action), paddle_strength)
        if self._owner._sound is not None:
            self._owner._sound.act(self._env)
        return r

    def game_over(self, with_truncation: bool = True) -> bool:
        return self._env.game_over(with_truncation)

    def game_truncated(self) -> bool:
        return self._env.game_truncated()

    def reset_game(self) -> None:
        self._env.reset()

    def getScreen(self, out=None):  # noqa: N802  (ale-py's names)
        return self._out(self._env.screen(), out)

    def getScreenRGB(self, out=None):  # noqa: N802
        image = self._owner._screen(True, out)
        return image if out is None else None

    def getScreenGrayscale(self, out=None):  # noqa: N802
        image = self._owner._screen(False, out)
        return image if out is None else None

    def getRAM(self, out=None):  # noqa: N802
        return self._out(self._env.ram(), out)

    def getAudio(self, out=None):  # noqa: N802
        snd = self._owner._sound
        return self._out(np.zeros(SoundObs.SAMPLES, np.uint8) if snd is None else snd.samples.copy(), out)

    def getScreenDims(self):  # noqa: N802
        return (self._env.console.height, 160)

    def getEpisodeFrameNumber(self) -> int:  # noqa: N802
        return self._env.episode_frame_number

    def getFrameNumber(self) -> int:  # noqa: N802
        return self._env.frame_number

    def getMinimalActionSet(self):  # noqa: N802
        return self._env.minimal_actions()

    def getLegalActionSet(self):  # noqa: N802
        return self._env.legal_actions()

    def getAvailableModes(self):  # noqa: N802
        return self._env.available_modes()

    def getAvailableDifficulties(self):  # noqa: N802
        return self._env.available_difficulties()

    def setMode(self, m) -> None:  # noqa: N802
        self._env.set_mode(m)

    def setDifficulty(self, d) -> None:  # noqa: N802
        self._env.set_difficulty(d)

    def cloneState(self, include_rng: bool = False):  # noqa: N802
        return self._owner.clone_state(include_rng=include_rng)

    def restoreState(self, state) -> None:  # noqa: N802
        self._owner.restore_state(state)


def _index(action) -> int:
    """A discrete action as an index into the action set: an integer (numpy's too), never a float that
    would be truncated into another action."""
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(f"a discrete action is an integer index into the action set, got {action!r}") from None


class ArcadeLabEnv(gymnasium.Env, EzPickle):
    """Drop-in counterpart of ``ale_py.env.AtariEnv`` backed by our emulator."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, game: str, mode: int | None = None, difficulty: int | None = None,
                 obs_type: str = "rgb", frameskip: tuple[int, int] | int = 4,
                 repeat_action_probability: float = 0.25, full_action_space: bool = False,
                 continuous: bool = False, continuous_action_threshold: float = 0.5,
                 max_num_frames_per_episode: int | None = None, render_mode: str | None = None,
                 sound_obs: bool = False):
        if obs_type not in {"rgb", "grayscale", "ram"}:
            raise error.Error(f"Invalid observation type: {obs_type}. Expecting: rgb, grayscale, ram.")
        if type(frameskip) not in (int, tuple):
            raise error.Error(f"Invalid frameskip type: {type(frameskip)}.")
        if isinstance(frameskip, int) and frameskip <= 0:
            raise error.Error(f"Invalid frameskip of {frameskip}, frameskip must be positive.")
        if isinstance(frameskip, tuple) and (len(frameskip) != 2 or frameskip[0] >= frameskip[1]
                                             or frameskip[0] <= 0):
            raise error.Error(f"Invalid stochastic frameskip {frameskip}: expected (low, high), 0 < low < high.")
        if render_mode == "human" and "human" not in self.metadata["render_modes"]:
            raise error.Error(
                "render_mode='human' needs a window, which this environment does not open: make it with "
                "gymnasium.make(env_id, render_mode='human') (Gymnasium's HumanRendering wrapper) or use "
                "arcade_lab.ale_compat.AtariEnv")
        if render_mode is not None and render_mode not in {"rgb_array", "human"}:
            raise error.Error(f"Render mode {render_mode} not supported (rgb_array, human).")
        EzPickle.__init__(self, game=game, mode=mode, difficulty=difficulty, obs_type=obs_type,
                          frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                          full_action_space=full_action_space, continuous=continuous,
                          continuous_action_threshold=continuous_action_threshold,
                          max_num_frames_per_episode=max_num_frames_per_episode, render_mode=render_mode,
                          sound_obs=sound_obs)
        self._game = game
        self._mode = mode
        self._difficulty = difficulty
        self._obs_type = obs_type
        self._frameskip = frameskip
        self._sticky = repeat_action_probability
        self._max_frames = max_num_frames_per_episode or 0
        self.render_mode = render_mode
        self.sound_obs = sound_obs
        self._sound: SoundObs | None = None
        self.continuous = continuous
        self.continuous_action_threshold = continuous_action_threshold
        self._full = full_action_space or continuous
        self.ale = self._ale_view()
        self._screens_of: Env | None = None
        self.seed_game()
        self.load_game()
        self._action_ids = self.machine.legal_actions() if self._full else self.machine.minimal_actions()
        self._action_set = list(self._action_ids)
        if continuous:
            self.action_space = spaces.Box(low=np.array([0.0, -np.pi, 0.0], np.float32),
                                           high=np.array([1.0, np.pi, 1.0], np.float32), dtype=np.float32)
        else:
            self.action_space = spaces.Discrete(len(self._action_ids))
        if obs_type == "ram":
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=(128,))
        else:
            h = self.machine.console.height
            shape = (h, 160, 3) if obs_type == "rgb" else (h, 160)
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=shape)
        if sound_obs:
            self.observation_space = spaces.Dict(
                image=self.observation_space,
                sound=spaces.Box(low=0, high=255, dtype=np.uint8, shape=(SoundObs.SAMPLES,)))

    def _ale_view(self):
        return AleView(self)

    # -- seeding and loading, as ale-py -------------------------------------------------------------
    def seed_game(self, seed: int | None = None) -> tuple[int, int]:
        ss = np.random.SeedSequence(seed)
        np_seed, ale_seed = ss.generate_state(n_words=2)
        self._np_random, _ = seeding.np_random(int(np_seed))
        # ale-py passes np.int32(ale_seed); ALE then seeds mt19937 with it as uint32 (-1 means "time").
        self._ale_seed = int(ale_seed) & 0xFFFFFFFF
        return np_seed, ale_seed  # numpy uint32s, as ale-py's

    def load_game(self) -> None:
        """ALE's ``loadROM`` with this environment's settings, then its mode and difficulty."""
        seed = None if self._ale_seed == 0xFFFFFFFF else self._ale_seed
        self._sound = SoundObs() if self.sound_obs else None
        self.machine = make_env(self._game, sound_obs=self._sound, mode=self._mode, difficulty=self._difficulty,
                            frameskip=1, repeat_action_probability=self._sticky,
                            max_num_frames_per_episode=self._max_frames, full_action_space=self._full,
                            seed=seed)

    def _bind_screens(self) -> None:
        """The two frame buffers' screen windows and the colour tables of ``self.machine``, looked up once per
        machine (subclasses load games their own way): every step makes an observation, and going through
        ``Env.screen_rgb`` each time costs several microseconds."""
        self._screens_of = self.machine
        c = self.machine.console
        n = c.height * 160
        self._screens = (c.fb[0, :n], c.fb[1, :n])
        self._palette = c.palette()
        self._gray_lut = PAL_GRAY if c.pal else NTSC_GRAY
        self._shapes = {True: (c.height, 160, 3), False: (c.height, 160)}

    def _screen(self, rgb: bool, out: np.ndarray | None = None) -> np.ndarray:
        """The screen as RGB or grayscale (ALE's getScreenRGB / getScreenGrayscale), into ``out`` when given;
        ``out`` in any other form than a C-contiguous uint8 buffer goes through ``Env``, which handles it."""
        if self._screens_of is not self.machine:
            self._bind_screens()
        shape = self._shapes[rgb]
        if out is None:
            out = np.empty(shape, np.uint8)
        elif not (out.dtype == np.uint8 and out.flags.c_contiguous and out.size == self._screens[0].size * (
                3 if rgb else 1)):
            return self.machine.screen_rgb(out) if rgb else self.machine.screen_grayscale(out)
        src = self._screens[self.machine._screen_buffer]
        if rgb:
            observe.rgb_into(src, self._palette, out.reshape(-1))
        else:
            observe.lut_into(src, self._gray_lut, out.reshape(-1))
        return out

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed, options=options)
        seeded_with = None
        if seed is not None:
            seeded_with = self.seed_game(seed)
            self.load_game()
        self.machine.reset()
        info = self._get_info()
        if seeded_with is not None:
            info["seeds"] = seeded_with
        return self._get_obs(), info

    def step(self, action):
        if type(self._frameskip) is int:
            frameskip = self._frameskip
        else:
            frameskip = int(self.np_random.integers(*self._frameskip))
        if self._sound is None and not self.continuous and self._obs_type != "ram":
            return self._image_step(self._action_ids[_index(action)], frameskip)
        if self.continuous:
            action = np.asarray(action, dtype=np.float32)
            x, y = action[0] * np.cos(action[1]), action[0] * np.sin(action[1])
            t = self.continuous_action_threshold
            a = action_id(self.map_action_idx(-int(x < -t) + int(x > t), -int(y < -t) + int(y > t),
                                              bool(action[-1] > t)))
            strength = float(action[0])
        else:
            a = self._action_ids[_index(action)]
            strength = 1.0
        if self._sound is None:
            reward = float(self._act(a, frameskip, strength))
        else:
            # ale-py steps one act per frame, and each act ends with its sound
            reward = 0.0
            for _ in range(frameskip):
                reward += self.machine.act_frames(a, 1, strength)
                self._sound.act(self.machine)
        terminated = self.machine.game_over(with_truncation=False)
        truncated = self.machine.game_truncated()
        return self._get_obs(), reward, terminated, truncated, self._get_info()

    def _image_step(self, a: int, frames: int):
        """``step`` for discrete actions and image observations, without sound: the frames, the observation
        and what the step reports in one compiled call (``ale_core.gym_step``)."""
        env = self.machine
        if self._screens_of is not env:
            self._bind_screens()
        c = env.console
        s = c.s
        rgb = self._obs_type == "rgb"
        out = np.empty(self._shapes[rgb], np.uint8)
        r, env._draw_all, terminated, truncated, lives = ale_core.gym_step(
            s, c.rom, c.fb, env.rng, a, _DELTA_FULL, env._snap_scratch, env._rng_scratch, env._draw_all, frames,
            self._screens[0].shape[0], rgb, self._palette, self._gray_lut, out.reshape(-1))
        env._screen_buffer = int(s[T_FBCUR])
        return out, float(r), terminated, truncated, {
            "lives": lives, "episode_frame_number": int(s[E_EPFRAME]), "frame_number": int(s[E_FRAME])}

    def _act(self, a: int, frames: int, strength: float) -> int:
        """``Env.act_frames`` without its checks (ours are done): a step's frames with the environment's
        own frame count (ALE's, one) put back after, so ALE-style ``ale.act`` calls stay one frame each."""
        s = self.machine.console.s
        old = s[E_FRAMESKIP]
        s[E_FRAMESKIP] = frames
        try:
            return self.machine.act(a, strength)
        finally:
            s[E_FRAMESKIP] = old

    @staticmethod
    def map_action_idx(left_center_right: int, down_center_up: int, fire: bool) -> int:
        table = {(0, 0): 0, (0, 1): 2, (1, 0): 3, (-1, 0): 4, (0, -1): 5, (1, 1): 6, (-1, 1): 7, (1, -1): 8,
                 (-1, -1): 9}
        a = table[(left_center_right, down_center_up)]
        if fire:
            a = {0: 1, 2: 10, 3: 11, 4: 12, 5: 13, 6: 14, 7: 15, 8: 16, 9: 17}[a]
        return a

    def render(self):
        if self.render_mode == "rgb_array":
            return self._screen(True)
        if self.render_mode == "human":
            return None
        raise error.Error(f"Invalid render mode `{self.render_mode}`. Supported modes: `human`, `rgb_array`.")

    def _get_obs(self):
        if self._obs_type == "ram":
            image = self.machine.ram()
        else:
            image = self._screen(self._obs_type == "rgb")
        if self._sound is not None:
            return {"image": image, "sound": self._sound.samples.copy()}
        return image

    def _get_info(self) -> dict:
        return {"lives": self.machine.lives(), "episode_frame_number": self.machine.episode_frame_number,
                "frame_number": self.machine.frame_number}

    def get_action_meanings(self) -> list[str]:
        return [ACTION_MEANINGS[a] for a in self._action_ids]

    def get_keys_to_action(self) -> dict[tuple[str, ...], int]:
        """Keys for ``gymnasium.utils.play.play``, as ale-py's: w a s d move, space fires, e is NOOP."""
        if self.continuous:
            raise AttributeError(
                "`get_keys_to_action` can't be provided for this Atari environment as `continuous=True`.")
        return {KEYS_OF_ACTION[a]: i for i, a in enumerate(self._action_ids)}

    # ALE extras, as on AtariEnv
    def clone_state(self, include_rng: bool = False):
        return self.machine.clone_state(include_rng=include_rng)

    def restore_state(self, state) -> None:
        if self._sound is None:
            self.machine.restore_state(state)
            self.machine.audio_log = False  # a state taken with sound_obs would switch the log on
        else:
            self._sound.restore(self.machine, state)

    @property
    def unwrapped_env(self) -> Env:
        return self.machine

    # -- copies: the constructor's arguments, then the machine, its RNG, screens and sound -----------
    def __getstate__(self) -> dict:
        return {"kwargs": dict(self._ezpickle_kwargs), "env": self.machine.standing(), "ale_seed": self._ale_seed,
                "np_random": copy.deepcopy(self._np_random), "np_random_seed": self._np_random_seed,
                "sound": copy.deepcopy(self._sound), "spec": self.spec}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state["kwargs"])
        self.machine.stand(state["env"])
        self._ale_seed = state["ale_seed"]
        self._np_random = state["np_random"]
        self._np_random_seed = state["np_random_seed"]
        self.spec = state["spec"]
        if state["sound"] is not None:
            self._sound.voices[:] = state["sound"].voices
            self._sound.samples[:] = state["sound"].samples


register()
