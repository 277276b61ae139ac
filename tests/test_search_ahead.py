"""Searching ahead (app/search_ahead.py, AgentDriver): the copy played ahead reaches the very state the
console reaches, a planner searching from it decides as it would from that state, and a driver keeping
real time takes the searches' results without making the emulator thread wait, falls back when the console
is elsewhere, and keeps every decision's thoughts with the episode."""
from __future__ import annotations

import threading

import time

import numpy as np
import pytest

from arcade_lab.agents import make_agent
from arcade_lab.agents.evaluation.store import Store
from arcade_lab.agents.thought_log import ThoughtLog
from arcade_lab.app.agent_driver import AgentDriver, action_input
from arcade_lab.app.search_ahead import same_machine, shadow_env
from arcade_lab.app.session import InputFrame, PlaySession
from arcade_lab.engine.env import Env

FIRE, RIGHT, LEFT = 1, 3, 4


def test_a_copy_played_ahead_reaches_the_state_the_session_reaches():
    sess = PlaySession("breakout")
    for _ in range(40):
        sess.step(action_input(FIRE), audio=True)
    before = sess.env.console.s.copy()
    shadow = shadow_env(sess.env)
    for _ in range(5):
        shadow.play_frame(RIGHT, color=sess.color)
    assert np.array_equal(sess.env.console.s, before)            # the session's console was left alone
    assert not same_machine(sess.env.console.s, shadow.console.s)
    for _ in range(5):                                             # the worker plays the same frames
        sess.step(action_input(RIGHT), audio=True)
    assert same_machine(sess.env.console.s, shadow.console.s)
    assert np.array_equal(sess.screen(), shadow.screen_view())
    sess.step(action_input(LEFT), audio=True)                     # one frame more: no longer the same
    assert not same_machine(sess.env.console.s, shadow.console.s)


def test_uct_searching_from_a_copy_decides_as_from_that_state():
    env = Env("breakout", frameskip=5, repeat_action_probability=0.0, seed=3)
    for a in (FIRE, RIGHT, RIGHT, LEFT):
        env.act(a)
    here = env.console.s.copy()
    ahead = shadow_env(env)
    ahead.act(RIGHT)                                               # the next decision's state, on the copy
    one = make_agent("uct", env, seed=1, simulations=40, depth_frames=60)
    a1 = one.decide(source=ahead)
    assert np.array_equal(env.console.s, here)                    # the agent's env was not moved
    env.act(RIGHT)                                                 # now the env is where the copy was
    two = make_agent("uct", env, seed=1, simulations=40, depth_frames=60)
    a2 = two.decide()
    assert a1 == a2
    s1, s2 = one.root_stats(), two.root_stats()
    assert np.array_equal(s1["visits"], s2["visits"]) and s1["visits"].sum() >= 40
    assert np.allclose(s1["value"], s2["value"], equal_nan=True)


class _Human:
    def snapshot(self) -> InputFrame:
        return InputFrame()


class _Worker:
    """The parts of EmulatorWorker a driver uses, with its loop: sample, emulate, hooks, pace to 60 Hz."""

    def __init__(self, sess):
        self.session, self.input, self.hooks = sess, _Human(), []
        self.catch_up_frames, self.unthrottled, self.speed, self.paused = 1, False, 1.0, False
        self.frame_due, self.time_lost = 0.0, 0.0
        self.sample_s: list[float] = []          # how long each frame's input sample took

    def call(self, fn):
        fn(self.session)

    def play(self, frames: int) -> None:
        next_t = time.perf_counter()
        for _ in range(frames):
            self.frame_due = next_t
            t0 = time.perf_counter()
            inp = self.input.snapshot()
            self.sample_s.append(time.perf_counter() - t0)
            self.session.step(inp, audio=True)
            for hook in list(self.hooks):
                hook(self.session)
            period = 1 / 60
            next_t += period
            now = time.perf_counter()
            if now > next_t + period * self.catch_up_frames:
                next_t = now
            elif next_t > now:
                time.sleep(next_t - now)


def _attached(tmp_path, **kw):
    sess = PlaySession("breakout")
    worker = _Worker(sess)
    agent = make_agent("uct", sess.env, 0, simulations=30, depth_frames=40)
    driver = AgentDriver(agent, frames_per_action=5, store=Store(tmp_path / "s.db"), **kw)
    driver.install(worker, sess)
    return sess, worker, driver


