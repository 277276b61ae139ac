"""engine.Env against ale-py: ALE semantics of reset, act, frame skip, sticky actions, snapshots."""
from __future__ import annotations

import importlib.util

import zlib

import numpy as np
import pytest

from arcade_lab.engine.console import State, StateError
from arcade_lab.engine.env import Env, paddle_delta, sticky_threshold
from arcade_lab.parity import compare_game
from tests.conftest import requires_ale


def test_sticky_threshold_is_alys_float_comparison():
    rng = np.random.default_rng(0)
    for p in (0.0, 0.25, 0.1, 0.5, 0.999, 1.0):
        t = sticky_threshold(p)
        pf = np.float32(p)
        for u in rng.integers(0, 2**32, size=2000):
            assert (u / 4294967296.0 >= pf) == (u >= t)


def test_paddle_delta_uses_single_precision():
    assert paddle_delta(1.0) == 23000
    assert paddle_delta(-0.5) == 11500
    assert paddle_delta(0.3) == int(np.float32(23000) * np.float32(0.3))


@requires_ale
@pytest.mark.parametrize("game,frameskip,sticky", [("pong", 4, 0.0), ("breakout", 1, 0.25), ("breakout", 4, 0.25)])
def test_lockstep_with_ale(game, frameskip, sticky, tmp_path):
    r = compare_game(game, 600, seed=3, frameskip=frameskip, sticky=sticky, out=tmp_path)
    assert r.ok, r.detail


def _play(env, actions):
    out = []
    for a in actions:
        out.append((env.act(a), env.game_over(), env.lives(), env.ram().tobytes(), env.screen().tobytes()))
    return out


def test_clone_restore_round_trip_is_exact():
    env = Env("breakout", repeat_action_probability=0.0, seed=1)
    rng = np.random.default_rng(5)
    acts = env.minimal_actions()
    for _ in range(int(rng.integers(50, 300))):
        env.act(acts[int(rng.integers(len(acts)))])
    snap = env.clone_state()
    future = [acts[int(rng.integers(len(acts)))] for _ in range(200)]
    first = _play(env, future)
    env.restore_state(snap, whole=True)
    second = _play(env, future)
    # the screen right after a restore is not redrawn (ALE), so compare from the first step on
    assert first == second


def test_restore_does_not_rewind_rng_unless_included():
    env = Env("breakout", repeat_action_probability=0.25, seed=2)
    acts = env.minimal_actions()
    for a in acts * 20:
        env.act(a)
    with_rng = env.clone_state(include_rng=True)
    run1 = _play(env, acts * 30)
    env.restore_state(with_rng, whole=True)
    run2 = _play(env, acts * 30)
    assert run1 == run2


def test_state_bytes_round_trip_and_refusals():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    st = env.clone_state(include_rng=True)
    blob = st.to_bytes()
    again = State.from_bytes(blob)
    assert again == st
    with pytest.raises(StateError, match="truncated"):
        State.from_bytes(blob[:-5])
    bad = bytearray(blob)
    bad[100] ^= 0xFF
    with pytest.raises(StateError, match="corrupt"):
        State.from_bytes(bytes(bad))
    with pytest.raises(StateError, match="header"):
        State.from_bytes(b"garbage" * 10)
    other = Env("breakout", repeat_action_probability=0.0, seed=0)
    with pytest.raises(StateError, match="another ROM"):
        other.restore_state(st)


