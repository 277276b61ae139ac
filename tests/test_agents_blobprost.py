"""Blob-PROST: compiled blobs and ids equal their slow references on real screens, the id -> slot map is
exact and bounded, it travels with the weights, and the SARSA agent learns with the 2018 parameters."""
from __future__ import annotations

import json

import numpy as np
import pytest

from arcade_lab.agents.base import Observation
from arcade_lab.agents.features import blobprost as bp
from arcade_lab.agents.features.blobprost import BlobProstFeatures, extract_blobs, extract_blobs_reference

GAMES = ["pong", "seaquest", "breakout"]


def _obs(env, frame):
    return Observation(screen=env.screen().copy(), ram=env.ram().copy(), lives=env.lives(), frame=frame)


@pytest.fixture(scope="module", params=GAMES)
def game(request, ale_roms):
    """Consecutive decisions (5 frames apart) of random play, past the first quiet frames."""
    from arcade_lab import engine

    env = engine.Env(request.param, frameskip=5, repeat_action_probability=0.0, seed=0)
    env.reset()
    rng = np.random.default_rng(2)
    acts = env.action_set()
    for _ in range(30):
        env.act(int(acts[rng.integers(len(acts))]))
    obs = []
    for t in range(4):
        env.act(int(acts[rng.integers(len(acts))]))
        obs.append(_obs(env, 150 + 5 * t))
    return request.param, obs


# ------------------------------------------------------------------------------------------------ blobs
def test_blobs_match_reference_on_real_screens(game):
    gname, obs = game
    for o in obs[:2]:
        b = extract_blobs(o.screen, bp.LINK)
        assert np.array_equal(b, extract_blobs_reference(o.screen)), gname
        assert b[:, bp.BL_PIXELS].sum() == o.screen.size           # every pixel in exactly one blob
        assert len(b) > 3, gname                                     # a real screen has several objects
        # each blob's colour is the colour of its first pixel, and its centre lies in its box
        for row in b[:20]:
            assert row[bp.BL_TOP] <= row[bp.BL_ROW] <= row[bp.BL_BOTTOM]
            assert row[bp.BL_LEFT] <= row[bp.BL_COL] <= row[bp.BL_RIGHT]
            ys, xs = np.nonzero((o.screen >> 1) == row[bp.BL_COLOUR])
            assert ys.size >= row[bp.BL_PIXELS]


def test_blobs_match_a_third_route():
    """Through scipy's 8-connected labelling: put each pixel of a colour at (2y, 2x) of a doubled grid and
    paint a 7 x 7 square from there; two squares touch or overlap exactly when their corners are at most 7
    apart on both axes, i.e. (the corners being even) when the pixels are at most 3 apart."""
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(5)
    for trial in range(6):
        # sparse colours on a background: stripes, specks and gaps of every width up to the link distance
        s = np.full((37, 29), 8, np.uint8)
        for c in (2, 4, 6):
            s[rng.random(s.shape) < 0.12 * (1 + trial % 3)] = c
        got = {tuple(r) for r in extract_blobs(s, bp.LINK)[:, [0, 1, 2, 3, 4, 7]].tolist()}
        want = set()
        for c in np.unique(s >> 1):
            ys, xs = np.nonzero((s >> 1) == c)
            big = np.zeros((2 * s.shape[0] + 6, 2 * s.shape[1] + 6), bool)
            for dy in range(7):
                for dx in range(7):
                    big[2 * ys + dy, 2 * xs + dx] = True
            lab, n = ndimage.label(big, structure=np.ones((3, 3), int))
            k = lab[2 * ys, 2 * xs]
            for j in range(1, n + 1):
                yj, xj = ys[k == j], xs[k == j]
                want.add((int(c), yj.min(), xj.min(), yj.max(), xj.max(), yj.size))
        assert got == want, trial


@pytest.mark.parametrize("link", [1, 2, 3])
def test_blobs_match_reference_on_dense_random_screens(link):
    rng = np.random.default_rng(link)
    for _ in range(4):
        s = (rng.integers(0, 3, (23, 31)) * 2).astype(np.uint8)   # 3 colours: many runs, long chains
        assert np.array_equal(extract_blobs(s, link), extract_blobs_reference(s, link))


