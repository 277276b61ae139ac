"""The Gymnasium vector environment against ale-py 0.12.1's AtariVectorEnv, run side by side on the same
seeds and actions: every option, observations frame for frame, rewards, flags and info."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import arcade_lab  # noqa: F401  (registers ArcadeLab/*)

ale_py = pytest.importorskip("ale_py")
from ale_py.vector_env import AtariVectorEnv  # noqa: E402

from arcade_lab.engine.ale_vector import ArcadeLabVectorEnv  # noqa: E402
from arcade_lab.engine.preprocess import Resize, resize_area, resize_frame  # noqa: E402

# ale-py's preprocessing switched off: full-size single frames, no pooling, no NOOPs or FIRE, raw rewards
RAW = dict(img_height=210, img_width=160, stack_num=1, grayscale=True, maxpool=False, noop_max=0,
           use_fire_reset=False, reward_clipping=False, frameskip=4, repeat_action_probability=0.0)


def _same(tag, ours, theirs):
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs), tag
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same(f"{tag}[{k}]", a, b)
        return
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), tag
        for k in theirs:
            _same(f"{tag}[{k!r}]", ours[k], theirs[k])
        return
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (tag, ours.dtype, theirs.dtype)
    if not np.array_equal(ours, theirs):
        diff = np.abs(ours.astype(np.int64) - theirs.astype(np.int64))
        pytest.fail(f"{tag}: {np.count_nonzero(diff)} values differ, largest by {diff.max()}")


def _step_both(ours, theirs, actions, tag):
    x, y = ours.step(actions), theirs.step(actions)
    if "final_obs" in y[4] or "final_obs" in x[4]:
        # ale-py leaves the rows of environments that did not finish uninitialised: only finished ones count
        done = y[2] | y[3]
        _same(f"{tag} final_obs", x[4].pop("final_obs")[done], y[4].pop("final_obs")[done])
    for name, a, b in zip(("obs", "reward", "terminated", "truncated", "info"), x, y):
        _same(f"{tag} {name}", a, b)
    return x


def _run_pair(game, num_envs, steps, seed=0, **options):
    """Both vector envs with ``options``, reset with ``seed`` and stepped with the same random actions;
    returns how many episodes ended."""
    ours = ArcadeLabVectorEnv(game, num_envs, num_threads=2, **options)
    theirs = AtariVectorEnv(game, num_envs, num_threads=2, **options)
    try:
        assert ours.single_observation_space == theirs.single_observation_space
        assert ours.single_action_space == theirs.single_action_space
        a, b = ours.reset(seed=seed), theirs.reset(seed=seed)
        _same("reset obs", a[0], b[0])
        _same("reset info", a[1], b[1])
        rng = np.random.default_rng(seed + 1)
        ended = 0
        for k in range(steps):
            if options.get("continuous"):
                acts = rng.uniform([0, -np.pi, 0], [1, np.pi, 1], size=(num_envs, 3)).astype(np.float32)
            else:
                acts = rng.integers(ours.single_action_space.n, size=num_envs)
            _, _, term, trunc, _ = _step_both(ours, theirs, acts, f"step {k}")
            ended += int(np.count_nonzero(term | trunc))
        return ended
    finally:
        ours.close()
        theirs.close()


def test_seeded_reset_reloads_the_cartridge_so_lanes_stay_with_ale_py_across_autoresets():
    """A seeded reset is ALE's loadROM with that seed (power-on state, both generators seeded), not a
    reseed of a machine in mid-game: after some play, reset(seed=0) again and play through an autoreset
    (Seaquest's first episode under these actions ends near step 700)."""
    ours = ArcadeLabVectorEnv("seaquest", 1, **RAW)
    theirs = AtariVectorEnv("seaquest", 1, **RAW)
    try:
        rng = np.random.default_rng(1)
        ended = 0
        for rounds, steps in enumerate((150, 1100)):
            _same(f"reset {rounds}", ours.reset(seed=0), theirs.reset(seed=0))
            for k in range(steps):
                _, _, term, trunc, _ = _step_both(ours, theirs, rng.integers(18, size=1), f"round {rounds} step {k}")
                ended += int(term[0] or trunc[0])
        assert ended >= 1
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("options", [
    dict(stack_num=4),
    dict(grayscale=False, stack_num=2),
    dict(maxpool=True),
    dict(maxpool=True, frameskip=1),
    dict(noop_max=30),
    dict(noop_max=30, use_fire_reset=True),
    dict(reward_clipping=True),
    dict(episodic_life=True, maxpool=True),
    dict(life_loss_info=True, frameskip=3),
    dict(repeat_action_probability=0.25),
    dict(max_num_frames_per_episode=250),
    dict(autoreset_mode="SameStep", max_num_frames_per_episode=300, stack_num=2),
    dict(autoreset_mode="SameStep", episodic_life=True, maxpool=True, frameskip=2),
    dict(full_action_space=True, repeat_action_probability=0.25),
    dict(continuous=True),
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_each_option_matches_ale_py_frame_for_frame(options):
    ended = _run_pair("breakout", 3, 250, seed=5, **{**RAW, **options})
    if "max_num_frames_per_episode" in options or "episodic_life" in options:
        assert ended > 0  # the episode ends (and the autoreset) were exercised


@pytest.mark.parametrize("game", ["breakout", "seaquest", "pong"])
def test_default_preprocessing_matches_ale_py(game, capsys):
    """ale-py's defaults (84x84 area resize, 4 stacked frames, max-pool, up to 30 NOOPs, FIRE reset,
    clipped rewards) with sticky actions 0.25, as ``gym.make_vec("ALE/<Game>-v5")`` sets them."""
    _run_pair(game, 4, 300, seed=11, repeat_action_probability=0.25)
    with capsys.disabled():
        print(f"\n{game}: 84x84 resized stacks equal to ale-py's (largest pixel difference 0)")


def test_resized_rgb_frames_match_ale_py():
    _run_pair("breakout", 2, 150, seed=3, grayscale=False, img_height=84, img_width=84, stack_num=2,
              maxpool=True, noop_max=10)


@pytest.mark.parametrize("shape", [(84, 84, 1), (84, 84, 3), (105, 80, 1), (42, 42, 3), (100, 120, 1),
                                   (210, 80, 1), (70, 80, 3)])
def test_area_resize_equals_opencv_inter_area(shape, capsys):
    cv2 = pytest.importorskip("cv2")
    h, w, cn = shape
    rz = Resize(210, 160, h, w, cn)
    scratch = rz.scratch(1)[0]
    rng = np.random.default_rng(h * w + cn)
    worst = 0
    for t in range(12):
        src = rng.integers(0, 256, size=(210, 160, cn), dtype=np.uint8)
        if t % 2:
            src = src // 64 * 64  # flat areas: many sums land exactly on halves
        src = src[..., 0] if cn == 1 else src
        out = np.zeros(h * w * cn, np.uint8)
        resize_frame(src.reshape(-1), out, rz.params, rz.xs, rz.xw, rz.ys, rz.yw, scratch)
        ref = cv2.resize(np.ascontiguousarray(src), (w, h), interpolation=cv2.INTER_AREA).reshape(-1)
        worst = max(worst, int(np.abs(out.astype(int) - ref.astype(int)).max()))
    with capsys.disabled():
        print(f"\nresize 210x160 -> {h}x{w} ({cn} channel(s)): largest difference from cv2 INTER_AREA {worst}")
    assert worst == 0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_tile_transposes_equal_numpy_s(dtype):
    from arcade_lab.engine._jit import jit
    from arcade_lab.engine.tiles import transpose8_f32, transpose8_u8

    move = transpose8_u8 if dtype == np.uint8 else transpose8_f32

    @jit
    def every_tile(src, rows, cols, dst):
        for r0 in range(0, rows, 8):
            for c0 in range(0, cols, 8):
                move(src, r0 * cols + c0, cols, dst, c0 * rows + r0, rows)

    rng = np.random.default_rng(6)
    for rows, cols in ((8, 8), (208, 160), (24, 88)):
        src = rng.integers(0, 256, rows * cols).astype(dtype)
        dst = np.zeros_like(src)
        every_tile(src, rows, cols, dst)
        assert (dst.reshape(cols, rows) == src.reshape(rows, cols).T).all()


def test_max_pool_is_the_elementwise_maximum():
    from arcade_lab.engine.preprocess import max_into

    rng = np.random.default_rng(5)
    for n in (33600, 33600 * 3, 17):
        a, b = rng.integers(0, 256, (2, n), dtype=np.uint8)
        out = a.copy()
        max_into(out, b)
        assert (out == np.maximum(a, b)).all()


@pytest.mark.parametrize("src_h", [210, 250, 203])
def test_grey_resize_by_columns_equals_the_row_by_row_reference(src_h):
    """The vector env's grey resize (transpose, columns, transpose back) against ``resize_area``, which
    sums row by row: PAL heights and heights that leave a partial 8x8 tile, widths that do too."""
    rng = np.random.default_rng(src_h)
    for h, w in [(84, 84), (100, 120), (42, 42), (97, 131), (src_h, 159), (src_h - 1, 83)]:
        rz = Resize(src_h, 160, h, w, 1)
        assert rz.grey_columns
        scratch = rz.scratch(1)[0]
        for t in range(4):
            src = rng.integers(0, 256, size=src_h * 160, dtype=np.uint8)
            if t % 2:
                src = src // 64 * 64
            ref = np.zeros(h * w, np.uint8)
            resize_area(src, ref, rz.params, rz.xs, rz.xw, rz.ys, rz.yw, scratch)
            scratch[:] = np.nan  # the fast route must not lean on what the reference left behind
            out = np.zeros(h * w, np.uint8)
            resize_frame(src, out, rz.params, rz.xs, rz.xw, rz.ys, rz.yw, scratch)
            np.testing.assert_array_equal(out, ref, err_msg=f"{src_h}x160 -> {h}x{w}")


def test_resize_refuses_to_enlarge():
    with pytest.raises(ValueError, match="img_height"):
        ArcadeLabVectorEnv("pong", 1, img_height=300)


def test_reset_masks_and_seed_arrays_match_ale_py():
    ours = ArcadeLabVectorEnv("breakout", 3, num_threads=2, **RAW)
    theirs = AtariVectorEnv("breakout", 3, num_threads=2, **RAW)
    try:
        mask = np.array([True, False, True])
        for env in (ours, theirs):  # the first reset must cover every environment
            with pytest.raises(RuntimeError):
                env.reset(seed=1, options={"reset_mask": mask})
        _same("reset", ours.reset(seed=np.array([4, 9, 2])), theirs.reset(seed=np.array([4, 9, 2])))
        rng = np.random.default_rng(0)
        for k in range(120):
            _step_both(ours, theirs, rng.integers(4, size=3), f"step {k}")
            if k % 40 == 39:  # partial resets: seeded, unseeded-free and array-seeded
                seed = [7, None, np.array([3, 8])][k // 40]
                _same(f"partial reset {k}", ours.reset(seed=seed, options={"reset_mask": mask}),
                      theirs.reset(seed=seed, options={"reset_mask": mask}))
        for env in (ours, theirs):
            with pytest.raises(TypeError):
                env.reset(options={"reset_mask": np.array([1, 0, 1])})
            with pytest.raises(ValueError):
                env.reset(options={"reset_mask": np.array([True, False])})
            with pytest.raises(ValueError):
                env.reset(seed=np.array([1, 2]))
            with pytest.raises(TypeError):
                env.reset(seed=1.5)
    finally:
        ours.close()
        theirs.close()


def test_make_vec_matches_ale_py_spaces_dtypes_and_info_keys():
    ours = gym.make_vec("ArcadeLab/Breakout-v5", num_envs=8)
    theirs = gym.make_vec("ALE/Breakout-v5", num_envs=8)
    try:
        assert type(ours).__name__ == "ArcadeLabVectorEnv"
        assert ours.observation_space == theirs.observation_space
        assert ours.action_space == theirs.action_space
        assert ours.single_observation_space == theirs.single_observation_space
        assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"]
        a, b = ours.reset(seed=0), theirs.reset(seed=0)
        _same("reset", a, b)  # make_vec's sticky actions (0.25) and every default: equal stacks
        acts = np.random.default_rng(0).integers(4, size=8)
        x, y = ours.step(acts), theirs.step(acts)
        for u, v in zip(x[:4], y[:4]):
            assert u.dtype == v.dtype and u.shape == v.shape
        assert x[4].keys() == y[4].keys() and all(x[4][k].dtype == y[4][k].dtype for k in y[4])
    finally:
        ours.close()
        theirs.close()


def test_bad_arguments_are_refused_as_ale_py_does():
    for bad in (4.0, (2, 5)):
        with pytest.raises(gym.error.Error, match="Invalid frameskip type"):
            ArcadeLabVectorEnv("pong", 1, frameskip=bad)
    with pytest.raises(gym.error.Error, match="frameskip must be positive"):
        ArcadeLabVectorEnv("pong", 1, frameskip=0)
    with pytest.raises(TypeError, match="obs_type"):
        gym.make_vec("ArcadeLab/Pong-v5", num_envs=2, obs_type="rgb")
    for bad in (5, -1, 1.5):
        with pytest.raises(ValueError, match="batch_size"):
            ArcadeLabVectorEnv("pong", 4, batch_size=bad)


def _lane_histories(env, actions_per_lane, steps):
    """Drive ``env`` (any batch size) until every lane has taken ``steps`` actions; each lane's actions
    come from its own list in order. Returns, per lane, what it handed back in order: its reset first
    (with the reset's batch or a later one), then one result per action, each as the observation and
    (reward, term, trunc, lives, frame)."""
    n = env.num_envs
    taken = np.zeros(n, dtype=np.int64)
    seen = [[] for _ in range(n)]

    def record(obs, rew, term, trunc, info):
        ids = info["env_id"]
        assert ids.shape == (env.batch_size,) and len(set(ids.tolist())) == env.batch_size
        for k, i in enumerate(ids):
            seen[i].append((obs[k].copy(), (rew[k], term[k], trunc[k], info["lives"][k], info["frame_number"][k])))
        return ids

    obs, info = env.reset(seed=11)
    b = env.batch_size
    ids = record(obs, np.zeros(b, np.int32), np.zeros(b, bool), np.zeros(b, bool), info)
    while (taken < steps).any():
        acts = np.array([actions_per_lane[i][min(taken[i], steps - 1)] for i in ids], dtype=np.int64)
        taken[ids] += 1
        ids = record(*env.step(acts))
    return seen


@pytest.mark.parametrize("batch_size", [1, 3])
def test_asynchronous_batches_give_each_lane_the_trajectory_of_the_synchronous_env(batch_size):
    """batch_size < num_envs: each batch holds different lanes (``env_id``), every lane is handed back
    once per action it was sent, and a lane's observations and outcomes are those the synchronous env gives
    it for the same actions: asynchrony changes only when a lane is seen."""
    n, steps = 6, 120
    rng = np.random.default_rng(5)
    per_lane = [rng.integers(4, size=steps) for _ in range(n)]
    sync = ArcadeLabVectorEnv("breakout", n, num_threads=2, **{**RAW, "stack_num": 2})
    asyn = ArcadeLabVectorEnv("breakout", n, num_threads=2, batch_size=batch_size, **{**RAW, "stack_num": 2})
    try:
        assert asyn.single_observation_space == sync.single_observation_space
        assert asyn.observation_space.shape == (batch_size, 2, 210, 160)
        assert asyn.action_space.shape == (batch_size,)
        ours_sync, ours_async = _lane_histories(sync, per_lane, steps), _lane_histories(asyn, per_lane, steps)
        for i in range(n):
            m = min(len(ours_sync[i]), len(ours_async[i]))
            assert m >= steps
            for t, ((o1, r1), (o2, r2)) in enumerate(zip(ours_async[i][:m], ours_sync[i][:m])):
                assert np.array_equal(o1, o2) and r1 == r2, f"lane {i}, result {t}: {r1} != {r2}"
        assert any(r[0] for lane in ours_sync for _, r in lane)  # the comparison saw rewards
    finally:
        sync.close()
        asyn.close()


def test_asynchronous_send_returns_before_the_lanes_are_stepped():
    """send starts the last batch's lanes and returns; recv hands back lanes already done first (after a
    reset, the second half) without waiting for the ones in flight."""
    env = ArcadeLabVectorEnv("pong", 4, num_threads=1, batch_size=2, **RAW)
    try:
        obs, info = env.reset(seed=0)
        assert info["env_id"].tolist() == [0, 1]
        env.send(np.zeros(2, dtype=np.int64))
        _, _, _, _, info = env.recv()
        assert info["env_id"].tolist() == [2, 3]                 # ready since the reset
        assert (info["frame_number"] == info["frame_number"][0]).all()
        _, _, _, _, info = env.step(np.zeros(2, dtype=np.int64))
        assert info["env_id"].tolist() == [0, 1]                 # stepped by the first send
        with pytest.raises(RuntimeError, match="without actions sent"):
            env.recv()
        env.send(np.zeros(2, dtype=np.int64))
        with pytest.raises(RuntimeError, match="twice"):
            env.send(np.zeros(2, dtype=np.int64))
    finally:
        env.close()


def test_partial_and_malformed_resets_are_refused():
    mask = np.array([True, False, False, False])
    env = ArcadeLabVectorEnv("pong", 4, batch_size=2, **RAW)
    env.reset()
    with pytest.raises(ValueError, match="batch_size < num_envs"):
        env.reset(options={"reset_mask": mask})
    env.close()
    env = ArcadeLabVectorEnv("pong", 4, **RAW)
    with pytest.raises(RuntimeError, match="first reset"):
        env.reset(options={"reset_mask": mask})
    env.reset()
    with pytest.raises(ValueError, match="duplicate env_id"):
        env.ale.reset([0, 0], [-1, -1])
    with pytest.raises(IndexError, match="out of range"):
        env.ale.reset([4], [-1])
    obs, info = env.reset(options={"reset_mask": mask})            # still usable after the refusals
    assert obs.shape == (4, 1, 210, 160) and info["env_id"].tolist() == [0, 1, 2, 3]
    env.close()


def test_send_recv_threads_and_mode():
    """send/recv is step; one thread or two give the same lanes; ``mode`` (beyond ale-py) is set after
    every load."""
    outs = []
    for threads in (1, 2):
        env = gym.make_vec("ArcadeLab/Breakout-v5", num_envs=3, num_threads=threads, mode=4)
        env.reset(seed=2)
        acts = np.random.default_rng(1).integers(4, size=(60, 3))
        run = []
        for a in acts:
            env.send(a)
            run.append(env.recv())
        from arcade_lab.engine.layout import E_MODE

        assert (env.unwrapped.lanes.S[:, E_MODE] == 4).all()
        env.close()
        outs.append(run)
    for x, y in zip(*outs):
        _same("threads", x[0], y[0])
        _same("threads", x[4], y[4])


def test_the_vector_interface_answers_as_ale_py_s():
    """``env.ale``'s getters and a standalone ``ALEVectorInterface`` (ale-py's constructor arguments) give
    what ale-py's do, and their lanes step alike."""
    import arcade_lab.ale_compat as compat

    for grayscale in (True, False):
        ours = compat.AtariVectorEnv("breakout", 2, grayscale=grayscale)
        theirs = AtariVectorEnv("breakout", 2, grayscale=grayscale)
        try:
            assert ours.ale.get_action_set() == [compat.Action(a.value) for a in theirs.ale.get_action_set()]
            assert ours.ale.get_num_envs() == theirs.ale.get_num_envs() == 2
            assert ours.ale.get_observation_shape() == theirs.ale.get_observation_shape()
            h = ours.ale.handle()
            assert h.dtype == np.uint8 and h.shape == (8,) and np.array_equal(h, ours.ale.handle())
        finally:
            ours.close()
            theirs.close()
    args = (compat.get_rom_path("pong"), 3, 4, 4, 84, 84, True, True, 30, True, False, False, True, 108000,
            0.25, False, 0, 0, -1, "NextStep")
    ours, theirs = compat.ALEVectorInterface(*args), ale_py.ALEVectorInterface(*args)
    try:
        seeds = np.array([5, 6, 7])
        _same("reset", ours.reset(np.arange(3), seeds), theirs.reset(np.arange(3), seeds))
        for a in np.random.default_rng(1).integers(6, size=(40, 3)):
            ours.send(a, np.ones(3, np.float32))
            theirs.send(a, np.ones(3, np.float32))
            _same("step", ours.recv(), theirs.recv())
    finally:
        ours.close()
    with pytest.raises(ValueError, match="Invalid autoreset_mode"):
        compat.ALEVectorInterface(*args[:-1], "Disabled")
    # ale-py's defaults: the ROM and the number of environments are enough
    import inspect

    ours, theirs = compat.ALEVectorInterface(args[0], 2), ale_py.ALEVectorInterface(args[0], 2)
    try:
        seeds = np.array([5, 6])
        _same("reset", ours.reset(np.arange(2), seeds), theirs.reset(np.arange(2), seeds))
        ours.send(np.array([1, 2]), np.ones(2, np.float32))
        theirs.send(np.array([1, 2]), np.ones(2, np.float32))
        _same("step", ours.recv(), theirs.recv())
    finally:
        ours.close()
    defaults = {k: p.default for k, p in inspect.signature(compat.ALEVectorInterface).parameters.items()}
    assert defaults["stack_num"] == 4 and defaults["repeat_action_probability"] == 0.0   # (ale-py's docstring's)
    assert defaults["autoreset_mode"] == "NextStep" and defaults["max_episode_steps"] == 108000
    with pytest.raises(ValueError, match="Invalid autoreset_mode"):
        gym.make_vec("ArcadeLab/Breakout-v5", num_envs=2, autoreset_mode=gym.vector.AutoresetMode.DISABLED)


def test_copying_or_pickling_a_vector_env_says_why_it_cannot():
    import copy
    import pickle

    from arcade_lab.engine.vector import VectorEnv

    for env in (gym.make_vec("ArcadeLab/Pong-v5", num_envs=2), VectorEnv("pong", 2)):
        for attempt in (pickle.dumps, copy.deepcopy):
            with pytest.raises(TypeError, match="cannot be copied or pickled"):
                attempt(env)
        env.close()


def test_a_life_lost_under_same_step_autoreset_reports_its_own_observation_as_final():
    """With ``life_loss_info`` (and no ``episodic_life``) a lost life ends nothing: the lane goes on, and
    SameStep's ``final_obs`` for it is the observation it returns (ale-py leaves that row stale)."""
    env = ArcadeLabVectorEnv("breakout", 2, autoreset_mode="SameStep", life_loss_info=True,
                             repeat_action_probability=0.0, noop_max=0, num_threads=1)
    try:
        env.reset(seed=1)
        lost = 0
        for a in np.random.default_rng(0).integers(4, size=(1500, 2)):
            obs, _, term, trunc, info = env.step(a)
            for i in np.nonzero(term & (info["lives"] > 0))[0]:   # a life lost, the game not over
                assert np.array_equal(info["final_obs"][i], obs[i])
                lost += 1
            if lost >= 2:
                break
        assert lost >= 2
    finally:
        env.close()
