"""The agent protocol and the Runner that owns the loop (Dopamine's shape; the agent never calls the env).

An agent sees observations and rewards and answers with actions:

    a = agent.begin_episode(obs)
    a = agent.step(reward, obs)          # until the episode ends
    agent.end_episode(reward)

``obs`` is an :class:`Observation` (screen indices, RAM, lives, frame numbers — whatever the agent's
features need; the arrays are views valid for the call). Actions are ALE action ids (0..17), chosen
from ``agent.actions`` which the Runner sets from the environment's action set before the first episode.
Planning agents (UCT, BFS) additionally get the environment handle as a simulator at construction.

The Runner applies the protocol (frame skip, episode frame cap, sticky actions) and emits one
:class:`EpisodeRecord` per episode, in the same shape a recorded human session produces.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Iterator, Protocol

import numpy as np

from arcade_lab.engine import __version__ as ENGINE_VERSION
from arcade_lab.engine.env import Env

from .thought_log import ThoughtLog, blob, note


@dataclass
class Observation:
    screen: np.ndarray          # (H, 160) uint8 palette indices
    ram: np.ndarray             # (128,) uint8
    lives: int
    frame: int                  # episode frame number
    terminal: bool = False


@dataclass
class EpisodeRecord:
    """One episode, by a person or an agent: what the store keeps and every metric consumes."""

    player: str                 # "human:<name>" or "agent:<name>"
    game: str
    md5: str
    mode: int
    difficulty: int
    protocol: str               # e.g. "ale2013", "machado2018", "free"
    seed: int
    score: float
    frames: int                 # emulated frames in the episode
    steps: int                  # agent decisions (or human frames)
    lives_lost: int
    wall_time: float            # seconds
    ended_by: str               # "game_over", "truncated", "aborted", "failed"
    frameskip: int = 1
    repeat_action_probability: float = 0.0
    max_frames: int = 0
    actions: np.ndarray | None = field(default=None, repr=False)  # per-decision ALE action ids (uint8)
    start_state: bytes | None = field(default=None, repr=False)   # engine.State.to_bytes() at episode start
    paddles: np.ndarray | None = field(default=None, repr=False)  # per-decision paddle strength (float32), if any
    controllers: str = ""       # "" = one player throughout; else JSON [[first_step, player], ...] (takeover)
    extra: dict = field(default_factory=dict, repr=False)          # protocol-specific (e.g. prompts, raw replies)
    thoughts: bytes | None = field(default=None, repr=False)       # per-decision ThoughtLog blob (agents.thought_log)
    engine_version: str = ENGINE_VERSION
    created_at: float = field(default_factory=time.time)
    notes: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["actions"] = None if self.actions is None else self.actions.tolist()
        d["start_state"] = None if self.start_state is None else len(self.start_state)
        d["paddles"] = None if self.paddles is None else self.paddles.tolist()
        d["thoughts"] = None if self.thoughts is None else len(self.thoughts)
        return d


class AgentFailure(RuntimeError):
    """An agent could not go on (an external process died, timed out or broke its protocol).

    The Runner turns it into an episode with ``ended_by="failed"`` and the reason in ``notes`` instead
    of losing the whole run; any other exception is a bug and propagates."""


@dataclass
class Thoughts:
    """What an agent can show of its last decision; the app draws it live beside the game.

    ``kind`` is ``"plan"`` (a search: ``visits`` and mean return ``value`` per action of ``actions``) or
    ``"q"`` (a value estimate per action: ``value``; ``visits`` is None)."""

    kind: str
    actions: list[int]
    value: np.ndarray
    visits: np.ndarray | None = None


class Agent(Protocol):
    """What the Runner and the app drive. Optional beyond these: ``thoughts() -> Thoughts | None`` (what
    the last decision weighed, shown live), ``attach(env)``, ``abort()`` (cut a decision short) and
    ``frames_per_action`` (decide every N frames whatever the protocol's frame skip)."""

    name: str
    actions: list[int]

    def begin_episode(self, obs: Observation) -> int: ...

    def step(self, reward: float, obs: Observation) -> int: ...

    def end_episode(self, reward: float) -> None: ...

    def save(self, path) -> None: ...

    def load(self, path) -> None: ...


class BaseAgent:
    """Convenience base: stores the action set and an RNG; save/load are no-ops for stateless agents."""

    name = "agent"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.actions: list[int] = list(range(18))

    def begin_episode(self, obs: Observation) -> int:
        raise NotImplementedError

    def step(self, reward: float, obs: Observation) -> int:
        raise NotImplementedError

    def end_episode(self, reward: float) -> None:
        pass

    def thoughts(self) -> Thoughts | None:
        """What the last decision weighed (see :class:`Thoughts`); None when the agent has nothing to show."""
        return None

    # Planning agents are handed the env at construction; the Runner tells every agent which env it drives
    # so that spec-built agents (``make_agent``) and the app can attach late. Learners ignore it.
    def attach(self, env) -> None:
        pass

    def save(self, path) -> None:
        pass

    def load(self, path) -> None:
        pass


@dataclass
class RunConfig:
    """What a protocol fixes for one run of episodes."""

    game: str
    protocol: str = "custom"
    frameskip: int = 1
    repeat_action_probability: float = 0.0
    max_frames: int = 18_000           # per episode (0 = none)
    mode: int | None = None
    difficulty: int | None = None
    full_action_space: bool = False
    seed: int = 0
    record_actions: bool = True
    record_start_state: bool = True
    record_thoughts: bool = False      # keep each decision's Thoughts (agents.thought_log) with the episode


class Runner:
    """Plays episodes of one game with one agent under one protocol."""

    def __init__(self, config: RunConfig, env: Env | None = None):
        self.config = config
        self.env = env or Env(config.game, mode=config.mode, difficulty=config.difficulty,
                              frameskip=config.frameskip,
                              repeat_action_probability=config.repeat_action_probability,
                              max_num_frames_per_episode=config.max_frames,
                              full_action_space=config.full_action_space, seed=config.seed)

    def observation(self) -> Observation:
        e = self.env
        return Observation(screen=e.screen(), ram=e.ram(), lives=e.lives(), frame=e.episode_frame_number,
                           terminal=e.game_over())

    def episodes(self, agent: Agent, n: int, player: str | None = None) -> Iterator[EpisodeRecord]:
        agent.actions = self.env.action_set()
        if hasattr(agent, "attach"):
            agent.attach(self.env)
        for _ in range(n):
            yield self.run_episode(agent, player)

    def frames_per_action(self, agent) -> int:
        """The agent's decision period in frames: its ``frames_per_action`` when it sets one (the ALE 2013
        Random baseline decides every frame while everyone else holds an action for 5), else the
        protocol's frame skip."""
        f = getattr(agent, "frames_per_action", None)
        return int(f) if f else self.env.frames_per_act

    def run_episode(self, agent: Agent, player: str | None = None) -> EpisodeRecord:
        env = self.env
        fpa = self.frames_per_action(agent)
        own_skip = env.frames_per_act
        # played at the agent's decision period, so the start state records the frame skip the trace
        # replays at (a replay restores its settings and checks them against the record's)
        env.frames_per_act = fpa
        try:
            return self._episode(agent, player, fpa)
        finally:
            env.frames_per_act = own_skip

    def _episode(self, agent: Agent, player: str | None, fpa: int) -> EpisodeRecord:
        env, cfg = self.env, self.config
        env.reset()
        start = env.clone_state(include_rng=True).to_bytes() if cfg.record_start_state else None
        lives0 = env.lives()
        t0 = time.perf_counter()
        trace: list[int] = []
        score = 0.0
        steps = 0
        failure = ""
        log = ThoughtLog() if cfg.record_thoughts else None
        try:
            t = time.perf_counter()
            a = agent.begin_episode(self.observation())
            note(log, agent, a, time.perf_counter() - t)
            while True:
                trace.append(a)
                r = env.act(a)
                score += r
                steps += 1
                if env.game_over():
                    agent.end_episode(r)
                    break
                t = time.perf_counter()
                a = agent.step(r, self.observation())
                note(log, agent, a, time.perf_counter() - t)
        except AgentFailure as e:
            failure = str(e) or type(e).__name__  # the trace holds exactly the actions played
        ended = "failed" if failure else "truncated" if env.game_truncated() else "game_over"
        # agents with protocol-specific data (external agents: their name, protocol version, counts)
        extra_fn = getattr(agent, "episode_extra", None)
        extra = dict(extra_fn()) if callable(extra_fn) else {}
        return EpisodeRecord(
            player=player or f"agent:{getattr(agent, 'name', type(agent).__name__)}", game=env.info.id,
            md5=env.info.md5, mode=env.mode, difficulty=env.difficulty, protocol=cfg.protocol, seed=cfg.seed,
            score=score, frames=env.episode_frame_number, steps=steps,
            lives_lost=max(0, lives0 - env.lives()), wall_time=time.perf_counter() - t0, ended_by=ended,
            frameskip=fpa, repeat_action_probability=cfg.repeat_action_probability,
            max_frames=cfg.max_frames,
            actions=np.asarray(trace, dtype=np.uint8) if cfg.record_actions else None, start_state=start,
            extra=extra, thoughts=blob(log), notes=failure)
