"""Every feature set's compiled path equals its slow reference on real screens from several games."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.agents.base import Observation
from arcade_lab.agents.features import Background, background_reference, sample_screens, tri_index

GAMES = ["pong", "seaquest", "breakout"]


def _obs(env, frame):
    return Observation(screen=env.screen(), ram=env.ram(), lives=env.lives(), frame=frame)


@pytest.fixture(scope="module", params=GAMES)
def game(request, ale_roms):
    from arcade_lab import engine

    env = engine.Env(request.param, frameskip=5, repeat_action_probability=0.0, seed=0)
    screens = list(sample_screens(env, 40, seed=3))
    bg = Background(*screens[0].shape)
    for s in screens:
        bg.add(s)
    background = bg.image()
    # a short trajectory of observations to compare on (tracking state matters for DISCO)
    rng = np.random.default_rng(1)
    env.reset()
    obs = []
    for t in range(12):
        env.act(int(env.action_set()[rng.integers(len(env.action_set()))]))
        if t % 2 == 0:
            obs.append(_obs(env, t))
    return request.param, env, screens, background, obs


def test_background_matches_reference(game):
    _, _, screens, background, _ = game
    assert np.array_equal(background, background_reference(np.stack(screens)))


def test_tri_index_is_compact():
    n = 7
    idx = [tri_index(i, j, n) for i in range(n) for j in range(i + 1, n)]
    assert idx == list(range(n * (n - 1) // 2))


@pytest.mark.parametrize("name", ["basic", "bass", "ram", "lsh"])
def test_feature_set_matches_reference(game, name):
    from arcade_lab.agents import features

    gname, env, _, background, obs = game
    fs = features.make(name, env, background=background, seed=0)
    total = 0
    for o in obs:
        a = fs.active(o)
        assert a.dtype == np.int64
        assert np.array_equal(np.sort(a), np.sort(fs.reference(o))), (gname, name, o.frame)
        assert len(np.unique(a)) == len(a) and (a.size == 0 or (a.min() >= 0 and a.max() < fs.n_features))
        total += a.size
    assert total > 0
    if name == "lsh":
        assert all(fs.active(o).size == 2000 for o in obs)


def test_disco_matches_reference(game):
    from arcade_lab.agents.features.disco import DiscoFeatures, discover_classes, extract_blobs, extract_blobs_reference

    gname, env, screens, background, obs = game
    for s in screens[:4]:
        assert np.array_equal(extract_blobs(s, background), extract_blobs_reference(s, background))
    classes = discover_classes([extract_blobs(s, background) for s in screens])
    assert 1 <= len(classes) <= 10, gname
    fs = DiscoFeatures(background, classes)
    n_active = 0
    for o in obs:
        a = fs.active(o)
        assert np.array_equal(a, fs.reference(o)), (gname, o.frame)
        assert a.size == 0 or a.max() < fs.n_features
        n_active += a.size
    assert n_active > 0, gname
