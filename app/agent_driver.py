"""An agent at the controls of the app's console: decisions, takeover, episode records. Qt-free.

The driver plugs into an :class:`~app.worker.EmulatorWorker` without changing its loop: it replaces the
worker's input source with :class:`ControlledInput` (which, while the agent has control, answers the
per-frame input sample with the agent's action) and appends one hook that books rewards and ends episodes.
So the agent drives the very session the human plays: same pacing, same view, same speed controls, and
a human can take over (and give back) at any frame.

Decisions run on the worker thread when the frame that needs one is sampled. A planner slower than real
time (UCT at the paper's budget) simply stalls the loop, and the worker resynchronises its clock instead
of racing; :attr:`AgentDriver.behind_s` measures how far the game has fallen behind the wall clock.

Keep real time (``keep_real_time``): a planner is handed a deadline for each decision, the moment its
decision period's frames are due (``frames_per_action`` periods after the decision frame was due) less a
margin for emulating and publishing those frames, and searches until then (anytime search, see
:mod:`agents.search`); the worker lets the period's frames catch up after the thinking frame instead of
resynchronising. The margin adapts: a period that ends late widens it, one that ends early narrows it.

Search ahead (with keep real time, for planners whose ``decide`` takes a ``source``): once decision k is
taken, decision k+1's search starts at once on a thread of its own, from the state the console will be in
then (:mod:`app.search_ahead`), and runs while decision k's frames play at the console's pace; decision
k+1 takes its result when the console is in the predicted state, so the worker never waits for a search
and the view moves every frame. When it is not (the first decision of an episode or of an agent segment
after a person played, a state load, rewind), the decision searches from the real state during its own
frame's period only, and the searches ahead resume from there.

Thoughts: every decision's thoughts (the planner's root visits and values, a learner's Q-values) go to a
:class:`~agents.thought_log.ThoughtLog` with the trace position where its action starts; the stored
episode keeps it, so its replay shows them.

Episodes: one starts at attach (or when a human presses RESET after game over) and ends at game over;
one cut short by a detach is stored abandoned (``ended_by="detached"``), never counted.
Every frame's action is recorded (frameskip 1, sticky 0), with the start state, so the record replays
exactly; ``controllers`` lists who played from which frame when control changed hands, and such
episodes are kept out of pure human/agent scores by the store.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque

import numpy as np

from arcade_lab.agents.base import EpisodeRecord, Observation
from arcade_lab.agents.thought_log import ThoughtLog, blob
from arcade_lab.engine import ale_core

from .search_ahead import AheadSearch, can_search_ahead
from .session import InputFrame

PROTOCOL = "free"           # app episodes: free play rules, no frame cap, no sticky actions
DEFAULT_FRAMES_PER_ACTION = 5  # the paper's decision period for learners and planners
MARGIN_TARGET_S = 0.002        # keep real time: how early a decision period's last frame should end
AHEAD_MARGIN_S = 0.002         # search ahead: how early a search should end before its decision is due
RECENT_DECISIONS = 20          # the window of the shown search effort per decision


def action_input(action: int, human: InputFrame | None = None) -> InputFrame:
    """The joystick input that plays ALE action ``action`` (console switches left released)."""
    u, d, l, r, f = (bool(v) for v in ale_core.JOYSTICK_TABLE[int(action)])
    return InputFrame(up=u, down=d, left=l, right=r, fire=f)


class ControlledInput:
    """Stands in for the worker's InputState: the human's input, or the agent's while it has control.
    Everything else (colour switch, paddle, key handling) is delegated to the human input."""

    def __init__(self, human, driver: "AgentDriver"):
        self.human = human
        self.driver = driver

    def snapshot(self) -> InputFrame:
        return self.driver.sample(self.human.snapshot())

    def __getattr__(self, name):
        return getattr(self.human, name)


class AgentDriver:
    """Attaches ``agent`` to the session a worker runs. ``human`` names the person for takeover
    segments. ``store`` (an :class:`agents.evaluation.store.Store`, or None) receives finished episodes
    that the agent played at least one frame of (pure human episodes are the sessions recorder's job)."""

    def __init__(self, agent, *, frames_per_action: int | None = None, human: str = "human:player",
                 store=None, keep_playing: bool = True, seed: int = 0, keep_real_time: bool = False,
                 search_ahead: bool = True):
        self.agent = agent
        self.name = f"agent:{getattr(agent, 'name', type(agent).__name__)}"
        fpa = frames_per_action or getattr(agent, "frames_per_action", None) or DEFAULT_FRAMES_PER_ACTION
        self.frames_per_action = max(1, int(fpa))
        self.human = human
        self.store = store
        self.keep_playing = keep_playing
        self.seed = seed
        self.worker = None
        self.session = None
        self._orig_input = None
        self._lock = threading.Lock()
        self._want_agent = True          # requested controller (GUI thread writes, worker reads)
        self.controller = "agent"        # controller of the frame being played
        self.overlay = False             # compute overlay data after decisions (off: no cost)
        self._deciding = False           # a decision is running on the worker thread
        # episode state (worker thread)
        self._ep_active = False
        self._agent_begun = False
        self._since_decision = 0
        self._action = 0
        self._reward_acc = 0.0
        self._trace: list[int] = []
        self._segments: list[list] = []
        self._start_state: bytes | None = None
        self._score = 0.0
        self._last_score = 0
        self._lives0 = 0
        self._t0 = 0.0
        self._fs_saved = 1
        # published to the GUI (read under the lock)
        self.thought: dict | None = None
        self.overlay_data: dict | None = None
        self.decisions = 0
        self.episodes_done = 0
        self.last_record: EpisodeRecord | None = None
        self.records: list[EpisodeRecord] = []   # finished this attach (GUI reads; newest last)
        self.errors: list[str] = []
        self.behind_s = 0.0                        # game time lost against the wall clock
        self.realtime_factor = 1.0                 # game seconds per wall second, recent
        self._rt_window: list[tuple[float, int]] = []
        self._pace_seen = 0
        self._frames = 0
        self._lost_seen: float | None = None
        # keep real time: planners get deadlines (only those that take one: ``next_deadline``)
        self.keep_real_time = bool(keep_real_time) and hasattr(agent, "next_deadline")
        self.margin_s = 0.2 * self.frames_per_action / 60.0
        self._period_end: float | None = None     # when the current decision period's frames are due
        self._catch_up_saved = 1
        self._period_frames = self.frames_per_action  # the frames a searching decision's deadline covers
        # search ahead (keep real time only): the next decision's search, running while this one's frames play
        self.search_ahead = self.keep_real_time and bool(search_ahead) and can_search_ahead(agent)
        self._ahead: AheadSearch | None = None
        self.ahead_margin_s = AHEAD_MARGIN_S
        self.ahead_used = 0                        # decisions that took a search ahead's result
        self.ahead_missed = 0                      # ... that found the console elsewhere than predicted
        self._log: ThoughtLog | None = None        # the episode's per-decision thoughts
        # search effort of recent decisions: simulations (UCT) or emulated frames (BFS)
        self.search_unit = "simulations" if hasattr(agent, "last_sims") else "frames"
        self._effort: deque = deque(maxlen=RECENT_DECISIONS)

    # -- installation (GUI thread) --------------------------------------------------------------------
    def install(self, worker, session) -> None:
        """Take the controls of ``session`` (the worker's current one). The agent's episode starts at the
        next frame, from the state the console is in then."""
        self.worker = worker
        self.session = session
        if hasattr(self.agent, "attach"):
            self.agent.attach(session.env)
        if getattr(self.agent, "w", None) is None:  # loaded SARSA weights bring their own action set
            self.agent.actions = session.env.action_set()
        self._fs_saved = session.env.frames_per_act
        self._orig_input = worker.input
        worker.input = ControlledInput(worker.input, self)
        worker.hooks.append(self._after_frame)
        if self.keep_real_time:
            self._catch_up_saved = worker.catch_up_frames
            # three periods: a decision that overruns its deadline (the machine busy with other work) is
            # made up by the next ones' shorter searches instead of the schedule being given up
            worker.catch_up_frames = 3 * self.frames_per_action

    def uninstall(self) -> None:
        """Give the controls back to the human for good. A running episode the agent played in is stored
        as cut short (abandoned, ended by ``detached``): replayable, never counted as a score (it would
        otherwise count as a game over that never happened), and the Scores dock says it left it out."""
        w = self.worker
        if w is None:
            return
        self.worker = None  # from now on sample() passes the human's input through
        self.abort_decision()
        ah, self._ahead = self._ahead, None
        if ah is not None:
            ah.cancel(clear_abort=False)   # (the abort above ended it; the agent is done with)
        if isinstance(w.input, ControlledInput) and w.input.driver is self:
            w.input = self._orig_input
        try:
            w.hooks.remove(self._after_frame)
        except ValueError:
            pass
        if self.keep_real_time:
            w.catch_up_frames = self._catch_up_saved
        sess = self.session

        def restore(s):
            if s is sess:
                s.env.frames_per_act = self._fs_saved
            self._store_cut_short(sess)   # (between frames: the episode's trace is complete)
        w.call(restore)

    def store_unfinished(self) -> None:
        """The window is closing and the emulator thread has stopped (so the episode's trace is complete and
        nothing else touches it): the episode under way is stored as a detach would store it."""
        self._store_cut_short(self.session)

    def _store_cut_short(self, sess) -> None:
        if not self._ep_active or self.name not in {p for _, p in self._segments}:
            return
        self._ep_active = False
        rec = self._record(sess, "detached")
        if self.store is not None:
            try:
                self.store.add_episode(rec, status="abandoned")
            except Exception as e:  # the score database is a convenience
                self.errors.append(f"store: {e}")

    def abort_decision(self) -> None:
        """Cut a planner's search short. At the paper's budget a UCT decision takes seconds; closing the
        window or detaching must not wait for it. Called whether or not a decision is under way: one may
        be just starting on the worker thread, and the planner's abort also ends a search not yet begun."""
        abort = getattr(self.agent, "abort", None)
        if abort is not None:
            abort()

    @property
    def attached(self) -> bool:
        return self.worker is not None

    # -- control --------------------------------------------------------------------------------------
    @property
    def agent_in_control(self) -> bool:
        return self._want_agent

    def set_agent_control(self, on: bool) -> None:
        self._want_agent = bool(on)

    def toggle_control(self) -> bool:
        """Hand control over (human <-> agent); the new state (True: agent)."""
        self._want_agent = not self._want_agent
        return self._want_agent

    # -- the worker thread ----------------------------------------------------------------------------
    def _observation(self, sess) -> Observation:
        return Observation(screen=sess.screen(), ram=sess.env.ram(), lives=sess.lives,
                           frame=sess.env.episode_frame_number, terminal=sess.game_over)

    def _begin_episode(self, sess) -> None:
        env = sess.env
        self._ep_active = True
        self._agent_begun = False
        self._trace = []
        self._segments = []
        self._reward_acc = 0.0
        self._log = ThoughtLog()
        self._score = 0.0
        self._last_score = sess.score
        self._lives0 = sess.lives
        self._t0 = time.perf_counter()
        try:
            self._start_state = env.clone_state(include_rng=True).to_bytes()
        except Exception:  # a start state is a nicety for replay; never stop play for it
            self._start_state = None

    def sample(self, human: InputFrame) -> InputFrame:
        """The input for the next frame (called by the worker once per frame, before it emulates)."""
        w = self.worker  # read once: uninstall() may clear it from the GUI thread
        sess = w.session if w is not None else None
        if sess is None or sess is not self.session:
            return human  # another game was loaded: this driver no longer applies
        if not self._ep_active:
            if sess.game_over:
                if not (self._want_agent and self.keep_playing):
                    return human  # game over under human control: RESET starts the next episode
                sess.env.reset()  # handed back at game over: the agent starts a fresh game
            self._begin_episode(sess)
        who = "agent" if self._want_agent else "human"
        if who != self.controller or not self._segments:
            self._segments.append([len(self._trace), self.name if who == "agent" else self.human])
            if who == "agent":
                self._agent_begun = False  # (re)start the agent from the state the human left
                self._since_decision = 0
            self.controller = who
        if who == "human":
            self._drop_ahead()  # the person plays other frames than the search ahead assumed
            self._trace.append(human.action)
            return human
        if self._since_decision % self.frames_per_action == 0:
            self._decide(sess)
        self._since_decision += 1
        self._trace.append(self._action)
        return action_input(self._action)

    def _decide(self, sess) -> None:
        sess.env.frames_per_act = self.frames_per_action  # planners simulate one decision as this many frames
        t0 = time.perf_counter()
        ahead = self._ahead_result(sess)
        obs = None
        if ahead is not None:
            a, dt = ahead
        else:
            obs = self._observation(sess)
            a = self._decide_now(sess, obs, t0)
            dt = time.perf_counter() - t0
        self._reward_acc = 0.0
        self._action = int(a)
        self._note_effort()
        thought = self._thought(dt)   # (before the next search ahead moves the planner's tree on)
        overlay = None
        if self.overlay:
            overlay = self._overlay(obs if obs is not None else self._observation(sess))
        with self._lock:
            self.thought = thought
            self.overlay_data = overlay
            self.decisions += 1
        self._start_ahead(sess)

    def _decide_now(self, sess, obs, t0: float) -> int:
        """The agent decides from the real state, on this thread."""
        self._give_deadline(sess, t0)
        self._deciding = True
        try:
            if not self._agent_begun:
                a = self.agent.begin_episode(obs)
                self._agent_begun = True
            else:
                a = self.agent.step(self._reward_acc, obs)
        except Exception as e:  # a failing agent hands control back instead of killing emulation
            self.errors.append(f"{self.name}: {type(e).__name__}: {e}")
            self._want_agent = False
            a = 0
        finally:
            self._deciding = False
        return a

    # -- search ahead (worker thread) -------------------------------------------------------------------
    def _ahead_ok(self) -> bool:
        w = self.worker
        return self.search_ahead and w is not None and not w.unthrottled and self._want_agent

    def _start_ahead(self, sess) -> None:
        """Begin the next decision's search from the state this decision's frames will lead to. It must end
        when that decision's frame is due: ``frames_per_action`` periods after this decision's."""
        w = self.worker  # read once, as in _ahead_result
        if w is None or not self._ahead_ok() or not self._agent_begun or sess.game_over:
            return
        period = 1.0 / (sess.frame_rate * w.speed)
        now = time.perf_counter()
        # as in _give_deadline: within the catch-up allowance the schedule holds, later it restarts from now
        due = w.frame_due if 0.0 <= now - w.frame_due < w.catch_up_frames * period else now
        deadline = due + self.frames_per_action * period - self.ahead_margin_s
        self._ahead = AheadSearch(self.agent, sess.env, action_input(self._action), self.frames_per_action,
                                  deadline, color=getattr(sess, "color", True))

    def _ahead_result(self, sess) -> tuple[int, float] | None:
        """(action, seconds) of the search ahead when it searched from the state the console is in; None:
        decide now."""
        ah, self._ahead = self._ahead, None
        if ah is None:
            return None
        w = self.worker  # read once: a Detach on the GUI thread may clear it while this decision runs
        if w is None or not (self._ahead_ok() and self._agent_begun):
            ah.cancel()
            return None
        ah.finish()
        # steer the margin so that the search ends just before its decision frame is due (a frame the
        # worker plays late for other reasons is not the search's doing)
        late = ah.ended - w.frame_due + MARGIN_TARGET_S / 2
        hi = 0.3 * self.frames_per_action / 60.0
        self.ahead_margin_s = min(hi, max(0.0005, self.ahead_margin_s + (0.5 if late > 0 else 0.1) * late))
        if ah.error is not None:
            self.errors.append(f"{self.name}: {type(ah.error).__name__}: {ah.error}")
        if ah.matches(sess.env):
            self.ahead_used += 1
            return ah.action, ah.seconds
        self.ahead_missed += 1
        return None

    def _drop_ahead(self) -> None:
        ah, self._ahead = self._ahead, None
        if ah is not None:
            ah.cancel()

    def _give_deadline(self, sess, now: float) -> None:
        """Keep real time: the decision may search until its period's frames are due, less the margin.
        At "as fast as possible" there is no clock to keep: the exact budget applies."""
        self._period_end = None
        w = self.worker
        if not self.keep_real_time or w is None or w.unthrottled:
            return
        period = 1.0 / (sess.frame_rate * w.speed)
        # a frame late within the catch-up allowance still ends its period on schedule (a shorter search
        # makes up the delay); later than that the worker resynchronises, and the period counts from now
        due = w.frame_due if 0.0 <= now - w.frame_due < w.catch_up_frames * period else now
        # searching ahead, a decision from the real state takes its own frame's period only: the view
        # keeps moving, and the next decision's search ahead gets the rest of the decision period
        self._period_frames = 1 if self.search_ahead else self.frames_per_action
        self._period_end = due + self._period_frames * period
        self.agent.next_deadline = self._period_end - self.margin_s

    def _end_of_period(self, now: float) -> None:
        """The decision period's last frame is done: steer the margin so the next one ends just in time."""
        late = now - self._period_end + MARGIN_TARGET_S
        hi = 0.6 * self._period_frames / 60.0
        self.margin_s = min(hi, max(0.001, self.margin_s + (0.5 if late > 0 else 0.1) * late))
        self._period_end = None

    def _note_effort(self) -> None:
        n = getattr(self.agent, "last_sims" if self.search_unit == "simulations" else "last_frames", None)
        if n is not None and n < 1 << 59:  # (an aborted BFS leaves its frame counter huge)
            self._effort.append(int(n))

    @property
    def effort_per_decision(self) -> float | None:
        """Mean :attr:`search_unit` per decision over the recent decisions; None for agents that do not
        search."""
        e = list(self._effort)
        return sum(e) / len(e) if e else None

    @property
    def frames_behind(self) -> float:
        """:attr:`behind_s` in frames of the console's clock."""
        sess = self.session
        return self.behind_s * (sess.frame_rate if sess is not None else 60.0)

    def _thought(self, dt: float) -> dict:
        """What the view shows of the decision just taken; it joins the episode's thought log at the trace
        position where its action starts."""
        ag = self.agent
        t = {"agent": self.name, "chosen": self._action, "actions": list(getattr(ag, "actions", [])),
             "seconds": dt, "decision": self.decisions + 1}
        shown = ag.thoughts() if callable(getattr(ag, "thoughts", None)) else None  # (Agent protocol: optional)
        if self._log is not None:
            self._log.add(shown, self._action, dt, at=len(self._trace))
        if shown is None:
            t["kind"] = "none"
        elif shown.kind == "plan":
            t.update(kind="plan", visits=shown.visits, value=shown.value, actions=shown.actions)
        else:
            t.update(kind="q", q=shown.value)
        return t

    def _overlay(self, obs) -> dict | None:
        """What the agent's features see: active tiles (Basic/BASS) or blobs (DISCO, Blob-PROST). Only when
        asked."""
        fs = getattr(self.agent, "features", None)
        if fs is None:
            return None
        try:
            name = getattr(fs, "name", "")
            if name in ("basic", "bass"):
                from arcade_lab.agents.features.basic import tile_colours
                singles = tile_colours(np.ascontiguousarray(obs.screen, np.uint8), fs.background, fs.secam,
                                       fs._mark)
                nc = 8 if fs.secam else 128
                tiles = np.unique(singles // nc)
                return {"kind": "tiles", "tiles": tiles, "height": obs.screen.shape[0]}
            if name == "disco":
                from arcade_lab.agents.features.disco import B_X0, B_X1, B_Y0, B_Y1, classify, extract_blobs
                blobs = extract_blobs(np.ascontiguousarray(obs.screen, np.uint8), fs.background)
                k = classify(blobs, fs.classes)
                boxes = [(int(c), int(b[B_X0]), int(b[B_Y0]), int(b[B_X1]), int(b[B_Y1]))
                         for c, b in zip(k, blobs)]
                return {"kind": "blobs", "boxes": boxes, "height": obs.screen.shape[0]}
            if name == "blobprost":  # every blob (no background subtraction), drawn in a hue per colour
                from arcade_lab.agents.features.blobprost import BL_BOTTOM, BL_COLOUR, BL_LEFT, BL_RIGHT, BL_TOP
                blobs = fs.blobs(obs.screen)
                boxes = [(int(b[BL_COLOUR]), int(b[BL_LEFT]), int(b[BL_TOP]), int(b[BL_RIGHT]), int(b[BL_BOTTOM]))
                         for b in blobs]
                return {"kind": "blobs", "boxes": boxes, "height": obs.screen.shape[0]}
        except Exception as e:
            self.errors.append(f"overlay: {e}")
        return None

    def _after_frame(self, sess) -> None:
        """Worker hook: reward booking, real-time accounting, episode end."""
        if sess is not self.session or not self._ep_active:
            return
        score = sess.score
        r = score - self._last_score
        self._last_score = score
        self._score += r
        self._reward_acc += r
        self._frames += 1
        self._account_time(sess)
        if self._period_end is not None and self._since_decision >= self._period_frames:
            self._end_of_period(time.perf_counter())
        if sess.game_over:
            self._end_episode(sess, "game_over")

    def _account_time(self, sess) -> None:
        now = time.perf_counter()
        w = self.worker
        period = 1.0 / sess.frame_rate
        if w is not None:
            # the schedule the worker gave up when it resynchronised after a late frame; pauses, stalls
            # and speeds other than 1x are not the agent's doing
            lost = w.time_lost
            if self._lost_seen is not None and not w.paused and not w.unthrottled and w.speed == 1.0:
                self.behind_s += lost - self._lost_seen
            self._lost_seen = lost
            pace = getattr(w, "pace_changes", 0)
            if pace != self._pace_seen:   # paused, held or sped up: the new pace is measured alone
                self._pace_seen = pace
                self._rt_window.clear()
        self._rt_window.append((now, self._frames))
        # keep one sample at or before the 2 s window's start, so a long decision stays in the average
        while len(self._rt_window) > 2 and now - self._rt_window[1][0] >= 2.0:
            self._rt_window.pop(0)
        t0, f0 = self._rt_window[0]
        if now > t0:
            self.realtime_factor = (self._frames - f0) * period / (now - t0)

    def _end_episode(self, sess, ended_by: str) -> None:
        self._ep_active = False
        self._drop_ahead()
        if self._agent_begun and self.controller == "agent":
            try:
                self.agent.end_episode(self._reward_acc)
            except Exception as e:
                self.errors.append(f"{self.name}: {e}")
        players = {p for _, p in self._segments}
        if self.name in players:  # a pure human episode is not this driver's to store
            rec = self._record(sess, ended_by)
            if self.store is not None:
                try:
                    self.store.add_episode(rec)
                except Exception as e:  # the score database is a convenience; play goes on
                    self.errors.append(f"store: {e}")
            # published after the database write, so a reader that sees the count also sees the row
            self.last_record = rec
            self.records.append(rec)
            self.episodes_done += 1
        if self.keep_playing and self._want_agent:
            sess.env.reset()  # the agent plays on: a fresh episode, as the Runner does

    def _record(self, sess, ended_by: str) -> EpisodeRecord:
        env = sess.env
        single = len({p for _, p in self._segments}) == 1
        return EpisodeRecord(
            player=self._segments[0][1] if single else self.name, game=env.info.id, md5=env.info.md5, mode=env.mode,
            difficulty=env.difficulty, protocol=PROTOCOL, seed=self.seed, score=float(self._score),
            frames=len(self._trace), steps=len(self._trace), lives_lost=max(0, self._lives0 - sess.lives),
            wall_time=time.perf_counter() - self._t0, ended_by=ended_by, frameskip=1,
            actions=np.asarray(self._trace, np.uint8), start_state=self._start_state,
            controllers="" if single else json.dumps(self._segments), thoughts=blob(self._log),
            extra={"frames_per_action": self.frames_per_action, "app": True})

    # -- GUI reads --------------------------------------------------------------------------------------
    def latest(self) -> tuple[dict | None, dict | None]:
        with self._lock:
            return self.thought, self.overlay_data

    @property
    def episode_frames(self) -> int:
        return len(self._trace)

    @property
    def episode_score(self) -> float:
        return self._score

    @property
    def segments(self) -> list:
        return [list(x) for x in self._segments]
