"""A human play session, Qt-free: the console as a person plays it (free play).

Built on ``arcade_lab.engine.Env`` (so a session starts exactly as ALE's loadROM leaves the console), then driven
frame by frame from an input snapshot: joystick or paddle for player A, and the console switches, which
the player holds or flips directly. The game's rules keep running so score, lives and game over are known;
after game over the console keeps running (attract mode) until the player presses RESET.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from arcade_lab.engine import ale_core, sound
from arcade_lab.engine.env import Env
from arcade_lab.engine.layout import E_FRAME

# joystick (up, down, left, right, fire) -> ALE action id
_ACTION = {}
for _aid, (_u, _d, _l, _r, _f) in enumerate(ale_core.JOYSTICK_TABLE.tolist()):
    _ACTION[(_u, _d, _l, _r, _f)] = _aid


def joystick_action(up: bool, down: bool, left: bool, right: bool, fire: bool) -> int:
    """The ALE action for a joystick state (opposite directions cancel)."""
    if up and down:
        up = down = False
    if left and right:
        left = right = False
    return _ACTION[(int(up), int(down), int(left), int(right), int(fire))]


@dataclass
class InputFrame:
    """What the player does during one frame."""

    up: bool = False
    down: bool = False
    left: bool = False
    right: bool = False
    fire: bool = False
    reset: bool = False       # console RESET switch held
    select: bool = False      # console SELECT switch held
    paddle: float | None = None  # absolute paddle position in [0, 1] (mouse); None: keys move it
    paddle_speed: float = 1.0
    rewind: bool = False      # the rewind key is held (the worker runs time backwards)

    @property
    def action(self) -> int:
        return joystick_action(self.up, self.down, self.left, self.right, self.fire)


class PlaySession:
    """One console in free play."""

    locks: tuple[str, ...] = ()   # what the window must refuse while this session runs (see recording)
    recording = False

    def __init__(self, rom, *, mode: int | None = None, difficulty: int = 0, seed: int = 0, env: Env | None = None):
        self.env = env if env is not None else Env(rom, mode=mode, repeat_action_probability=0.0, seed=seed)
        if mode is not None:
            self.env.reset()
        if difficulty in self.env.available_difficulties():
            self.env.set_difficulty(difficulty)
        self.info = self.env.info
        self.console = self.env.console
        self.s = self.console.s
        self.voices = sound.new_voices()
        sound.sync_registers(self.s, self.voices)
        self.audio_buf = np.zeros(2048, dtype=np.float64)
        self.color = True
        self.frames = 0
        self._prev_reset = False

    # -- properties ----------------------------------------------------------------------------------
    @property
    def pal(self) -> bool:
        return self.console.pal

    @property
    def frame_rate(self) -> float:
        return 50.0 if self.pal else 60.0

    @property
    def sample_rate(self) -> float:
        return sound.SAMPLE_RATE_PAL if self.pal else sound.SAMPLE_RATE_NTSC

    @property
    def uses_paddles(self) -> bool:
        return self.env.uses_paddles

    @property
    def has_rules(self) -> bool:
        return self.env.has_rules

    @property
    def score(self) -> int:
        return self.env.score

    @property
    def lives(self) -> int:
        return self.env.lives()

    @property
    def game_over(self) -> bool:
        return self.env.rules_game_over

    @property
    def frame_number(self) -> int:
        return self.env.frame_number

    @property
    def difficulty(self) -> int:
        return self.env.difficulty

    def set_difficulty_bit(self, player: int, a: bool) -> None:
        """Flip a difficulty switch: player 0 (left) is bit 0, player 1 (right) bit 1; A = set."""
        self.env.set_difficulty_switch(player, a)

    def screen(self) -> np.ndarray:
        return self.env.screen_view()

    def palette(self) -> np.ndarray:
        return self.console.palette()

    # -- one frame -------------------------------------------------------------------------------------
    def step(self, inp: InputFrame, *, audio: bool = False, draw: bool = True) -> int:
        """Emulate one frame with this input; returns the number of audio samples produced."""
        new_game = inp.reset and not self._prev_reset
        self._prev_reset = inp.reset
        self.env.audio_log = audio
        self.env.play_frame(inp.action, paddle=inp.paddle, paddle_strength=inp.paddle_speed,
                            reset_switch=inp.reset, select_switch=inp.select, color=self.color,
                            new_game=new_game, draw=draw)
        self.frames += 1
        if audio:
            return int(sound.synth_frame(self.s, self.console.fb, self.voices, self.audio_buf))
        return 0

    # -- snapshots (save states, rewind) -------------------------------------------------------------
    def snapshot(self) -> "Snapshot":
        """Everything the next frames depend on: the machine, the env RNG, both screen buffers (a partial
        frame shows rows of older frames) and the session's own switches. About 80 KB, a few µs."""
        state, rng, fb = self.env.machine_snapshot()
        return Snapshot(state, rng, fb, self.color, self._prev_reset)

    def restore(self, snap: "Snapshot", branch: bool = True) -> None:
        self.env.restore_machine_snapshot(snap.state, snap.rng, snap.fb)
        self.color = snap.color
        self._prev_reset = snap.prev_reset
        self.audio_resync()

    def branch(self) -> None:
        """Play continues from a restored snapshot (nothing to do in free play; recorders start anew)."""

    def audio_resync(self) -> None:
        """After a pause or a state load: take the TIA's current registers, drop logged writes."""
        self.env.drop_audio_log()
        sound.sync_registers(self.s, self.voices)


