"""The vector environment's XLA interface (``envs.xla()``, ale-py 0.12's): reset and step compiled inside
``jax.jit`` and ``jax.lax.scan`` give what ale-py's ``AtariVectorEnv`` gives for the same seeds and actions."""
from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
ale_py = pytest.importorskip("ale_py")
from ale_py.vector_env import AtariVectorEnv  # noqa: E402

from arcade_lab.engine.ale_vector import ArcadeLabVectorEnv  # noqa: E402

RAW = dict(img_height=210, img_width=160, stack_num=1, grayscale=True, maxpool=False, noop_max=0,
           use_fire_reset=False, reward_clipping=False, frameskip=4)


def _same(tag, ours, theirs):
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (tag, ours.dtype, theirs.dtype, ours.shape)
    if not np.array_equal(ours, theirs):
        diff = np.abs(ours.astype(np.int64) - theirs.astype(np.int64))
        pytest.fail(f"{tag}: {np.count_nonzero(diff)} values differ, largest by {diff.max()}")


def _scan_rollout(step):
    @jax.jit
    def rollout(handle, actions):
        def body(h, a):
            h, (obs, reward, term, trunc, info) = step(h, a)
            return h, (obs, reward, term, trunc, info)
        return jax.lax.scan(body, handle, actions)
    return rollout


@pytest.mark.parametrize("game,options", [("breakout", {}), ("seaquest", RAW)])
def test_a_jitted_scan_of_steps_equals_ale_py_frame_for_frame(game, options):
    n, steps = 3, 120
    ours = ArcadeLabVectorEnv(game, n, num_threads=2, **options)
    theirs = AtariVectorEnv(game, n, num_threads=2, **options)
    try:
        handle, reset, step = ours.xla()
        assert handle.shape == (8,) and handle.dtype == jnp.uint8
        handle, (obs, info) = jax.jit(lambda h: reset(h, seed=5))(handle)
        ref_obs, ref_info = theirs.reset(seed=5)
        _same("reset obs", obs, ref_obs)
        for k in ref_info:
            _same(f"reset info {k}", info[k], ref_info[k])
        actions = np.random.default_rng(1).integers(0, ours.single_action_space.n, (steps, n)).astype(np.int32)
        handle, (obs, reward, term, trunc, info) = _scan_rollout(step)(handle, actions)
        ended = 0
        for t in range(steps):
            r_obs, r_reward, r_term, r_trunc, r_info = theirs.step(actions[t].astype(np.int64))
            _same(f"step {t} obs", obs[t], r_obs)
            _same(f"step {t} reward", reward[t], r_reward)
            _same(f"step {t} terminated", term[t], r_term)
            _same(f"step {t} truncated", trunc[t], r_trunc)
            for k in ("env_id", "lives", "frame_number", "episode_frame_number"):
                _same(f"step {t} {k}", info[k][t], r_info[k])
            ended += int(r_term.sum())
        # the handle threads on: a further step continues the same episodes
        handle, (obs, *_rest) = step(handle, jnp.zeros(n, jnp.int32))
        _same("step after the scan", obs, theirs.step(np.zeros(n, np.int64))[0])
    finally:
        ours.close()
        theirs.close()