def test_a_driver_keeping_real_time_takes_the_searches_ahead_and_keeps_their_thoughts(tmp_path):
    sess, worker, d = _attached(tmp_path, keep_real_time=True)
    assert d.search_ahead
    searched_on = []
    decide = d.agent.decide

    def spy(*args, **kwargs):
        searched_on.append(threading.current_thread().name)
        return decide(*args, **kwargs)

    d.agent.decide = spy
    worker.play(150)                                              # 30 decisions
    assert d.decisions == 30
    assert d.ahead_missed == 0 and d.ahead_used == 29            # all but the episode's first decision
    # the emulator thread searched for the first decision only; every later search (29 used, one begun
    # for the next decision) ran on a thread of its own (how long the emulator thread then waits for one
    # is the machine's load, not the design's)
    assert searched_on[0] != "search-ahead" and searched_on[1:] == ["search-ahead"] * 30
    # a state load between two decisions: the search ahead no longer applies and the driver decides anew
    snap = sess.snapshot()
    worker.play(3)
    sess.restore(snap)
    worker.play(12)
    assert d.ahead_missed == 1 and d.ahead_used >= 30
    frames = d.episode_frames
    d.uninstall()                                                 # stored as cut short, with its thoughts
    with Store(tmp_path / "s.db") as st:
        [row] = st.episodes(status="abandoned")
        rec = st.episode(row.id)
    log = ThoughtLog.from_bytes(rec.thoughts)
    assert rec.frames == frames and len(log) == d.decisions
    at = log.arrays()["at"]
    assert at[0] == 0 and np.all(np.diff(at) > 0) and np.all(at % 5 == 0)
    assert log.kind == "plan" and all(log.decision(i)["visits"].sum() > 0 for i in range(len(log)))
    # the log's chosen actions are the actions the trace plays from each decision on
    assert all(rec.actions[a] == log.decision(i)["chosen"] for i, a in enumerate(at))


def test_exact_budgets_do_not_search_ahead(tmp_path):
    sess, worker, d = _attached(tmp_path, keep_real_time=False)
    assert not d.search_ahead
    worker.play(20)
    assert d.decisions == 4 and d.ahead_used == 0 and d._ahead is None
    assert d.agent.last_sims == 30                                # the exact budget, every decision
    d.uninstall()


@pytest.mark.parametrize("ahead", [False, True])
def test_a_person_taking_over_ends_the_search_ahead(tmp_path, ahead):
    sess, worker, d = _attached(tmp_path, keep_real_time=True, search_ahead=ahead)
    worker.play(12)
    d.set_agent_control(False)
    worker.play(6)
    assert d._ahead is None                                       # nothing searches while the person plays
    d.set_agent_control(True)
    worker.play(12)
    assert d.ahead_missed == 0 and (d.ahead_used > 0) == ahead
    d.uninstall()


def test_bfs_searches_ahead_too(tmp_path):
    sess = PlaySession("breakout")
    worker = _Worker(sess)
    d = AgentDriver(make_agent("bfs", sess.env, 0, frames=3000), frames_per_action=5, keep_real_time=True)
    d.install(worker, sess)
    worker.play(50)
    assert d.search_ahead and d.decisions == 10 and d.ahead_used == 9 and d.ahead_missed == 0
    assert d.effort_per_decision > 0 and not d.errors
    d.uninstall()


def test_a_detach_while_the_emulator_waits_for_the_search_ahead_leaves_play_going(tmp_path, monkeypatch):
    """Detach (the GUI thread) while the emulator thread waits for the search ahead of its next decision:
    that decision is dropped, and the frames after it play on the person's input without an error."""
    from arcade_lab.app import search_ahead

    sess, worker, d = _attached(tmp_path, keep_real_time=True)
    worker.play(12)
    finish = search_ahead.AheadSearch.finish
    detached = []

    def finish_while_detached(self):
        if not detached:
            gui = threading.Thread(target=d.uninstall)
            gui.start()
            gui.join()
            detached.append(d.worker)
        return finish(self)

    monkeypatch.setattr(search_ahead.AheadSearch, "finish", finish_while_detached)
    worker.play(12)
    assert detached == [None] and d.worker is None and isinstance(worker.input, _Human)
    assert d._ahead is None