@pytest.mark.parametrize("version,kernel_slots", [(1, 5), (2, 6)])
def test_older_state_versions_still_load(version, kernel_slots):
    """Start states recorded when the body still carried the (zeroed) kernel-address slots after INSTR —
    5 in version 1, 6 in version 2 — restore to the same machine."""
    import hashlib
    import struct

    from arcade_lab.engine import layout

    env = Env("pong", repeat_action_probability=0.0, seed=0)
    for a in [0, 2, 3] * 20:
        env.act(a)
    st = env.clone_state(include_rng=True)
    blob = st.to_bytes()
    hsize = 4 + struct.calcsize("<HH32sII")
    _, _, md5, nbody, nrng = struct.unpack("<HH32sII", blob[4:hsize])
    assert nbody == layout.N_SNAPSHOT * 8
    body = np.insert(np.frombuffer(blob, "<i8", nbody // 8, hsize), layout.INSTR + 1,
                     np.zeros(kernel_slots, np.int64)).tobytes()
    head = blob[:4] + struct.pack("<HH32sII", version, 0, md5, len(body), nrng)
    rng = blob[hsize + nbody:-16]
    old = head + body + rng + hashlib.sha256(head + body + rng).digest()[:16]
    assert State.from_bytes(old) == st
    env.restore_state(State.from_bytes(old))
    run1 = _play(env, [0, 2, 3] * 30)
    env.restore_state(st)
    assert _play(env, [0, 2, 3] * 30) == run1
    future = bytearray(blob)
    future[4:6] = struct.pack("<H", layout.STATE_VERSION + 1)
    with pytest.raises(StateError, match="version"):
        State.from_bytes(bytes(future))
    # a body of another version's size is refused, not misread
    wrong = blob[:4] + struct.pack("<HH32sII", 2, 0, md5, nbody, nrng) + blob[hsize:-16]
    wrong += hashlib.sha256(wrong).digest()[:16]
    with pytest.raises(StateError, match="wrong size"):
        State.from_bytes(wrong)


def test_restore_refuses_a_state_of_the_wrong_length():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    st = env.clone_state()
    before = env.clone_state()
    for bad in (st.data[:-1].copy(), np.zeros(1, np.int64), np.concatenate([st.data, [0]])):
        with pytest.raises(StateError, match="slots"):
            env.restore_state(State(st.md5, bad))
    assert env.clone_state() == before  # nothing was written


def test_bad_options_are_refused_clearly():
    with pytest.raises(ValueError, match="repeat_action_probability"):
        Env("pong", repeat_action_probability=1.5)
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    with pytest.raises(ValueError, match="mode"):
        env.set_mode(7)
    with pytest.raises(ValueError, match="difficulty"):
        env.set_difficulty(9)
    with pytest.raises(RuntimeError, match="mode 7 is not available"):   # ale-py's type too
        env.set_mode(7)
    with pytest.raises(RuntimeError, match="difficulty 9 is not available"):
        env.set_difficulty(9)
    with pytest.raises(ValueError, match="action"):
        env.act(18)


def test_terminal_latches_until_reset():
    env = Env("pong", repeat_action_probability=0.0, seed=0, max_num_frames_per_episode=50)
    total = 0
    while not env.game_over():
        total += 1
        env.act(0)
    assert env.episode_frame_number == 50 and env.game_truncated()
    frame = env.frame_number
    ram = env.ram()
    assert env.act(1) == 0 and env.frame_number == frame and np.array_equal(env.ram(), ram)
    env.reset()
    assert not env.game_over() and env.episode_frame_number == 0


def test_reset_drawing_only_its_last_frame_equals_the_drawn_reset():
    """A reset emulates ~70 frames (more with starting actions) before anyone looks at the screen, so
    ``env_reset_observed`` draws only its last two (one per frame buffer: at frame skip 1 a short next
    frame shows the other buffer's rows, as Tron Dead's first does); where they do not hold exactly what
    the drawn reset leaves (Journey Escape's short frames: rows of older frames stay on screen) it is
    replayed drawn. From the same mid-episode state both resets end with the same snapshot, RNG and both
    buffers' screens; the games cover starting actions (Elevator Action's 16 FIREs, Casino's 62), mode
    selection and the replay."""
    from arcade_lab.engine import ale_core
    from arcade_lab.engine.layout import N_SNAPSHOT

    replayed = {}
    for game, mode in [("breakout", None), ("casino", 2), ("double_dunk", 3), ("elevator_action", None),
                       ("journey_escape", None), ("video_checkers", 15), ("trondead", None)]:
        env = Env(game, frameskip=4, repeat_action_probability=0.25, mode=mode, seed=3)
        rng = np.random.default_rng(0)
        acts = env.action_set()
        for _ in range(40):
            env.act(acts[int(rng.integers(len(acts)))])
        c = env.console
        s0, fb0, r0 = c.s.copy(), c.fb.copy(), env.rng.copy()
        ale_core.env_reset(c.s, c.rom, c.fb, env.rng)
        want = (c.s[:N_SNAPSHOT].copy(), c.screen(0).copy(), c.screen(1).copy(), env.rng.copy())
        c.s[:], c.fb[:], env.rng[:] = s0, fb0, r0
        replayed[game] = ale_core.env_reset_observed(c.s, c.rom, c.fb, env.rng, np.empty_like(c.s),
                                                     np.empty_like(env.rng))
        assert np.array_equal(c.s[:N_SNAPSHOT], want[0]), f"{game}: state differs"
        assert np.array_equal(c.screen(0), want[1]) and np.array_equal(c.screen(1), want[2]), \
            f"{game}: screen differs"
        assert np.array_equal(env.rng, want[3]), f"{game}: RNG differs"
    assert replayed["journey_escape"] and not replayed["breakout"], replayed


def test_observation_shapes_and_palettes():
    env = Env("pong", repeat_action_probability=0.0, seed=0)
    assert env.screen().shape == (210, 160) and env.screen().dtype == np.uint8
    assert env.screen_rgb().shape == (210, 160, 3)
    assert env.screen_grayscale().shape == (210, 160)
    assert env.ram().shape == (128,)


@requires_ale
def test_bench_prints_both_engines_side_by_side(capsys):
    """`arcade-lab bench`: per game our frames/s, ale-py's, the ratio and both clone+restore times, from
    interleaved rounds, then the median ratio; then the batched table against AtariVectorEnv."""
    import argparse
    import re

    from arcade_lab import bench

    args = argparse.Namespace(games=["pong", "breakout"], frames=200, frameskip=4, rounds=2, vector_envs=2,
                              vector_steps=5, vector_games=["breakout", "pong"])
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    assert "best of 2 interleaved runs" in out
    rows = re.findall(r"^(pong|breakout) +(\d+) +(\d+) +([\d.]+)x +([\d.]+)µs +([\d.]+)µs$", out, re.M)
    assert [r[0] for r in rows] == ["pong", "breakout"]
    for _, ours, theirs, ratio, us_ours, us_ale in rows:
        assert int(ours) > 0 and int(theirs) > 0 and float(us_ours) > 0 and float(us_ale) > 0
        assert abs(float(ratio) - int(ours) / int(theirs)) < 0.01
    med = float(re.search(r"median ratio ours/ale-py: ([\d.]+)x over 2 games", out).group(1))
    ratios = sorted(float(r[3]) for r in rows)
    assert abs(med - (ratios[0] + ratios[1]) / 2) < 0.011
    # batched: ours next to ale-py's AtariVectorEnv (and EnvPool's, or dashes without it), same interleaving
    assert "batched: 2 environments" in out and "best of 2 interleaved runs" in out.split("batched:")[1]
    vrows = re.findall(r"^(pong|breakout) +(\d+) +(\d+) +([\d.]+)x +(\d+|-) +([\d.]+x|-)$", out, re.M)
    assert [r[0] for r in vrows] == ["breakout", "pong"]
    for _, ours, theirs, ratio, pool, pool_ratio in vrows:
        assert int(ours) > 0 and int(theirs) > 0 and abs(float(ratio) - int(ours) / int(theirs)) < 0.01
        assert (pool == "-") == (pool_ratio == "-") == (importlib.util.find_spec("envpool") is None)
    assert re.search(r"median batched ratio ours/AtariVectorEnv: [\d.]+x over 2 games", out)


def _scheme_sample():
    from arcade_lab.engine import roms

    first = {}
    for g in roms.list_games():
        first.setdefault(roms.find(g).scheme, g)
    return sorted(first.items())


@pytest.mark.parametrize("scheme,game", _scheme_sample())
def test_clone_restore_is_exact_at_100_random_points(scheme, game):
    """One game of every cartridge scheme (bank switching, Superchip RAM, DPC, FE): at 100 random points of
    a random-action trace (sticky actions on, so the environment RNG is part of the state), the next steps
    after clone -> continue and after restore -> replay are identical in reward, terminal, lives, RAM and
    screen."""
    env = Env(game, frameskip=1, repeat_action_probability=0.25, seed=11)
    rng = np.random.default_rng(zlib.crc32(game.encode()))
    acts = env.minimal_actions()
    points = 0
    while points < 100:
        for _ in range(int(rng.integers(1, 40))):
            env.act(acts[int(rng.integers(len(acts)))])
        if env.game_over():
            env.reset()
        snap = env.clone_state(include_rng=True)
        future = [acts[int(rng.integers(len(acts)))] for _ in range(int(rng.integers(1, 12)))]
        ahead = _play(env, future)
        env.restore_state(snap, whole=True)
        assert _play(env, future) == ahead, f"{game} ({scheme}): point {points} differs after restore"
        points += 1


@requires_ale
# (seed, steps before the excursion): points where the first sticky draws after the restore keep the
# previous action, so the excursion's action shows in what follows
@pytest.mark.parametrize("seed,warm", [(2, 80), (3, 30)])
def test_an_excursion_leaves_its_last_action_sticky_as_in_ale(seed, warm):
    """ALE keeps the sticky "previous action" outside the cloned state: after clone, three steps of X and
    restore, the next sticky repeats play X. Ours equals ale-py step for step, for several X (Breakout's
    paddle and Seaquest's submarine)."""
    from arcade_lab.engine import roms
    from arcade_lab.parity import _make_ale

    distinct = []
    for game in ("breakout", "seaquest"):
        rams = {}
        for x in (3, 4, 1):  # RIGHT, LEFT, FIRE
            ale = _make_ale(roms.rom_path(game), seed, 4, 0.9, None, None)
            env = Env(game, frameskip=4, repeat_action_probability=0.9, seed=seed)
            for _ in range(warm):
                assert ale.act(1) == env.act(1)
            a_state, e_state = ale.cloneState(), env.clone_state()
            for _ in range(3):
                ale.act(x)
                env.act(x)
            ale.restoreState(a_state)
            env.restore_state(e_state)
            for step in range(40):
                assert ale.act(0) == env.act(0)
                assert np.array_equal(ale.getRAM(), env.ram()), f"{game}, X={x}, step {step} after the restore"
            rams[x] = env.ram().tobytes()
        distinct.append(len(set(rams.values())))
    assert min(distinct) > 1  # the excursion's action shows: the test tells the two semantics apart


def test_bench_over_all_games_reports_the_slowest_the_lower_quartile_and_the_median():
    from arcade_lab import bench
    from arcade_lab.engine.roms import list_games

    assert bench._games(["all"]) == list_games() and len(list_games()) == 104
    assert bench._games(None) == list(bench.DEFAULT_GAMES)
    line = bench.summary([3.0, 1.0, 5.0, 2.0, 4.0])
    assert "min 1.00x" in line and "lower quartile 1.50x" in line and "median 3.00x" in line
    assert "over 5 games" in line


def test_bench_names_an_unknown_game_before_timing_anything(capsys):
    """A mistyped id in either game list stops the command with the id named and nothing timed; comma
    lists read as space-separated ones in both."""
    from arcade_lab import cli

    assert cli.main(["bench", "--frames", "0", "--vector-games", "pong,nosuchgame"]) == 2
    out, err = capsys.readouterr()
    assert "unknown game id 'nosuchgame'" in err and "Traceback" not in err
    assert "batched" not in out  # no table was started
    assert cli.main(["bench", "--games", "pongg"]) == 2
    out, err = capsys.readouterr()
    assert "unknown game id 'pongg'" in err and "frames per game" not in out


def test_copies_and_pickles_go_on_exactly_as_the_original():
    """An Env deep-copied or pickled mid-episode (sticky actions, frame skip, frame cap) plays on
    frame for frame as the original: screens, rewards, RAM and the end of the episode."""
    import copy
    import pickle

    env = Env("breakout", frameskip=3, repeat_action_probability=0.25, max_num_frames_per_episode=900, seed=4)
    rng = np.random.default_rng(2)
    for a in rng.integers(4, size=40):
        env.act(int(env.minimal_actions()[a]))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for a in rng.integers(4, size=400):
        a = int(env.minimal_actions()[a])
        r = env.act(a)
        for c in copies:
            assert c.act(a) == r and np.array_equal(c.ram(), env.ram()) and np.array_equal(c.screen(), env.screen())
            assert c.game_over() == env.game_over()
        if env.game_over():
            break
    assert env.game_over()  # the frame cap ended all three
    with pytest.raises(TypeError, match="Gymnasium"):
        from arcade_lab.engine.gym import SoundObs, make_env

        pickle.dumps(make_env("pong", sound_obs=SoundObs()))