@dataclass
class Snapshot:
    """An in-memory session snapshot (what rewind keeps and a save-state file wraps)."""

    state: np.ndarray        # the machine (engine state array)
    rng: np.ndarray          # the environment RNG (sticky actions, resets)
    fb: np.ndarray           # (2, height*160) both screen buffers
    color: bool = True
    prev_reset: bool = False

    @property
    def frame(self) -> int:
        return int(self.state[E_FRAME])


class Rewind:
    """The last ``keep_s`` seconds of play as snapshots, thinned with age so memory stays flat: every frame
    for the newest ``tiers[0]`` frames, every 4th up to ``tiers[1]``, every 32nd beyond (≈ 360 snapshots,
    ≈ 30 MB for 75 s). Rewinding pops the newest; playing on from there drops nothing else, so the
    ring simply continues from the branch point."""

    STEPS = (1, 4, 32)  # each step divides the next, so thinning never leaves a hole in a tier

    def __init__(self, frame_rate: float = 60.0, keep_s: float = 75.0, tiers_s: tuple = (2.0, 10.0)):
        self.limits = (int(tiers_s[0] * frame_rate), int(tiers_s[1] * frame_rate), int(keep_s * frame_rate))
        self.tiers: tuple[deque, deque, deque] = (deque(), deque(), deque())

    def __len__(self) -> int:
        return sum(len(t) for t in self.tiers)

    def clear(self) -> None:
        for t in self.tiers:
            t.clear()

    def push(self, snap: Snapshot) -> None:
        now = snap.frame
        self.tiers[0].append(snap)
        # age out oldest entries tier by tier; an entry survives into the next tier only on its grid
        for i, t in enumerate(self.tiers):
            while t and now - t[0].frame > self.limits[i]:
                old = t.popleft()
                if i + 1 < len(self.tiers) and old.frame % self.STEPS[i + 1] == 0:
                    self.tiers[i + 1].append(old)

    def pop(self) -> Snapshot | None:
        """The newest snapshot (removed), or None when the ring is empty."""
        for t in self.tiers:
            if t:
                return t.pop()
        return None

    def oldest_frame(self) -> int | None:
        for t in reversed(self.tiers):
            if t:
                return t[0].frame
        return None
