"""Gymnasium API over ``engine.Env``, with the same ids and defaults as ale-py's registrations.

``ArcadeLab/<Game>-v5``: frame skip 4, sticky actions 0.25, 108 000-frame cap, minimal action set;
``ArcadeLab/<Game>-v0`` / ``-v4`` (stochastic frame skip 2-4, sticky 0.25 / 0) and their ``NoFrameskip``
variants for the legacy games — mirroring ale-py 0.12.1. ``reset(seed=s)`` reloads the ROM with the
environment RNG seeded exactly as ale-py's AtariEnv does (SeedSequence(s) -> (numpy seed, ALE seed)).
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import error, spaces
from gymnasium.utils import seeding

from .env import Env
from .registration import LEGACY_GAMES, NAMESPACE, game_name, register  # noqa: F401




class AleView:
    """The subset of ``ale_py.ALEInterface`` that Gymnasium's wrappers (e.g. AtariPreprocessing) and
    ALE-style code call, answered by our environment (camelCase names as in ale-py)."""

    def __init__(self, owner: "ArcadeLabEnv"):
        self._owner = owner

    @property
    def _env(self) -> Env:
        return self._owner.env

    @staticmethod
    def _out(data: np.ndarray, out):
        if out is None:
            return data
        np.copyto(out.reshape(data.shape), data)
        return out

    def lives(self) -> int:
        return self._env.lives()

    def act(self, action, paddle_strength: float = 1.0) -> int:
        return self._env.act(int(getattr(action, "value", action)), paddle_strength)

    def game_over(self, with_truncation: bool = True) -> bool:
        return self._env.game_over(with_truncation)

    def game_truncated(self) -> bool:
        return self._env.game_truncated()

    def reset_game(self) -> None:
        self._env.reset()

    def getScreen(self, out=None):  # noqa: N802  (ale-py's names)
        return self._out(self._env.screen(), out)

    def getScreenRGB(self, out=None):  # noqa: N802
        return self._env.screen_rgb(out)

    def getScreenGrayscale(self, out=None):  # noqa: N802
        return self._env.screen_grayscale(out)

    def getRAM(self, out=None):  # noqa: N802
        return self._out(self._env.ram(), out)

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
        return self._env.clone_state(include_rng=include_rng)

    def restoreState(self, state) -> None:  # noqa: N802
        self._env.restore_state(state)


class ArcadeLabEnv(gymnasium.Env):
    """Drop-in counterpart of ``ale_py.env.AtariEnv`` backed by our emulator."""

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}

    def __init__(self, game: str, mode: int | None = None, difficulty: int | None = None,
                 obs_type: str = "rgb", frameskip: tuple[int, int] | int = 4,
                 repeat_action_probability: float = 0.25, full_action_space: bool = False,
                 continuous: bool = False, continuous_action_threshold: float = 0.5,
                 max_num_frames_per_episode: int | None = None, render_mode: str | None = None):
        if obs_type not in {"rgb", "grayscale", "ram"}:
            raise error.Error(f"Invalid observation type: {obs_type}. Expecting: rgb, grayscale, ram.")
        if type(frameskip) not in (int, tuple):
            raise error.Error(f"Invalid frameskip type: {type(frameskip)}.")
        if isinstance(frameskip, int) and frameskip <= 0:
            raise error.Error(f"Invalid frameskip of {frameskip}, frameskip must be positive.")
        if isinstance(frameskip, tuple) and (len(frameskip) != 2 or frameskip[0] >= frameskip[1]
                                             or frameskip[0] <= 0):
            raise error.Error(f"Invalid stochastic frameskip {frameskip}: expected (low, high), 0 < low < high.")
        if render_mode is not None and render_mode not in {"rgb_array", "human"}:
            raise error.Error(f"Render mode {render_mode} not supported (rgb_array, human).")
        self._game = game
        self._mode = mode
        self._difficulty = difficulty
        self._obs_type = obs_type
        self._frameskip = frameskip
        self._sticky = repeat_action_probability
        self._max_frames = max_num_frames_per_episode or 0
        self.render_mode = render_mode
        self.continuous = continuous
        self.continuous_action_threshold = continuous_action_threshold
        self._full = full_action_space or continuous
        self.ale = AleView(self)
        self.seed_game()
        self.load_game()
        self._action_set = self.env.legal_actions() if self._full else self.env.minimal_actions()
        if continuous:
            self.action_space = spaces.Box(low=np.array([0.0, -np.pi, 0.0], np.float32),
                                           high=np.array([1.0, np.pi, 1.0], np.float32), dtype=np.float32)
        else:
            self.action_space = spaces.Discrete(len(self._action_set))
        if obs_type == "ram":
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=(128,))
        else:
            h = self.env.console.height
            shape = (h, 160, 3) if obs_type == "rgb" else (h, 160)
            self.observation_space = spaces.Box(low=0, high=255, dtype=np.uint8, shape=shape)

    # -- seeding and loading, as ale-py -------------------------------------------------------------
    def seed_game(self, seed: int | None = None) -> tuple[int, int]:
        ss = np.random.SeedSequence(seed)
        np_seed, ale_seed = ss.generate_state(n_words=2)
        self._np_random, _ = seeding.np_random(int(np_seed))
        # ale-py passes np.int32(ale_seed); ALE then seeds mt19937 with it as uint32 (-1 means "time").
        self._ale_seed = int(ale_seed) & 0xFFFFFFFF
        return int(np_seed), int(ale_seed)

    def load_game(self) -> None:
        seed = None if self._ale_seed == 0xFFFFFFFF else self._ale_seed
        self.env = Env(self._game, mode=self._mode, difficulty=self._difficulty, frameskip=1,
                       repeat_action_probability=self._sticky, max_num_frames_per_episode=self._max_frames,
                       full_action_space=self._full, seed=seed)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed, options=options)
        seeded_with = None
        if seed is not None:
            seeded_with = self.seed_game(seed)
            self.load_game()
        self.env.reset()
        info = self._get_info()
        if seeded_with is not None:
            info["seeds"] = seeded_with
        return self._get_obs(), info

    def step(self, action):
        if isinstance(self._frameskip, int):
            frameskip = self._frameskip
        else:
            frameskip = int(self.np_random.integers(*self._frameskip))
        if self.continuous:
            action = np.asarray(action, dtype=np.float32)
            x, y = action[0] * np.cos(action[1]), action[0] * np.sin(action[1])
            t = self.continuous_action_threshold
            action_idx = self.map_action_idx(-int(x < -t) + int(x > t), -int(y < -t) + int(y > t),
                                             bool(action[-1] > t))
            strength = float(action[0])
        else:
            action_idx = self._action_set[int(action)]
            strength = 1.0
        reward = float(self.env.act_frames(action_idx, frameskip, strength))
        terminated = self.env.game_over(with_truncation=False)
        truncated = self.env.game_truncated()
        return self._get_obs(), reward, terminated, truncated, self._get_info()

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
            return self.env.screen_rgb()
        if self.render_mode == "human":
            return None
        raise error.Error(f"Invalid render mode `{self.render_mode}`. Supported modes: `human`, `rgb_array`.")

    def _get_obs(self):
        if self._obs_type == "ram":
            return self.env.ram()
        if self._obs_type == "rgb":
            return self.env.screen_rgb()
        return self.env.screen_grayscale()

    def _get_info(self) -> dict:
        return {"lives": self.env.lives(), "episode_frame_number": self.env.episode_frame_number,
                "frame_number": self.env.frame_number}

    def get_action_meanings(self) -> list[str]:
        from .games.base import ACTION_MEANINGS

        return [ACTION_MEANINGS[a] for a in self._action_set]

    # ALE extras, as on AtariEnv
    def clone_state(self, include_rng: bool = False):
        return self.env.clone_state(include_rng=include_rng)

    def restore_state(self, state) -> None:
        self.env.restore_state(state)

    @property
    def unwrapped_env(self) -> Env:
        return self.env


register()
