"""Human-baseline protocols as data, and the one episode driver that both records and replays them.

A preset fixes everything that changes a score: episode count and frame cap, a fixed horizon (with reset on
game over inside it), frame skip, sticky actions, the action set a person's joystick is mapped onto, and
what the app must lock while a scored session runs. The app records a person through
:class:`EpisodeDriver` and :mod:`agents.evaluation.replay` re-plays the trace through the same class, so a
score is a function of (start state incl. env RNG, settings, action trace) and nothing else.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from arcade_lab.agents.base import EpisodeRecord
from arcade_lab.engine import ale_core
from arcade_lab.engine.env import Env

# What a scored session locks in the app: anything that changes the score or the time a person has.
# "agents": a machine taking over would make the episode no longer a human score.
ALL_LOCKS = ("pause", "states", "rewind", "speed", "switches", "mode", "agents")


@dataclass(frozen=True)
class Preset:
    key: str                       # the protocol id stored with every episode
    title: str
    episodes: int                  # per session (0 = until the player stops)
    max_frames: int = 18_000       # per-episode frame cap (ALE max_num_frames_per_episode; 0 = none)
    horizon: int = 0               # fixed horizon in frames; game over inside it resets at once (0 = none)
    frameskip: int = 1             # people play every frame
    repeat_action_probability: float = 0.0
    action_set: str = "full"       # "full" (18 actions) or "minimal" (the game's set; joystick projected)
    audio: bool = True
    scored: bool = True            # False: never mixed into baseline statistics
    locks: tuple[str, ...] = ALL_LOCKS
    report: str = "mean"           # how a session's score is summarised
    source: str = ""

    def settings(self) -> dict:
        return asdict(self)


PRESETS: dict[str, Preset] = {p.key: p for p in (
    Preset("ale2013", "ALE 2013 beginner", episodes=5, max_frames=18_000, action_set="full",
           source="Bellemare et al. 2013: 5 episodes, 18 000-frame (5 min) cap, reported score = mean of 5"),
    Preset("dqn2015", "DQN 2015 expert", episodes=20, max_frames=18_000, action_set="minimal", audio=False,
           source="Mnih et al. 2015: ~20 episodes of at most 5 min at 60 Hz, no audio, no pause/saves"),
    Preset("atari30s", "AtariBench 30 s", episodes=10, max_frames=0, horizon=1_800, action_set="minimal",
           source="30-second fixed horizon (1 800 frames), immediate reset on game over, sticky actions off"),
    Preset("free", "Free play", episodes=0, max_frames=0, scored=False, locks=(), report="none",
           source="anything goes; recorded as protocol 'free', never in baseline statistics"),
)}


def preset_from_settings(settings: dict) -> Preset:
    """The preset a session (or an exported file) was recorded with, from its stored settings."""
    known = {f for f in Preset.__dataclass_fields__}
    kw = {k: (tuple(v) if k == "locks" else v) for k, v in settings.items() if k in known}
    base = PRESETS.get(kw.get("key", ""), PRESETS["free"])
    return replace(base, **kw)


# -- joystick -> action set ----------------------------------------------------------------------------
_JOY = ale_core.JOYSTICK_TABLE.tolist()  # action id -> (up, down, left, right, fire)
_BY_BITS = {tuple(bits): a for a, bits in enumerate(_JOY)}


def project_action(action: int, allowed) -> int:
    """The closest allowed action to a joystick action: drop the vertical, then the horizontal direction,
    then fire, until the set has it (Pong's minimal set has no UP: UP+FIRE becomes FIRE)."""
    allowed = set(int(a) for a in allowed)
    if action in allowed:
        return action
    u, d, l, r, f = _JOY[action]
    for bits in ((0, 0, l, r, f), (u, d, 0, 0, f), (0, 0, 0, 0, f), (u, d, l, r, 0), (0, 0, l, r, 0),
                 (u, d, 0, 0, 0)):
        a = _BY_BITS.get(bits)
        if a is not None and a in allowed:
            return a
    return 0 if 0 in allowed else min(allowed)


# -- the episode driver ---------------------------------------------------------------------------------
def make_env(game, preset: Preset, *, mode=None, difficulty=None, seed: int = 0) -> Env:
    return Env(game, mode=mode, difficulty=difficulty, frameskip=preset.frameskip,
               repeat_action_probability=preset.repeat_action_probability,
               max_num_frames_per_episode=preset.max_frames, seed=seed)


@dataclass
class EpisodeDriver:
    """One episode on ``env`` under ``preset``, decision by decision. Call :meth:`begin` with the env at the
    episode's start (just reset), then :meth:`step` until it returns True (done)."""

    env: Env
    preset: Preset
    start_state: bytes = b""
    score: float = 0.0
    frames: int = 0
    steps: int = 0
    lives_lost: int = 0
    resets: int = 0
    done: bool = False
    ended_by: str = ""
    actions: list = field(default_factory=list)
    paddles: list = field(default_factory=list)
    t0: float = 0.0

    def begin(self) -> None:
        self.start_state = self.env.clone_state(include_rng=True).to_bytes()
        self._lives = self.env.lives()
        self.t0 = time.perf_counter()

    def step(self, action: int, paddle_strength: float = 1.0) -> bool:
        """Play one decision; True when the episode is over. The reward is in ``last_reward``."""
        f0 = self.env.episode_frame_number
        return self.book(action, paddle_strength, self.env.act(action, paddle_strength), f0)

    def book(self, action: int, paddle_strength: float, r: float, f0: int) -> bool:
        """Account for a decision whose frames were played by the caller (a replay that shows each frame
        as it comes): ``r`` their summed reward, ``f0`` the episode frame number before them."""
        env, p = self.env, self.preset
        self.actions.append(int(action))
        self.paddles.append(float(np.float32(paddle_strength)))
        self.steps += 1
        self.frames += env.episode_frame_number - f0
        self.score += r
        self.last_reward = r
        lives = env.lives()
        if lives < self._lives:
            self.lives_lost += self._lives - lives
        self._lives = lives
        if p.horizon and self.frames >= p.horizon:
            self.done, self.ended_by = True, "truncated"
        elif env.game_over():
            if p.horizon:
                # a fixed horizon keeps the clock running: a new game at once, the score carries on
                env.reset()
                self.resets += 1
                self._lives = env.lives()
            else:
                self.done = True
                self.ended_by = "truncated" if env.game_truncated() else "game_over"
        return self.done

    def record(self, player: str, *, seed: int, uses_paddles: bool = False, wall_time: float | None = None,
               ended_by: str | None = None, extra: dict | None = None) -> EpisodeRecord:
        env, p = self.env, self.preset
        ex = {"horizon": p.horizon, "resets": self.resets, "preset": p.key}
        ex.update(extra or {})
        return EpisodeRecord(
            player=player, game=env.info.id, md5=env.info.md5, mode=env.mode, difficulty=env.difficulty,
            protocol=p.key, seed=seed, score=float(self.score), frames=self.frames, steps=self.steps,
            lives_lost=self.lives_lost,
            wall_time=(time.perf_counter() - self.t0) if wall_time is None else wall_time,
            ended_by=ended_by or self.ended_by or "aborted", frameskip=p.frameskip,
            repeat_action_probability=p.repeat_action_probability, max_frames=p.max_frames,
            actions=np.asarray(self.actions, dtype=np.uint8),
            paddles=np.asarray(self.paddles, dtype=np.float32) if uses_paddles else None,
            start_state=self.start_state, extra=ex)
