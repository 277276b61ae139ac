"""Gymnasium API: registration, check_env, the standard wrappers unchanged, vector env."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from arcade_lab import engine
import arcade_lab.engine.gym  # noqa: F401  (registers the ids)
from arcade_lab.engine.vector import VectorEnv
from arcade_lab.engine.env import Env
from arcade_lab.engine.gym import ArcadeLabEnv
from tests.conftest import requires_ale


def test_ids_registered_like_ale():
    ids = set(gym.registry)
    assert "ArcadeLab/Pong-v5" in ids and "ArcadeLab/MontezumaRevenge-v5" in ids
    assert "ArcadeLab/PongNoFrameskip-v4" in ids and "ArcadeLab/Breakout-v0" in ids
    spec = gym.spec("ArcadeLab/Pong-v5")
    assert spec.kwargs["frameskip"] == 4 and spec.kwargs["repeat_action_probability"] == 0.25
    assert spec.kwargs["max_num_frames_per_episode"] == 108_000


V5_IDS = sorted(i for i in gym.registry if i.startswith("ArcadeLab/") and i.endswith("-v5")
                and "NoFrameskip" not in i)


def test_every_game_has_a_v5_id():
    assert len(V5_IDS) == len(engine.list_games()) == 104


@pytest.mark.parametrize("env_id", V5_IDS)
def test_check_env(env_id):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_reset_seed_reloads_like_ale():
    env = gym.make("ArcadeLab/Breakout-v5")
    o1, i1 = env.reset(seed=42)
    traj1 = [env.step(a % 4)[:4] for a in range(100)]
    o2, i2 = env.reset(seed=42)
    traj2 = [env.step(a % 4)[:4] for a in range(100)]
    assert np.array_equal(o1, o2) and i1["seeds"] == i2["seeds"]
    for a, b in zip(traj1, traj2):
        assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]


def test_standard_training_snippet_runs_unchanged():
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

    env = gym.make("ArcadeLab/BreakoutNoFrameskip-v4")
    env = AtariPreprocessing(env, frame_skip=4, screen_size=84, grayscale_obs=True, noop_max=30)
    env = FrameStackObservation(env, 4)
    obs, info = env.reset(seed=0)
    assert obs.shape == (4, 84, 84)
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, info = env.reset()
    assert obs.shape == (4, 84, 84)


# journey_escape draws short frames; Video Checkers' mode 15 thinks through partial frames (25 000
# instructions without VSYNC), whose first rows an undrawn frame call rendered
@pytest.mark.parametrize("game, mode, steps", [("breakout", None, 60), ("journey_escape", None, 60),
                                               ("video_checkers", 15, 200)])
def test_vector_env_matches_single_envs(game, mode, steps):
    from arcade_lab.engine.layout import E_FRAME, T_FRAMES

    n = 3
    vec = VectorEnv(game, n, obs_type="grayscale", frameskip=4, repeat_action_probability=0.25, mode=mode,
                    seed=10)
    singles = [Env(game, frameskip=4, repeat_action_probability=0.25, mode=mode, seed=10 + i) for i in range(n)]
    rng = np.random.default_rng(0)
    for s in singles:
        s.reset()
    vec.reset()
    partial = 0
    for _ in range(steps):
        idx = rng.integers(len(vec.action_set), size=n)
        obs, rew, term, trunc, lives = vec.step(idx)
        for i, s in enumerate(singles):
            st = s.console.s
            f0, t0 = int(st[E_FRAME]), int(st[T_FRAMES])
            r = s.act(int(vec.action_set[idx[i]]))
            partial += (int(st[T_FRAMES]) - t0) != (int(st[E_FRAME]) - f0)
            assert r == rew[i] and s.lives() == lives[i]
            assert np.array_equal(s.screen_grayscale(), obs[i])
    if game == "video_checkers":
        assert partial > 0   # the case the replay rule is for did come up


def test_vector_rows_keep_apart_and_gray_pairs_match_the_palette():
    """Threads stepping neighbouring environments must not write one cache line: each state and RNG row
    ends in a gap no kernel touches (it stays zero through steps and resets). The two-pixels-at-a-time grey
    table agrees with the palette's grey level for every pair of palette bytes."""
    from arcade_lab.engine.layout import N_STATE
    from arcade_lab.engine.palettes import NTSC_GRAY, PAL_GRAY
    from arcade_lab.engine.vector import ROW_GAP, gray_pairs

    vec = VectorEnv("breakout", 4, obs_type="grayscale", frameskip=4, repeat_action_probability=0.25, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        vec.step(rng.integers(len(vec.action_set), size=4))
    vec.reset()
    assert vec.S.shape[1] == N_STATE + ROW_GAP and ROW_GAP * 8 >= 64
    assert not vec.S[:, N_STATE:].any() and not vec.R[:, -ROW_GAP:].any()
    two = np.arange(65536, dtype=np.uint16).view(np.uint8)
    for lut in (NTSC_GRAY, PAL_GRAY):
        assert np.array_equal(gray_pairs(lut).view(np.uint8), lut[two])


def test_gymnasium_vector_entry_point():
    envs = gym.make_vec("ArcadeLab/Pong-v5", num_envs=2, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=0)
    assert obs.shape[0] == 2
    obs, r, term, trunc, info = envs.step(np.array([0, 1]))
    assert obs.shape[0] == 2 and r.shape == (2,)


def test_vector_env_threads_change_speed_not_results():
    """One thread or several (the calling thread plus a pool taking environments from a shared counter):
    every environment's trajectory is the same."""
    runs = []
    for threads in (1, 2, 3):
        vec = VectorEnv("seaquest", 5, obs_type="grayscale", frameskip=4, repeat_action_probability=0.25, seed=7,
                        num_threads=threads)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(80):
            obs, rew, term, trunc, lives = vec.step(rng.integers(len(vec.action_set), size=5))
            out.append((obs.copy(), rew, term, trunc, lives))
        vec.close()
        runs.append(out)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="num_threads"):
        VectorEnv("pong", 2, num_threads=-1)


