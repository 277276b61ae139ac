"""A recorded human session (Qt-free): the player's joystick goes through ``engine.Env`` semantics.

Free play (:class:`app.session.PlaySession`) pokes inputs and runs frames directly; a recorded session
instead turns each frame's input into one ALE decision — ``env.act(action, paddle_strength)`` with the
preset's frame skip and sticky actions — through :class:`agents.evaluation.presets.EpisodeDriver`, the
same class ``arcade-lab replay`` uses. So the stored trace (start state with env RNG + actions + paddle
strengths) reproduces the score exactly.

Every episode is written when it starts (``recording`` row with its start state) and completed in one
transaction when it ends; a crash loses at most the episode being played.
"""
from __future__ import annotations

import time
from collections import deque

import numpy as np

from arcade_lab.agents.evaluation.presets import EpisodeDriver, Preset, make_env, project_action
from arcade_lab.engine import sound
from arcade_lab.engine.env import paddle_delta

from .session import InputFrame, PlaySession, joystick_action


class RecordedSession(PlaySession):
    recording = True

    def __init__(self, rom, preset: Preset, store, player: str, *, mode: int | None = None,
                 difficulty: int | None = None, seed: int | None = None):
        self.preset = preset
        self.seed = int(time.time()) & 0x7FFFFFFF if seed is None else int(seed)
        env = make_env(rom, preset, mode=mode, difficulty=difficulty, seed=self.seed)
        super().__init__(rom, env=env, difficulty=env.difficulty)
        self.locks = tuple(preset.locks)
        self.store = store
        self.player = player if ":" in player else f"human:{player}"
        self.allowed = (env.minimal_actions() if preset.action_set == "minimal" else list(range(18)))
        self.session_id = store.new_session(self.player, env.info.id, env.info.md5, preset.key, env.mode,
                                            env.difficulty, preset.settings() | {"seed": self.seed})
        self.scores: list[float] = []
        self.episode_ids: list[int] = []
        self.events: deque[str] = deque(maxlen=50)   # read by the window (status bar / overlay)
        self.complete = False
        self.driver: EpisodeDriver | None = None
        self.episode_id: int | None = None
        self._branched = False
        self._begin(reset=True)

    # -- episodes -------------------------------------------------------------------------------------
    @property
    def episode_number(self) -> int:
        return len(self.scores) + (0 if self.complete else 1)

    @property
    def score(self) -> int:
        return int(self.driver.score) if self.driver else 0

    @property
    def game_over(self) -> bool:
        return self.complete

    def _begin(self, reset: bool) -> None:
        if reset:
            self.env.reset()
        self.env.audio_log = False
        self.driver = EpisodeDriver(self.env, self.preset)
        self.driver.begin()
        self._lives_shown = self.env.lives()
        rec = self._record("aborted")
        self.episode_id = self.store.start_episode(rec, session_id=self.session_id)
        self.audio_resync()

    def _record(self, ended_by=None):
        extra = {"branched": True} if self._branched else {}
        return self.driver.record(self.player, seed=self.seed, uses_paddles=self.uses_paddles, ended_by=ended_by,
                                  extra=extra)

    def _finish_episode(self) -> None:
        rec = self._record()
        self.store.finish_episode(self.episode_id, rec)
        self.scores.append(rec.score)
        self.episode_ids.append(self.episode_id)
        self.episode_id = None
        n, total = len(self.scores), self.preset.episodes
        self.events.append(f"Episode {n}{'/' + str(total) if total else ''} finished: score {rec.score:g} "
                           f"({rec.frames} frames, {rec.ended_by.replace('_', ' ')})")
        if total and n >= total:
            self.store.finish_session(self.session_id)
            self.complete = True   # after the write: whoever sees it complete finds it finished in the store
            self.events.append(f"Session complete: {self.summary()}")
        else:
            self._branched = False
            self._begin(reset=True)

    def summary(self) -> str:
        if not self.scores:
            return "no finished episodes"
        sc = np.asarray(self.scores)
        return f"{len(sc)} episodes, mean {sc.mean():.1f} (min {sc.min():g}, max {sc.max():g})"

    def branch(self) -> None:
        """The game jumped (a state load, rewind, RESET or a switch in free play): close the episode so far as
        'aborted' (still exactly replayable) and record a new one from here."""
        if self.complete or self.driver is None:
            return
        if self.driver.steps:
            self.store.finish_episode(self.episode_id, self._record("aborted"))
        else:
            self.store.delete_episode(self.episode_id)
        self._branched = True
        self._begin(reset=False)

    def close(self) -> None:
        """The player ends the session: an unfinished episode is marked abandoned (never counted)."""
        if self.episode_id is not None:
            if self.preset.scored:
                self.store.abandon_episode(self.episode_id)
            elif self.driver and self.driver.steps:
                self.store.finish_episode(self.episode_id, self._record("aborted"))
            else:
                self.store.delete_episode(self.episode_id)
            self.episode_id = None
        if not self.complete:
            self.store.finish_session(self.session_id)
        self.complete = True

    # -- one decision per displayed frame --------------------------------------------------------------
    def decision(self, inp: InputFrame) -> tuple[int, float]:
        """The ALE action and paddle strength for this frame's input (mouse paddles become a move of
        at most one ALE paddle step toward the pointer)."""
        strength = float(inp.paddle_speed)
        if self.uses_paddles and inp.paddle is not None:
            diff = self.env.paddle_target(inp.paddle) - self.env.paddle_resistance
            strength = min(1.0, abs(diff) / paddle_delta(1.0))
            # ALE's RIGHT lowers the resistance (clockwise), LEFT raises it
            a = joystick_action(False, False, diff > 0, diff < 0, inp.fire)
        else:
            a = inp.action
        return project_action(a, self.allowed), strength

    def step(self, inp: InputFrame, *, audio: bool = False, draw: bool = True) -> int:
        if self.complete:
            return 0
        if not self.preset.scored:
            if inp.reset and not self._prev_reset:
                self._prev_reset = True
                self.events.append("RESET: a new game (recorded as a new episode)")
                if self.driver.steps:
                    self.store.finish_episode(self.episode_id, self._record("aborted"))
                else:
                    self.store.delete_episode(self.episode_id)
                self._branched = False
                self._begin(reset=True)
                return 0
            self._prev_reset = inp.reset
        audio = audio and self.preset.audio and self.preset.frameskip == 1
        a, strength = self.decision(inp)
        self.env.audio_log = audio
        f0 = self.frame_number
        done = self.driver.step(a, strength)
        self.frames += self.frame_number - f0
        lives = self.env.lives()
        if lives < self._lives_shown:
            self.events.append(f"Life lost ({lives} left)")
        self._lives_shown = lives
        n = int(sound.synth_frame(self.s, self.console.fb, self.voices, self.audio_buf)) if audio else 0
        if done:
            self._finish_episode()
        return n

    def set_difficulty_bit(self, player: int, a: bool) -> None:
        if "switches" in self.locks:
            return
        self.env.set_difficulty_switch(player, a)
        self.branch()

    def restore(self, snap, branch: bool = True) -> None:
        """Free play only. Rewind restores many snapshots while the key is held and branches once on
        release (``branch=False`` here, then :meth:`branch`)."""
        if "states" in self.locks or "rewind" in self.locks:
            raise PermissionError("a scored session cannot load states or rewind")
        super().restore(snap)
        if branch:
            self.branch()


