"""The emulator thread: runs the play session, paces it to the console's frame rate, publishes frames.

The loop samples the input state once per frame, emulates one frame (numba releases the GIL), pushes
that frame's sound, and publishes the newest frame — the GUI is told only when it has taken the previous
one, so frames are dropped, never queued. Pacing uses ``perf_counter`` with a short sleep and a final
spin, not a coarse timer. Commands (load, pause, step, speed, stop) arrive through a queue.
"""
from __future__ import annotations

import queue
import threading
import time
import traceback

import numpy as np
from PySide6.QtCore import QThread, Signal

from .audio import NullAudio
from .session import PlaySession, Rewind

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


class EmulatorWorker(QThread):
    frame_ready = Signal(int)        # a new frame is waiting in take_frame()
    session_loaded = Signal(object)  # the PlaySession now running
    error = Signal(str)
    stats = Signal(dict)             # about twice a second
    notice = Signal(str)             # one-line news for the status bar (state loaded, rewind, refusals)

    def __init__(self, input_state, audio=None, parent=None):
        super().__init__(parent)
        self.input = input_state
        self.audio = audio or NullAudio()
        self.session: PlaySession | None = None
        self._cmds: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._latest: np.ndarray | None = None
        self._latest_frame = 0
        self._gui_pending = False
        self._running = True
        self.paused = False
        self.held = False                # a dialog is open over the window: the game waits for the player
        self.speed = 1.0
        self.unthrottled = False
        self.pace_changes = 0            # pauses, holds, steps and speed changes so far
        self.sound_on = True
        self.rewind = Rewind()
        self.rewinding = False
        self.hooks: list = []            # callables(session) run after every frame (recorders, agents)
        self.gamepads = None             # polled before every frame when present
        # statistics for the status bar and `arcade-lab bench app`
        self.frames_emulated = 0
        self.frames_published = 0
        self.frames_dropped = 0          # published over a frame the GUI never took
        self.frames_late = 0             # deadlines missed by more than the catch-up allowance
        self.time_lost = 0.0             # seconds of schedule given up when resynchronising after those
        self.emulated_fps = 0.0
        # pacing: a frame may run this many periods late and the following ones catch up without sleeping
        # (an agent keeping real time thinks during the first frame of its decision period and widens it)
        self.catch_up_frames = 1
        self.frame_due = 0.0             # perf_counter time the frame being emulated was due

    # -- commands (any thread) ------------------------------------------------------------------------
    def load(self, rom, **kw) -> None:
        self._cmds.put(("load", rom, kw))

    def set_session(self, session: PlaySession) -> None:
        self._cmds.put(("session", session, None))

    def pause(self, on: bool = True) -> None:
        self._cmds.put(("pause", on, None))

    def hold(self, on: bool) -> None:
        """Stop the game's frames while a dialog covers the window (for every session: a scored episode
        must not run on while its player answers a question), and let them go on after it."""
        self._cmds.put(("hold", on, None))

    def step_frame(self) -> None:
        self._cmds.put(("step", None, None))

    def set_speed(self, speed: float | None) -> None:
        """A factor (0.25-4) or None for as fast as possible."""
        self._cmds.put(("speed", speed, None))

    def call(self, fn) -> None:
        """Run ``fn(session)`` on the emulator thread between frames."""
        self._cmds.put(("call", fn, None))

    def load_state(self, apply, notice: str = "State loaded") -> None:
        """Run ``apply(session)`` (a state load) on the emulator thread; the rewind ring and the audio
        queue belong to the old timeline and are dropped. ``notice`` is announced once it is done;
        refusals come back as ``error``."""
        self._cmds.put(("state", apply, notice))

    def stop(self) -> None:
        self._running = False
        self._cmds.put(("stop", None, None))

    # -- frames (GUI thread) -------------------------------------------------------------------------------
    def take_frame(self) -> tuple[np.ndarray | None, int]:
        with self._lock:
            self._gui_pending = False
            return self._latest, self._latest_frame

    def _publish(self) -> None:
        sess = self.session
        frame = sess.screen()
        with self._lock:
            if self._latest is None or self._latest.shape != frame.shape:
                self._latest = frame.copy()
            else:
                np.copyto(self._latest, frame)
            self._latest_frame = sess.frame_number
            dropped = self._gui_pending
            self._gui_pending = True
        self.frames_published += 1
        if dropped:
            self.frames_dropped += 1
        else:
            self.frame_ready.emit(self._latest_frame)

    # -- the loop -----------------------------------------------------------------------------------------
    def _handle(self, cmd, arg, kw) -> bool:
        """Returns True when a single step was requested."""
        if cmd in ("pause", "hold", "step", "speed"):
            self.pace_changes += 1   # (a real-time factor measured across the change would mean nothing)
        if cmd == "load":
            try:
                sess = PlaySession(arg, **(kw or {}))
            except Exception as e:  # a bad ROM never kills the thread
                self.error.emit(str(e))
                return False
            self._install(sess)
        elif cmd == "session":
            self._install(arg)
        elif cmd == "state":
            if self.session is not None:
                try:
                    arg(self.session)
                except Exception as e:  # wrong ROM, damaged file, a locked session: say so, keep running
                    self.error.emit(str(e))
                    return False
                self.rewind.clear()
                self.audio.clear()
                self.notice.emit(kw or "State loaded")
                self._publish()
        elif cmd in ("pause", "hold"):  # the game stops or goes on: its sound starts afresh either way
            if cmd == "hold":
                self.held = bool(arg)
            elif arg and self.session is not None and "pause" in self.session.locks:
                return False  # the window refuses and says why; this guards other callers
            else:
                self.paused = bool(arg)
            self.audio.clear()
            if self.session:
                self.session.audio_resync()
        elif cmd == "step":
            if self.session is not None and "pause" in self.session.locks:
                return False  # a step pauses: as for pause, the window refuses and says why
            self.paused = True
            return True
        elif cmd == "speed":
            if self.session is not None and "speed" in self.session.locks:
                return False
            self.unthrottled = arg is None
            self.speed = 1.0 if arg is None else float(arg)
            self.audio.clear()
        elif cmd == "call":
            if self.session is not None:
                try:
                    arg(self.session)
                except Exception as e:
                    self.error.emit(f"{type(e).__name__}: {e}")
        elif cmd == "stop":
            self._running = False
        return False

    def _install(self, sess: PlaySession) -> None:
        old = self.session
        if old is not None and old is not sess and hasattr(old, "close"):
            try:
                old.close()  # a recorded session marks its unfinished episode and closes in the store
            except Exception as e:
                self.error.emit(f"closing the previous session: {e}")
        self.session = sess
        self.rewind.clear()
        self.rewinding = False
        if "speed" in sess.locks:
            self.speed, self.unthrottled = 1.0, False
        if "pause" in sess.locks:
            self.paused = False
        self.audio.clear()
        self.session_loaded.emit(sess)
        self._publish()

    def run(self) -> None:  # noqa: C901 (the loop reads best in one place)
        next_t = time.perf_counter()
        stat_t = next_t
        stat_frames = 0
        while self._running:
            step_once = False
            try:
                timeout = 0.05 if (self.paused or self.held or self.session is None) else 0.0
                cmd = self._cmds.get(timeout=timeout) if timeout else self._cmds.get_nowait()
                step_once = self._handle(*cmd)
                while not step_once:  # a step runs its frame before the commands queued after it
                    step_once = self._handle(*self._cmds.get_nowait())
            except queue.Empty:
                pass
            if not self._running:
                break
            sess = self.session
            if sess is None or ((self.paused or self.held) and not step_once):
                next_t = time.perf_counter()
                continue
            try:
                if self.gamepads is not None:
                    self.gamepads.poll()
                self.frame_due = next_t
                inp = self.input.snapshot()
                if inp.rewind and "rewind" not in sess.locks:
                    # run time backwards: one snapshot per displayed frame, newest first (thinned with age)
                    snap = self.rewind.pop()
                    if snap is not None:
                        sess.restore(snap, branch=False)
                        if not self.rewinding:
                            self.audio.clear()
                            self.notice.emit("Rewinding…")
                    self.rewinding = True
                else:
                    if self.rewinding:
                        self.rewinding = False
                        sess.branch()  # play continues from here; a recorder starts a new episode
                        self.audio.clear()
                    audio = self.sound_on and not self.unthrottled and self.speed == 1.0 and not self.paused
                    n = sess.step(inp, audio=audio)
                    if n:
                        self.audio.push(sess.audio_buf[:n], sess.sample_rate)
                    if "rewind" not in sess.locks:
                        self.rewind.push(sess.snapshot())
                    for hook in list(self.hooks):
                        hook(sess)
            except Exception as e:
                self.paused = True
                traceback.print_exc()  # whole, for a bug report; the window shows its first line
                self.error.emit(f"emulation stopped: {type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
                continue
            self.frames_emulated += 1
            stat_frames += 1
            now = time.perf_counter()
            if self.unthrottled:
                if now - getattr(self, "_last_pub", 0.0) >= 1 / 60:
                    self._last_pub = now
                    self._publish()
                next_t = now
            else:
                self._publish()
                period = 1.0 / (sess.frame_rate * self.speed)
                next_t += period
                if now > next_t + period * self.catch_up_frames:
                    self.frames_late += 1
                    if now - next_t < 5.0:  # longer: the machine slept, nobody was watching
                        self.time_lost += now - next_t
                    next_t = now  # fell behind: resynchronise instead of racing to catch up
                else:
                    remaining = next_t - time.perf_counter()
                    if remaining > 0.002:
                        time.sleep(remaining - 0.0015)
                    while time.perf_counter() < next_t:
                        pass
            if now - stat_t >= 0.5:
                self.emulated_fps = stat_frames / (now - stat_t)
                stat_t, stat_frames = now, 0
                self.stats.emit({"fps": self.emulated_fps, "dropped": self.frames_dropped,
                                 "late": self.frames_late, "underruns": self.audio.underruns,
                                 "audio": self.audio.state})
        self.audio.close()