def _blobs_of(screen, colour):
    b = extract_blobs(screen, bp.LINK)
    return b[b[:, bp.BL_COLOUR] == colour]


def test_same_colour_pixels_three_apart_join_four_apart_do_not():
    def screen(*pixels, other=()):
        s = np.zeros((20, 30), np.uint8)
        for y, x in pixels:
            s[y, x] = 4            # colour 2
        for y, x in other:
            s[y, x] = 6            # colour 3
        return s

    one = _blobs_of(screen((5, 5), (5, 8)), 2)
    assert len(one) == 1 and one[0, bp.BL_PIXELS] == 2
    assert (one[0, bp.BL_LEFT], one[0, bp.BL_RIGHT], one[0, bp.BL_COL], one[0, bp.BL_ROW]) == (5, 8, 6, 5)
    assert len(_blobs_of(screen((5, 5), (5, 9)), 2)) == 2
    assert len(_blobs_of(screen((5, 5), (8, 8)), 2)) == 1            # Chebyshev: diagonals too
    assert len(_blobs_of(screen((5, 5), (9, 8)), 2)) == 2
    assert len(_blobs_of(screen((5, 8), (8, 5)), 2)) == 1            # up-right neighbour
    # other colours in between do not separate them
    assert len(_blobs_of(screen((5, 5), (5, 8), other=[(5, 6), (5, 7)]), 2)) == 1
    # the colour-0 background is one blob around them; the colour-3 pixels join each other
    s = screen((5, 5), (5, 8), other=[(5, 6), (5, 7)])
    assert len(_blobs_of(s, 0)) == 1 and len(_blobs_of(s, 3)) == 1


# ------------------------------------------------------------------------------------------------ ids
def test_id_layout_is_compact():
    assert bp.N_IDS == 115_000_640
    assert bp.N_OFFSETS == 59 * 79 and bp.BASE_TIME == bp.N_BASIC + bp.N_PRO
    pairs = [bp.colour_pair(a, b) for a in range(128) for b in range(a, 128)]
    assert pairs == list(range(bp.N_COLOUR_PAIRS))


def test_ids_match_reference_with_time_features(game):
    gname, obs = game
    fs = BlobProstFeatures(capacity=1 << 12)
    for t, o in enumerate(obs[:3]):
        ids = fs.ids(o)
        ref = fs.reference(o)
        assert ids.dtype == np.int64 and np.array_equal(ids, ref), (gname, t)
        assert np.all(np.diff(ids) > 0) and ids[0] >= 0 and ids[-1] < bp.N_IDS
        n_time = int((ids >= bp.BASE_TIME).sum())
        n_pro = int(((ids >= bp.BASE_PRO) & (ids < bp.BASE_TIME)).sum())
        n_basic = int((ids < bp.BASE_PRO).sum())
        assert n_basic > 0 and n_pro >= n_basic                  # a blob with itself is a B-PRO feature
        if t == 0:
            assert n_time == 0, gname                             # first observation: no previous screen
        else:
            assert n_time >= n_basic, gname                       # every blob that stayed put pairs with itself
    # the Basic ids are exactly the (colour, cell) of the blobs
    b = extract_blobs(obs[2].screen, bp.LINK)
    cells = {int(c) * bp.N_CELLS + int(r) * 30 // 210 * 40 + int(x) // 4
             for c, r, x in b[:, [bp.BL_COLOUR, bp.BL_ROW, bp.BL_COL]].tolist()}
    assert set(fs.last_ids[fs.last_ids < bp.BASE_PRO].tolist()) == cells
    fs.reset()
    ids = fs.ids(obs[3])
    assert np.array_equal(ids, fs.reference(obs[3]))
    assert not (ids >= bp.BASE_TIME).any()