class ReplaySession(PlaySession):
    """Watch a recorded episode in the game view: the trace drives the env through the same
    :class:`EpisodeDriver` that recorded it; the worker's speed setting applies; :meth:`seek` jumps.

    Every displayed frame is one emulated frame: a decision that spans several frames (an agent's frame
    skip) is played a frame at a time and booked after its last one, so an agent's episode runs at the
    console's own 60 Hz however long the agent took to decide. An agent's stored thoughts
    (:mod:`agents.thought_log`) follow the decision on show (:meth:`current_thought`)."""

    def __init__(self, rec, settings: dict | None = None):
        from arcade_lab.agents.evaluation.replay import env_for, preset_of
        from arcade_lab.engine.console import State

        self.rec = rec
        self.preset = preset_of(rec, settings)
        env = env_for(rec, self.preset)
        self.start = State.from_bytes(rec.start_state)
        super().__init__(rec.game, env=env)
        self.actions = np.asarray(rec.actions, dtype=np.int64)
        self.pads = None if rec.paddles is None else np.asarray(rec.paddles, dtype=np.float32)
        self.events: deque[str] = deque(maxlen=20)
        self.driver: EpisodeDriver | None = None
        self.locks = ("states", "rewind", "switches", "mode")  # watching, not playing
        self.thoughts, problem = _thought_log(rec)
        if problem:
            self.events.append(f"Episode {getattr(rec, 'id', '')}: {problem}; replaying without them")
        self.thought_index = -1   # the decision whose thoughts are on show (set by the worker thread)
        self._sub = 0             # frames of the current decision already played
        self.seek(0)

    @property
    def position(self) -> int:
        return self.driver.steps

    @property
    def length(self) -> int:
        return len(self.actions)

    @property
    def score(self) -> int:
        return int(self.driver.score)

    @property
    def game_over(self) -> bool:
        return self.position >= self.length

    def _strength(self, i: int) -> float:
        return float(self.pads[i]) if self.pads is not None else 1.0

    def _one(self) -> None:
        i = self.driver.steps
        self.driver.step(int(self.actions[i]), self._strength(i))

    def _frame(self) -> None:
        """One emulated frame of the decision being played (the same frames, sticky draws and reward as the
        decision's ``env.act``); the decision is booked after its last frame."""
        i = self.driver.steps
        a, strength = int(self.actions[i]), self._strength(i)
        if self._sub == 0:
            self._f0, self._reward = self.env.episode_frame_number, 0
        self._reward += self.env.act_frames(a, 1, strength)
        self._sub += 1
        if self._sub >= self.period:
            self._sub = 0
            self.driver.book(a, strength, self._reward, self._f0)

    def _show_thought(self) -> None:
        if self.thoughts is not None:
            playing = self.driver.steps if self._sub else self.driver.steps - 1
            self.thought_index = self.thoughts.index_at(playing) if playing >= 0 else -1

    def current_thought(self) -> dict | None:
        """What the agent weighed for the decision on show, in the form the Agents dock draws live; None
        before the first decision or when the episode kept no thoughts."""
        i = self.thought_index
        if self.thoughts is None or not 0 <= i < len(self.thoughts):
            return None
        t = self.thoughts.decision(i)
        t["agent"] = self.rec.player
        return t

    def seek(self, step: int) -> None:
        """Go to decision ``step`` (re-simulated from the start state: exact, and fast headless)."""
        step = max(0, min(int(step), self.length))
        while self._sub and getattr(self, "driver", None) is not None and not self.driver.done:
            self._frame()  # a decision is never left half played
        if getattr(self, "driver", None) is None or step < self.driver.steps:
            self.env.restore_state(self.start, whole=True)
            self.period = self.env.frames_per_act  # frames per decision, as the recording's env.act
            self.driver = EpisodeDriver(self.env, self.preset)
            self.driver.begin()
        while self.driver.steps < step and not self.driver.done:
            self._one()
        self._show_thought()
        self.audio_resync()

    def step(self, inp: InputFrame, *, audio: bool = False, draw: bool = True) -> int:
        if self.game_over or self.driver.done:
            return 0
        self.env.audio_log = audio
        self._frame()
        self._show_thought()
        self.frames += 1
        if self.game_over:
            self.events.append(f"Replay finished: score {self.driver.score:g} (recorded {self.rec.score:g})")
        return int(sound.synth_frame(self.s, self.console.fb, self.voices, self.audio_buf)) if audio else 0


def _thought_log(rec):
    """(the episode's ThoughtLog or None, a problem to tell the viewer or "")."""
    from arcade_lab.agents.thought_log import ThoughtLog, ThoughtLogError

    blob = getattr(rec, "thoughts", None)
    if not blob:
        return None, ""
    try:
        return ThoughtLog.from_bytes(blob), ""
    except ThoughtLogError as e:
        return None, str(e)
