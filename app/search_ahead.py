"""Searching ahead: a planner keeping real time searches for its next decision while this one's frames play.

The app's protocol has no sticky actions and the emulator is deterministic, so once decision k has chosen
action ``a`` for ``f`` frames, the state decision k+1 will see is known: the machine after ``f`` frames of
``a``. :class:`AheadSearch` copies the console between two frames (on the emulator thread), plays those
frames on the copy exactly as the worker will (``Env.play_frame`` with the agent's joystick input), and
searches from the copy on a thread of its own until decision k+1 is due. The compiled search releases
the GIL, so the real frames go on at 60 Hz meanwhile. When decision k+1 comes, its result is used only if
the real machine equals the predicted one (:meth:`AheadSearch.matches`); anything that changed the game
in between (a person at the controls, a state load, a reset, rewind) makes the driver decide as before.

Qt-free. Only one search runs on an agent at a time: the driver finishes or cancels an ahead search
before it calls the agent on the emulator thread.
"""
from __future__ import annotations

import copy
import threading
import time

import numpy as np

from arcade_lab.engine.layout import AUD_N, AUD_ON, N_SNAPSHOT

# the machine-snapshot slots a prediction may leave different: the sound log's switch and count (the
# worker logs sound at 1x with sound on, the copy never does). The log changes no emulated result; it only
# takes the CPU off a fast path for TIA writes, which the copy's search keeps.
_IGNORED = np.zeros(N_SNAPSHOT, bool)
_IGNORED[[AUD_ON, AUD_N]] = True


def shadow_env(env):
    """A copy of ``env`` that shares its ROM and rules but owns its machine state, frame buffers and RNG:
    playing or searching on it leaves ``env`` alone. Made between frames of ``env``; it logs no sound."""
    shadow = copy.copy(env)
    con = copy.copy(env.console)
    con.s = env.console.s.copy()
    con.fb = env.console.fb.copy()
    con._snap = con.s[:N_SNAPSHOT]
    con._snap_view = memoryview(con._snap)
    shadow.console = con
    shadow.rng = env.rng.copy()
    shadow._snap_scratch = np.empty_like(con.s)
    shadow._rng_scratch = np.empty_like(shadow.rng)
    con.s[AUD_ON] = 0
    con.s[AUD_N] = 0
    return shadow


def same_machine(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two machine states are the same snapshot (sound bookkeeping aside)."""
    diff = a[:N_SNAPSHOT] != b[:N_SNAPSHOT]
    return not np.any(diff & ~_IGNORED)


class AheadSearch:
    """Decision k+1's search, begun when decision k chose ``inp`` (the joystick input of its action) for
    ``frames`` frames. ``color`` is the session's TV-type switch; ``deadline`` (``perf_counter``) is when
    decision k+1 is due."""

    def __init__(self, agent, env, inp, frames: int, deadline: float, color: bool = True):
        self.agent = agent
        self.env = shadow_env(env)       # now, between frames: the worker changes env from the next one
        self.deadline = deadline
        self.action: int | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.ended = 0.0                 # perf_counter time the search ended
        self.predicted: np.ndarray | None = None
        self._inp, self._frames, self._color = inp, int(frames), bool(color)
        self._thread = threading.Thread(target=self._run, name="search-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            sh, inp = self.env, self._inp
            for _ in range(self._frames):
                sh.play_frame(inp.action, paddle=inp.paddle, paddle_strength=inp.paddle_speed, color=self._color)
            self.predicted = sh.console.s[:N_SNAPSHOT].copy()
            t0 = time.perf_counter()
            self.action = int(self.agent.decide(deadline=self.deadline, source=sh))
            self.seconds = time.perf_counter() - t0
        except BaseException as e:  # noqa: BLE001 -- reported to the driver, which decides as before
            self.error = e
        self.ended = time.perf_counter()

    def finish(self, timeout: float | None = None) -> bool:
        """Wait for the search (it ends at its deadline); True when it ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def cancel(self, timeout: float | None = 2.0, clear_abort: bool = True) -> None:
        """End the search now (the planner's abort ends it at its next simulation) and wait for it. A
        planner's abort also stops the next search when none runs, so that the search begun just before a
        detach stops too; ``clear_abort`` takes it back once this one has ended, for the agent plays on."""
        if not self._thread.is_alive():
            return
        abort = getattr(self.agent, "abort", None)
        if abort is not None:
            abort()
        if self.finish(timeout) and clear_abort and hasattr(self.agent, "_stop"):
            self.agent._stop = False

    def matches(self, env) -> bool:
        """Whether the search ended with an action, from the state ``env`` is in now."""
        return (self.action is not None and self.error is None and self.predicted is not None
                and same_machine(env.console.s, self.predicted))


def can_search_ahead(agent) -> bool:
    """Planners whose ``decide`` takes a deadline and a position to search from."""
    import inspect

    decide = getattr(agent, "decide", None)
    if decide is None or not hasattr(agent, "next_deadline"):
        return False
    try:
        params = inspect.signature(decide).parameters
    except (TypeError, ValueError):
        return False
    return "source" in params and "deadline" in params
