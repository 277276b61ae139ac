"""Observation kernels against the obvious NumPy lookups they replace, into fresh and caller buffers."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine import observe
from arcade_lab.engine.env import Env
from arcade_lab.engine.palettes import NTSC, NTSC_GRAY, PAL, PAL_GRAY


def _random_screens():
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, size=(h, 160), dtype=np.uint8) for h in (210, 250, 1)]


@pytest.mark.parametrize("palette", [NTSC, PAL])
def test_rgb_equals_the_palette_lookup(palette):
    for scr in _random_screens():
        assert np.array_equal(observe.screen_rgb(scr, palette), palette[scr])


@pytest.mark.parametrize("lut", [NTSC_GRAY, PAL_GRAY])
def test_grayscale_equals_the_lut_lookup(lut):
    for scr in _random_screens():
        assert np.array_equal(observe.screen_lut(scr, lut), lut[scr])


def test_caller_buffers_in_place_odd_and_wrong():
    scr = _random_screens()[0]
    want = NTSC[scr]
    out = np.zeros((210, 160, 3), np.uint8)
    assert observe.screen_rgb(scr, NTSC, out) is out and np.array_equal(out, want)
    flat = np.zeros(210 * 160 * 3, np.uint8)           # ale-py accepts any buffer of the right size
    observe.screen_rgb(scr, NTSC, flat)
    assert np.array_equal(flat.reshape(210, 160, 3), want)
    fortran = np.zeros((210, 160, 3), np.uint8, order="F")
    observe.screen_rgb(scr, NTSC, fortran)
    assert np.array_equal(fortran, want)
    wide = np.zeros((210, 160, 3), np.int32)            # another dtype: converted, not refused
    observe.screen_rgb(scr, NTSC, wide)
    assert np.array_equal(wide, want)
    with pytest.raises(ValueError, match="observation buffer"):
        observe.screen_rgb(scr, NTSC, np.zeros((84, 84, 3), np.uint8))


def test_env_observations_match_its_screen():
    env = Env("seaquest", repeat_action_probability=0.0, seed=0)
    for _ in range(60):
        env.act(1)
    idx = env.screen()
    assert np.array_equal(env.screen_rgb(), NTSC[idx])
    assert np.array_equal(env.screen_grayscale(), NTSC_GRAY[idx])
    gray = np.empty((210, 160), np.uint8)
    assert env.screen_grayscale(gray) is gray and np.array_equal(gray, NTSC_GRAY[idx])


def _run_screen(n: int, seed: int) -> np.ndarray:
    """``n`` palette indices in runs of 1 to 40 pixels (as frames are: background, playfield, sprites)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 41, size=n)
    return np.repeat(rng.integers(0, 256, size=n, dtype=np.uint8), lengths)[:n]


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 7, 8, 9, 33_600, 33_603])
def test_kernels_on_runs_of_colour_and_any_length(n):
    # the kernels reuse a group's output when the next four pixels repeat it: runs of every length and
    # phase, a first group equal to what the reuse starts from, and tails that are not a whole group
    for seed, src in enumerate([_run_screen(n, 1), _run_screen(n, 2), np.zeros(n, np.uint8),
                                np.full(n, 255, np.uint8)]):
        rgb = np.full(3 * n, 7, np.uint8)
        observe.rgb_into(src, NTSC, rgb)
        assert np.array_equal(rgb.reshape(n, 3), NTSC[src]), seed
        gray = np.full(n, 7, np.uint8)
        observe.lut_into(src, PAL_GRAY, gray)
        assert np.array_equal(gray, PAL_GRAY[src]), seed