def test_a_traced_reset_mask_and_seed_array_reset_the_lanes_ale_py_resets():
    n = 4
    ours = ArcadeLabVectorEnv("pong", n, num_threads=2, **RAW)
    theirs = AtariVectorEnv("pong", n, num_threads=2, **RAW)
    try:
        handle, reset, step = ours.xla()
        handle, _ = reset(handle, seed=0)
        theirs.reset(seed=0)
        rng = np.random.default_rng(3)
        for t in range(30):
            a = rng.integers(0, 6, n)
            handle, (obs, *_r) = step(handle, jnp.asarray(a, jnp.int32))
            theirs.step(a)
        mask = np.array([False, True, False, True])
        seeds = np.array([11, 12], dtype=np.int32)

        @jax.jit
        def masked(h, m, s):
            return reset(h, seed=s, reset_mask=m)

        handle, (obs, info) = masked(handle, jnp.asarray(mask), jnp.asarray(seeds))
        ref_obs, ref_info = theirs.reset(seed=seeds.astype(np.int64), options={"reset_mask": mask})
        _same("masked reset obs", obs, ref_obs)
        for k in ref_info:
            _same(f"masked reset {k}", info[k], ref_info[k])
        handle, (obs, info) = reset(handle, seed=40, reset_mask=np.array([True, False, False, True]))
        ref_obs, ref_info = theirs.reset(seed=40, options={"reset_mask": np.array([True, False, False, True])})
        _same("int-seeded masked reset obs", obs, ref_obs)
        _same("int-seeded masked reset frames", info["episode_frame_number"], ref_info["episode_frame_number"])
    finally:
        ours.close()
        theirs.close()


def test_continuous_actions_and_asynchronous_batches_run_through_xla():
    ours = ArcadeLabVectorEnv("breakout", 2, num_threads=2, continuous=True, **RAW)
    theirs = AtariVectorEnv("breakout", 2, num_threads=2, continuous=True, **RAW)
    try:
        handle, reset, step = ours.xla()
        handle, _ = reset(handle, seed=2)
        theirs.reset(seed=2)
        rng = np.random.default_rng(4)
        for t in range(40):
            a = np.stack([rng.random(2), rng.uniform(-np.pi, np.pi, 2), rng.random(2)], 1).astype(np.float32)
            handle, (obs, reward, *_r) = step(handle, jnp.asarray(a))
            ref = theirs.step(a)
            _same(f"continuous step {t}", obs, ref[0])
    finally:
        ours.close()
        theirs.close()
    batched = ArcadeLabVectorEnv("breakout", 4, batch_size=2, num_threads=2, **RAW)
    try:
        handle, reset, step = batched.xla()
        handle, (obs, info) = reset(handle, seed=0)
        assert obs.shape == (2, 1, 210, 160)
        seen = set()
        for _ in range(6):
            handle, (obs, reward, term, trunc, info) = step(handle, jnp.zeros(2, jnp.int32))
            assert obs.shape == (2, 1, 210, 160) and reward.dtype == jnp.int32 and term.dtype == jnp.bool_
            seen.update(np.asarray(info["env_id"]).tolist())
        assert seen == {0, 1, 2, 3}
    finally:
        batched.close()


def test_xla_refuses_what_it_cannot_serve(monkeypatch):
    same_step = ArcadeLabVectorEnv("pong", 1, autoreset_mode="SameStep", **RAW)
    with pytest.raises(ValueError, match="NEXT_STEP"):
        same_step.xla()
    same_step.close()
    env = ArcadeLabVectorEnv("pong", 2, **RAW)
    handle, reset, step = env.xla()
    with pytest.raises(ValueError, match="expected 2 actions"):
        step(handle, jnp.zeros(3, jnp.int32))
    with pytest.raises(ValueError, match="one entry per sub-environment"):
        reset(handle, seed=np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="reset_mask"):
        reset(handle, reset_mask=np.array([1, 0]))
    env.close()
    del env, reset, step
    import gc
    gc.collect()
    ghost = ArcadeLabVectorEnv("pong", 1, **RAW)
    _, reset_ghost, _ = ghost.xla()
    with pytest.raises(Exception, match="no open vector environment"):
        jax.block_until_ready(reset_ghost(handle, seed=0))
    ghost.close()
    monkeypatch.setitem(sys.modules, "jax", None)
    plain = ArcadeLabVectorEnv("pong", 1, **RAW)
    with pytest.raises(gym.error.DependencyNotInstalled, match="arcade-lab\\[xla\\]"):
        plain.xla()
    plain.close()
