"""Helper threads parked in compiled code (engine/crew.py): every call's shares run once, after what the
caller wrote and before the caller reads them; helpers that slept wake; stopping and collecting a crew end
its threads; a forked child gets threads of its own."""
from __future__ import annotations

import gc
import multiprocessing
import threading
import time

import numpy as np
import pytest

from arcade_lab.engine import crew
from arcade_lab.engine._jit import jit

pytestmark = pytest.mark.skipif(not crew.available(), reason="crews need Linux futexes (x86-64 or ARM64)")


@jit(cache=False)  # (a cached test kernel would not see edits to crew.py)
def _share(t, inputs, outputs):
    # share t doubles its slot of the caller's input: a helper that ran early (before the caller's write)
    # or twice leaves a wrong value
    x = inputs[t]
    for _ in range(3000 * t):  # helpers take longer than the caller's share: a caller that did not wait
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF  # for them reads their slots unwritten
    outputs[t] = outputs[t] + 2 * inputs[t] + (x & 0x100000000)


@jit(cache=False)
def _serve(t, ctl, inputs, outputs):
    gen = 0
    while True:
        gen = crew.park(ctl, gen)
        if gen < 0:
            return
        _share(t, inputs, outputs)
        crew.done(ctl)


@jit(cache=False)
def _lead(ctl, inputs, outputs):
    target = crew.start(ctl)
    _share(0, inputs, outputs)
    crew.join(ctl, target)


def _crew(helpers=3):
    inputs = np.zeros(helpers + 1, np.int64)
    outputs = np.zeros(helpers + 1, np.int64)
    return crew.Crew(_serve, helpers, (inputs, outputs)), inputs, outputs


def _crew_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("arcade-lab-crew")]


def _calls(c, inputs, outputs, n, pause=0.0) -> None:
    expected = outputs.copy()
    for k in range(n):
        inputs[:] = np.arange(len(inputs)) + k
        _lead(c.ready(), inputs, outputs)
        expected += 2 * inputs
        assert np.array_equal(outputs, expected), f"call {k}: {outputs} != {expected}"
        if pause:
            time.sleep(pause)


def test_every_share_runs_once_per_call_after_the_callers_writes():
    c, inputs, outputs = _crew(3)
    try:
        _calls(c, inputs, outputs, 3000)
    finally:
        c.stop()


def test_helpers_asleep_in_the_kernel_wake_for_the_next_call():
    c, inputs, outputs = _crew(2)
    try:
        _calls(c, inputs, outputs, 3)
        time.sleep(0.05)  # far past the spin: the helpers sleep on the futex
        assert c.ctl[crew.C_SLEEPERS] == 2
        _calls(c, inputs, outputs, 20, pause=0.002)
    finally:
        c.stop()


def test_stop_and_garbage_collection_end_the_threads():
    before = len(_crew_threads())
    c, inputs, outputs = _crew(2)
    _calls(c, inputs, outputs, 5)
    assert len(_crew_threads()) == before + 2
    c.stop()
    assert len(_crew_threads()) == before
    c, inputs, outputs = _crew(2)
    _calls(c, inputs, outputs, 5)
    del c
    gc.collect()
    deadline = time.monotonic() + 5
    while len(_crew_threads()) > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(_crew_threads()) == before


def _child(conn) -> None:
    c, inputs, outputs = _PARENT
    _calls(c, inputs, outputs, 50)
    conn.send(outputs.tolist())


_PARENT = None


def test_a_forked_child_runs_its_own_helpers():
    global _PARENT
    c, inputs, outputs = _crew(2)
    try:
        _calls(c, inputs, outputs, 5)
        _PARENT = (c, inputs, outputs)
        ctx = multiprocessing.get_context("fork")
        here, there = ctx.Pipe()
        p = ctx.Process(target=_child, args=(there,))
        p.start()
        assert here.poll(60), "the child's calls did not finish: its helpers never ran"
        got = here.recv()
        p.join(10)
        assert p.exitcode == 0
        assert got[1] > 0 and got[1] != outputs[1]  # the child went on from the parent's values
    finally:
        _PARENT = None
        c.stop()


def test_vector_env_steps_the_same_with_and_without_a_crew(monkeypatch):
    from arcade_lab.engine.ale_vector import ArcadeLabVectorEnv

    def run():
        env = ArcadeLabVectorEnv("breakout", 5, num_threads=2)
        try:
            obs, _ = env.reset(seed=3)
            rng = np.random.default_rng(1)
            out = [obs]
            for _ in range(60):
                o, r, te, tr, info = env.step(rng.integers(env.single_action_space.n, size=5))
                out += [o, r, te, tr, info["lives"]]
            return env.lanes._crew is not None, out
        finally:
            env.close()

    before = len(_crew_threads())
    with_crew, a = run()
    assert len(_crew_threads()) == before  # close() ended its helpers
    monkeypatch.setenv("ARCADE_LAB_CREW", "0")
    without, b = run()
    assert with_crew and not without
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