def test_time_features_pair_previous_with_current_blobs():
    """Two one-blob-of-interest screens: the B-PROST id encodes (prev colour, current colour, cell offset)."""
    a = np.zeros((210, 160), np.uint8)
    a[70:72, 40:44] = 10        # colour 5 at rows 70..71 -> centre row 70 (cell 10), cols 40..43 -> 41 (cell 10)
    b = np.zeros((210, 160), np.uint8)
    b[77:79, 48:52] = 10        # one cell down, two cells right
    fs = BlobProstFeatures(capacity=64)
    fs.ids(Observation(screen=a, ram=None, lives=0, frame=0))
    ids = fs.ids(Observation(screen=b, ram=None, lives=0, frame=5))
    d = bp.N_OFFSETS
    want = bp.BASE_TIME + (5 * 128 + 5) * d + (-1 + 29) * 79 + (-2 + 39)
    assert want in set(ids.tolist())
    assert np.array_equal(ids, np.array(sorted(
        bp.blobprost_ids_reference([(0, 14, 19), (5, 11, 12)], [(0, 14, 19), (5, 10, 10)])), np.int64))


def test_other_screen_heights_keep_the_grid():
    rng = np.random.default_rng(3)
    fs = BlobProstFeatures(capacity=1 << 12)
    for t in range(2):
        s = np.zeros((250, 160), np.uint8)
        s[rng.integers(0, 250, 25), rng.integers(0, 160, 25)] = rng.integers(1, 128, 25) * 2
        s[249, 159] = 20                                          # a blob in the last cell
        ids = fs.ids(Observation(screen=s, ram=None, lives=0, frame=t))
        assert np.array_equal(ids, fs.reference(Observation(screen=s, ram=None, lives=0, frame=t)))
        basic = ids[ids < bp.BASE_PRO]
        assert ((basic % bp.N_CELLS) // bp.GRID_COLS).max() == 29                 # rows by row*30//250
        assert 10 * bp.N_CELLS + 29 * 40 + 39 in set(basic.tolist())   # colour 10, cell (29, 39)


# ------------------------------------------------------------------------------------------------ slots
def _model_slots(seen: dict, ids, cap):
    """What the slot map should do: first sight in the given (sorted) order takes the next slot."""
    out, dropped = [], 0
    for i in ids.tolist():
        if i not in seen:
            if len(seen) >= cap:
                dropped += 1
                continue
            seen[i] = len(seen)
        out.append(seen[i])
    return sorted(out), dropped


def test_slot_map_is_exact_and_stable(game):
    gname, obs = game
    fs = BlobProstFeatures(capacity=1 << 14)
    seen: dict = {}
    first = []
    for o in obs:
        a = fs.active(o)
        want, dropped = _model_slots(seen, fs.last_ids, fs.capacity)
        assert a.dtype == np.int64 and a.tolist() == want and dropped == 0, gname
        assert len(np.unique(a)) == len(a) == len(fs.last_ids) and a.max() < fs.capacity
        first.append(a)
    assert fs.n_used == len(seen) and fs.overflow == 0
    assert np.array_equal(fs.slot_ids(), np.array(sorted(seen, key=seen.get), np.int64))
    fs.reset()                                   # the same observations again: the same slots, none new
    used = fs.n_used
    for o, a in zip(obs, first):
        assert np.array_equal(fs.active(o), a)
    assert fs.n_used == used


def test_slot_map_overflow_drops_and_counts(game):
    gname, obs = game
    fs = BlobProstFeatures(capacity=40)
    seen: dict = {}
    total = 0
    for o in obs:
        a = fs.active(o)
        want, dropped = _model_slots(seen, fs.last_ids, 40)
        total += dropped
        assert a.tolist() == want and (a < 40).all()
    assert fs.n_used == 40 and total > 0 and fs.overflow == total, gname
    assert fs.header()["overflow"] == total and fs.header()["n_used"] == 40 and fs.n_features == 40


def test_table_size_and_defaults():
    fs = BlobProstFeatures()
    assert fs.capacity == fs.n_features == 1 << 21
    assert fs._keys.shape[0] == 1 << 22                         # power of two, at least twice the capacity
    assert BlobProstFeatures(capacity=1000)._keys.shape[0] == 2048
    with pytest.raises(ValueError):
        BlobProstFeatures(capacity=0)


# ------------------------------------------------------------------------------------------------ agent
def _env(game="pong", cap=0):
    from arcade_lab import engine

    return engine.Env(game, frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=cap, seed=0)


def _play(agent, obs, rewards):
    a = agent.begin_episode(obs[0])
    for o, r in zip(obs[1:], rewards):
        a = agent.step(r, o)
    agent.end_episode(1.0)
    return a


def test_weights_carry_the_slot_table(tmp_path, ale_roms):
    from arcade_lab.agents.sarsa import SarsaAgent

    env = _env()
    env.reset()
    obs = []
    for t in range(12):
        env.act(int(env.action_set()[t % 3]))
        obs.append(_obs(env, 5 * t))
    agent = SarsaAgent.for_env("blobprost", env, seed=0, capacity=1 << 14)
    _play(agent, obs[:8], [1.0, 0.0, -1.0, 1.0, 0.0, 0.0, 1.0])
    p = tmp_path / "bp.npz"
    agent.save(p)

    # another agent that has seen other screens first (so other slots), with another capacity
    other = SarsaAgent.for_env("blobprost", env, seed=0, capacity=1 << 12)
    other.features.active(obs[11])
    other.features.active(obs[0])
    k = min(other.features.n_used, agent.features.n_used)
    assert not np.array_equal(other.features.slot_ids()[:k], agent.features.slot_ids()[:k])
    other.load(p)
    assert other.features.capacity == 1 << 14 and other.w.shape == agent.w.shape
    assert np.array_equal(other.features.slot_ids(), agent.features.slot_ids())
    assert other.features.n_used == agent.features.n_used
    for ag in (agent, other):
        ag.learning = False
        ag.begin_episode(obs[9])
    q = agent.q_values()
    assert np.any(q != 0.0)
    np.testing.assert_array_equal(other.q_values(), q)
    a1, a2 = agent.features.active(obs[10]), other.features.active(obs[10])
    assert np.array_equal(a1, a2)
    assert other.config.gamma == 0.99 and other.config.epsilon == 0.01


def _rewrite(src, dst, header=None, **arrays):
    with np.load(src) as z:
        d = {k: z[k] for k in z.files}
    if header is not None:
        h = json.loads(str(d["header"]))
        header(h)
        d["header"] = np.array(json.dumps(h))
    for k, v in arrays.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    np.savez(dst, **d)
    return dst


def test_load_refuses_a_missing_or_inconsistent_table(tmp_path):
    from arcade_lab.agents.sarsa import SarsaAgent

    rng = np.random.default_rng(0)
    obs = []
    for t in range(3):   # 30 specks of random colours on a black screen: about 30 blobs
        s = np.zeros((210, 160), np.uint8)
        s[rng.integers(0, 210, 30), rng.integers(0, 160, 30)] = rng.integers(1, 128, 30) * 2
        obs.append(Observation(screen=s, ram=None, lives=0, frame=5 * t))
    agent = SarsaAgent(BlobProstFeatures(1 << 14), seed=0)
    agent.actions = [0, 1, 2]
    _play(agent, obs, [1.0, 0.0])
    p = tmp_path / "ok.npz"
    agent.save(p)
    ids = agent.features.slot_ids()
    assert ids.size > 100

    def fresh():
        b = SarsaAgent(BlobProstFeatures(1 << 14), seed=0)
        b.actions = [0, 1, 2]
        return b

    fresh().load(p)   # the untouched file loads
    bad = {
        "missing": dict(blobprost_ids=None),
        "twice": dict(blobprost_ids=np.concatenate([ids[:-1], ids[:1]])),
        "short": dict(blobprost_ids=ids[:-1]),
        "outside": dict(blobprost_ids=np.concatenate([ids[:-1], [bp.N_IDS]])),
    }
    for name, kw in bad.items():
        with pytest.raises(ValueError, match="Blob-PROST") as e:
            fresh().load(_rewrite(p, tmp_path / f"{name}.npz", **kw))
        assert str(tmp_path) in str(e.value), name
    with pytest.raises(ValueError, match="layout"):
        fresh().load(_rewrite(p, tmp_path / "layout.npz", header=lambda h: h["features"].update(layout="x")))
    with pytest.raises(ValueError, match="n_used|holds"):
        fresh().load(_rewrite(p, tmp_path / "used.npz", header=lambda h: h["features"].update(n_used=3)))
    with pytest.raises(ValueError, match="shape"):
        fresh().load(_rewrite(p, tmp_path / "w.npz", w=np.zeros((3, 100), np.float32)))
    b = fresh()
    b.features.active(obs[2])
    before = b.features.slot_ids()
    with pytest.raises(ValueError):
        b.load(tmp_path / "twice.npz")
    assert np.array_equal(b.features.slot_ids(), before)          # a refused file changes nothing


def test_for_env_uses_the_2018_parameters():
    from arcade_lab.agents.registry import FEATURE_SETS, make_agent
    from arcade_lab.agents.sarsa import SarsaAgent

    assert "blobprost" in FEATURE_SETS
    a = make_agent("sarsa:blobprost", None, seed=0, capacity=1 << 10)
    assert isinstance(a.features, BlobProstFeatures) and a.name == "sarsa:blobprost"
    c = a.config
    assert (c.alpha, c.lam, c.gamma, c.epsilon, c.normalise_alpha) == (0.5, 0.9, 0.99, 0.01, True)
    c = SarsaAgent.for_env("blobprost", None, gamma=0.9, epsilon=0.2, alpha=0.1, capacity=8).config
    assert (c.alpha, c.gamma, c.epsilon) == (0.1, 0.9, 0.2)
    c = SarsaAgent.for_env("ram", None).config                     # the 2013 sets keep theirs
    assert (c.alpha, c.lam, c.gamma, c.epsilon) == (0.2, 0.5, 0.999, 0.05)


def test_learning_episodes_are_reproducible(ale_roms):
    from arcade_lab.agents.base import RunConfig, Runner
    from arcade_lab.agents.sarsa import SarsaAgent

    def run(seed):
        env = _env("pong", cap=900)
        runner = Runner(RunConfig(game="pong", frameskip=5, max_frames=900, full_action_space=True, seed=seed,
                                  record_start_state=False), env)
        agent = SarsaAgent.for_env("blobprost", env, seed=seed, capacity=1 << 16)
        recs = list(runner.episodes(agent, 2))
        return agent, recs

    a, ra = run(4)
    b, rb = run(4)
    assert [r.frames for r in ra] == [900, 900] and any(r.score != 0 for r in ra)
    for x, y in zip(ra, rb):
        assert x.score == y.score and np.array_equal(x.actions, y.actions)
    assert np.array_equal(a.w, b.w) and np.any(a.w != 0)            # it learned, identically
    assert a.features.n_used == b.features.n_used > 0 and a.features.overflow == 0
    assert 0 < a.max_active <= a.features.n_used


def test_app_overlay_draws_the_blobs():
    from arcade_lab.agents.sarsa import SarsaAgent
    from arcade_lab.app.agent_driver import AgentDriver

    s = np.zeros((210, 160), np.uint8)
    s[10:14, 20:22] = 6
    s[100, 50] = 6
    s[100, 80] = 90
    obs = Observation(screen=s, ram=None, lives=0, frame=0)
    driver = AgentDriver(SarsaAgent(BlobProstFeatures(64)))
    d = driver._overlay(obs)
    assert not driver.errors and d["kind"] == "blobs" and d["height"] == 210
    assert sorted(d["boxes"]) == [(0, 0, 0, 159, 209), (3, 20, 10, 21, 13), (3, 50, 100, 50, 100),
                                  (45, 80, 100, 80, 100)]


def test_cli_trains_saves_and_loads(tmp_path, capsys, ale_roms):
    from arcade_lab.agents.cli import run_main

    w = tmp_path / "bp.npz"
    assert run_main(["sarsa:blobprost", "pong", "--train", "1", "--episodes", "1", "--frames-cap", "150",
                     "--save", str(w)]) == 0
    with np.load(w) as z:
        head = json.loads(str(z["header"]))
        assert head["features"]["n_used"] == z["blobprost_ids"].size > 0
        assert head["params"]["gamma"] == 0.99 and head["params"]["epsilon"] == 0.01
    assert run_main(["sarsa:blobprost", "pong", "--episodes", "1", "--frames-cap", "150", "--load", str(w)]) == 0
    assert "sarsa:blobprost on pong" in capsys.readouterr().out