def test_gymnasium_vector_env_refuses_options_it_does_not_have():
    with pytest.raises(TypeError, match="obs_type"):
        gym.make_vec("ArcadeLab/Breakout-v5", num_envs=2, vectorization_mode="vector_entry_point", obs_type="rgb")
    envs = gym.make_vec("ArcadeLab/Breakout-v5", num_envs=2, vectorization_mode="vector_entry_point", mode=4,
                        num_threads=2)
    assert envs.unwrapped.lanes.proto.mode == 4
    envs.close()


# -- ale-py's extras: keys for play, sound observations, copies, human rendering -------------------------------
def _ale_py_env(game, **kwargs):
    import ale_py

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    from ale_py.env import AtariEnv

    return AtariEnv(game, **kwargs)


@requires_ale
def test_keys_to_action_are_ale_pys_and_drive_gymnasium_play(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import warnings

    import pygame
    with warnings.catch_warnings():   # its import tries matplotlib's Tk backend, which a machine without
        warnings.simplefilter("ignore")   # a display lacks, and warns (an error here when it comes first)
        from gymnasium.utils.play import play

    env = gym.make("ArcadeLab/MsPacman-v5", render_mode="rgb_array")
    keys = env.unwrapped.get_keys_to_action()
    assert keys == _ale_py_env("ms_pacman").get_keys_to_action()
    steps = []

    def quit_after_five(obs_t, obs_tp1, action, rew, terminated, truncated, info):
        steps.append(action)
        if len(steps) == 5:
            pygame.event.post(pygame.event.Event(pygame.QUIT))

    play(env, callback=quit_after_five, fps=1000)
    assert len(steps) == 5
    with pytest.raises(AttributeError, match="continuous=True"):
        gym.make("ArcadeLab/MsPacman-v5", continuous=True).unwrapped.get_keys_to_action()


@requires_ale
@pytest.mark.parametrize("game, frameskip", [("ms_pacman", 4), ("seaquest", (2, 5))])
def test_sound_obs_matches_ale_py(game, frameskip):
    ours = ArcadeLabEnv(game, sound_obs=True, frameskip=frameskip)
    real = _ale_py_env(game, sound_obs=True, frameskip=frameskip)
    assert ours.observation_space == real.observation_space
    (o1, _), (o2, _) = ours.reset(seed=9), real.reset(seed=9)
    assert all(np.array_equal(o1[k], o2[k]) for k in ("image", "sound"))
    real.action_space.seed(2)
    for t in range(150):
        a = real.action_space.sample()
        if t == 60:  # an excursion: the sound runs on through a restore, as ale-py's does
            s1, s2 = ours.clone_state(), real.clone_state()
            for _ in range(5):
                ours.step(a)
                real.step(a)
            ours.restore_state(s1)
            real.restore_state(s2)
        (o1, *r1), (o2, *r2) = ours.step(a), real.step(a)
        assert np.array_equal(o1["sound"], o2["sound"]) and np.array_equal(o1["image"], o2["image"]), t
        assert r1 == r2, t


@pytest.mark.parametrize("kwargs", [dict(), dict(sound_obs=True, frameskip=(2, 5), obs_type="grayscale")])
def test_copies_and_pickles_continue_as_the_original(kwargs):
    import copy
    import pickle

    env = gym.make("ArcadeLab/Breakout-v5", **kwargs)
    env.reset(seed=1)
    for _ in range(20):
        env.step(env.action_space.sample())
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    assert twins[1].unwrapped.spec.id == "ArcadeLab/Breakout-v5"
    rng = np.random.default_rng(0)
    for _ in range(80):
        a = int(rng.integers(env.action_space.n))
        o, *rest = env.step(a)
        for twin in twins:
            o2, *rest2 = twin.step(a)
            assert rest2 == rest
            if isinstance(o, dict):
                assert all(np.array_equal(o[k], o2[k]) for k in o)
            else:
                assert np.array_equal(o, o2)


def test_human_rendering_comes_from_gymnasium(monkeypatch):
    from gymnasium import error
    from gymnasium.wrappers import HumanRendering

    with pytest.raises(error.Error, match="arcade_lab.ale_compat.AtariEnv"):
        ArcadeLabEnv("pong", render_mode="human")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    with pytest.warns(UserWarning, match="HumanRendering"):
        env = gym.make("ArcadeLab/Pong-v5", render_mode="human")
    assert isinstance(env, HumanRendering)
    env.reset(seed=0)
    env.step(0)
    env.close()


def test_vector_env_rgb_observations_match_single_envs():
    vec = VectorEnv("breakout", 2, obs_type="rgb", frameskip=4, repeat_action_probability=0.0, seed=3)
    singles = [Env("breakout", frameskip=4, repeat_action_probability=0.0, seed=3 + i) for i in range(2)]
    for s in singles:
        s.reset()
    vec.reset()
    rng = np.random.default_rng(2)
    for _ in range(30):
        idx = rng.integers(len(vec.action_set), size=2)
        obs, *_ = vec.step(idx)
        for i, s in enumerate(singles):
            s.act(int(vec.action_set[idx[i]]))
            assert np.array_equal(obs[i], s.screen_rgb())


@pytest.mark.parametrize("obs_type", ["rgb", "grayscale"])
def test_observations_and_ale_screens_match_the_machine(obs_type):
    from arcade_lab.engine.palettes import NTSC, NTSC_GRAY

    env = gym.make("ArcadeLab/Seaquest-v5", obs_type=obs_type, repeat_action_probability=0.0)
    obs, _ = env.reset(seed=3)
    ale, machine = env.unwrapped.ale, env.unwrapped.machine
    table = NTSC if obs_type == "rgb" else NTSC_GRAY
    stack = np.zeros((2, 210, 160), np.uint8)         # AtariPreprocessing's buffers: slices of one array
    strided = np.zeros((210, 160, 2), np.uint8)[:, :, 0]
    for t in range(40):
        obs, *_ = env.step(t % env.action_space.n)
        idx = machine.screen()
        assert np.array_equal(obs, table[idx]) and obs.flags.writeable
        buf = stack[t % 2]
        assert ale.getScreenGrayscale(buf) is None      # written into the caller's buffer, as ale-py's
        assert np.array_equal(stack[t % 2], NTSC_GRAY[idx])
        ale.getScreenGrayscale(strided)                 # not contiguous: written all the same
        assert np.array_equal(strided, NTSC_GRAY[idx])
        rgb = np.empty(210 * 160 * 3, np.uint8)
        assert ale.getScreenRGB(rgb) is None
        assert np.array_equal(rgb.reshape(210, 160, 3), NTSC[idx])
    kept = obs.copy()
    env.step(0)
    assert np.array_equal(obs, kept)  # each step's observation is its own array
    with pytest.raises(ValueError, match="observation buffer"):
        ale.getScreenGrayscale(np.zeros((84, 84), np.uint8))
    frame = ale.getFrameNumber()
    ale.act(0)  # a step's frame skip does not leak into ALE-style calls: one act is one frame
    assert ale.getFrameNumber() == frame + 1


@pytest.mark.parametrize("game, kwargs", [
    ("Breakout", {}),
    ("Pong", {"obs_type": "grayscale", "frameskip": 1, "max_num_frames_per_episode": 400}),
    ("Seaquest", {"frameskip": (2, 5), "full_action_space": True, "repeat_action_probability": 0.0}),
])
def test_steps_equal_ale_pys(game, kwargs):
    """What ``step`` returns — observation, reward, terminated, truncated and info — equals ale-py's
    AtariEnv on the same seed and actions, through an episode's end (truncation by the frame cap)."""
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    ours, theirs = gym.make(f"ArcadeLab/{game}-v5", **kwargs), gym.make(f"ALE/{game}-v5", **kwargs)
    o1, _ = ours.reset(seed=7)
    o2, _ = theirs.reset(seed=7)
    assert np.array_equal(o1, o2)
    actions = np.random.default_rng(7).integers(0, ours.action_space.n, 600)
    ends = 0
    for a in actions:
        mine, ref = ours.step(int(a)), theirs.step(int(a))
        assert np.array_equal(mine[0], ref[0]) and mine[0].dtype == ref[0].dtype
        assert mine[1:4] == ref[1:4] and type(mine[1]) is type(ref[1])
        assert {k: mine[4][k] for k in ref[4]} == ref[4]
        if mine[2] or mine[3]:
            ends += 1
            o1, _ = ours.reset()
            o2, _ = theirs.reset()
            assert np.array_equal(o1, o2)
    assert ends or kwargs.get("max_num_frames_per_episode") is None


def test_a_float_action_is_refused_not_truncated():
    """ale-py indexes its action list with the action, so 1.5 is a TypeError there; truncating it to 1
    would play another action than the one asked for."""
    env = gym.make("ArcadeLab/Pong-v5")
    env.reset(seed=0)
    for bad in (1.5, 1.0, np.float32(2), np.array([1])):
        with pytest.raises(TypeError, match="integer index"):
            env.step(bad)
    env.step(np.int64(1))
    env.step(np.array(2))
    env.close()
    from arcade_lab import VectorEnv

    vec = VectorEnv("pong", 2)
    with pytest.raises(TypeError, match="integer indices"):
        vec.step(np.zeros(2, np.float32))
    vec.step([0, 1])


@requires_ale
def test_reset_seeds_are_ale_pys_values_and_types():
    import ale_py  # noqa: F401  (registers ALE/*)

    ours, theirs = gym.make("ArcadeLab/Breakout-v5"), gym.make("ALE/Breakout-v5")
    a, b = ours.reset(seed=7)[1]["seeds"], theirs.reset(seed=7)[1]["seeds"]
    assert [type(x) for x in a] == [type(x) for x in b] == [np.uint32, np.uint32]
    assert [int(x) for x in a] == [int(x) for x in b]
    ours.close()
    theirs.close()
