"""Feature sets of the ALE 2013 paper (Appendix A), plus Blob-PROST (Liang et al. 2016): each maps an
Observation to the indices of its active binary features (``active(obs) -> int64 array``), and keeps a slow
pure-Python ``reference(obs)`` that the tests hold the compiled path to (Blob-PROST: its raw ids, see
``blobprost.py``).

Screens are ALE palette bytes (even values 0..254); ``byte >> 1`` is the 7-bit NTSC colour (128 colours)
and ``(byte >> 1) & 7`` its SECAM colour (the SECAM console shows only the luminance bits, as 8 colours).
"""
from __future__ import annotations

import numpy as np

from .._nb import njit

N_TILE_X = 16   # paper A.1: 16 x 14 tiles (10 x 15 pixels on a 160 x 210 screen)
N_TILE_Y = 14
TILE_W = 10


def checked_background(a) -> np.ndarray:
    """A background array read from a weights file: rows x 160 palette indices, else ValueError."""
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[1] != 160 or a.dtype.kind not in "iu":
        raise ValueError(f"background of shape {a.shape} and dtype {a.dtype}, not rows x 160 colours")
    return np.ascontiguousarray(a, np.uint8)


class FeatureSet:
    """Base: ``n_features``, ``active(obs)``, ``reference(obs)``, ``header()`` (what a weights file records)."""

    name = "features"
    n_features = 0

    def active(self, obs) -> np.ndarray:
        raise NotImplementedError

    def reference(self, obs) -> np.ndarray:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-episode state (DISCO's tracked instances)."""

    def header(self) -> dict:
        return {"features": self.name, "n_features": int(self.n_features)}

    def save_arrays(self) -> dict:
        """Arrays a weights file keeps beside the header (a background, DISCO's classes, Blob-PROST's slots)."""
        return {}

    def load_arrays(self, arrays, header: dict) -> None:
        """Take back what ``save_arrays`` wrote; raises ValueError, changing nothing, on arrays that do not fit."""


@njit(cache=True, nogil=True)
def _hist_add(counts, screen):
    h, w = screen.shape
    for y in range(h):
        for x in range(w):
            counts[y * w + x, np.int64(screen[y, x]) >> 1] += 1


@njit(cache=True, nogil=True)
def _hist_mode(counts, out):
    # ties go to the lowest colour, which the numpy reference (argmax) also does
    for p in range(counts.shape[0]):
        best = 0
        for c in range(1, counts.shape[1]):
            if counts[p, c] > counts[p, best]:
                best = c
        out[p] = best << 1


class Background:
    """ALE 2013's histogram background: the most frequent colour of each pixel over sampled screens."""

    def __init__(self, height: int, width: int = 160):
        self.shape = (height, width)
        self.counts = np.zeros((height * width, 128), np.int32)
        self.n = 0

    def add(self, screen: np.ndarray) -> None:
        _hist_add(self.counts, np.ascontiguousarray(screen, dtype=np.uint8))
        self.n += 1

    def image(self) -> np.ndarray:
        out = np.zeros(self.shape[0] * self.shape[1], np.uint8)
        _hist_mode(self.counts, out)
        return out.reshape(self.shape)


def background_reference(screens) -> np.ndarray:
    """Slow numpy version of :class:`Background` over a stack of screens."""
    s = np.asarray(screens) >> 1
    n, h, w = s.shape
    counts = np.zeros((h * w, 128), np.int64)
    flat = s.reshape(n, h * w)
    for i in range(n):
        counts[np.arange(h * w), flat[i]] += 1
    return (counts.argmax(axis=1).astype(np.uint8) << 1).reshape(h, w)


def sample_screens(env, n: int, seed: int = 0, frames_per_action: int = 5):
    """Yield ``n`` screens from uniformly random play (the paper starts from a human trajectory prefix;
    we have none, so random play from reset — a documented departure). The env is restored afterwards."""
    saved = env.clone_state(include_rng=True)
    rng = np.random.default_rng(seed)
    acts = env.action_set()
    try:
        env.reset()
        for _ in range(n):
            env.act_frames(int(acts[rng.integers(len(acts))]), frames_per_action)
            if env.game_over():
                env.reset()
            yield env.screen()
    finally:
        env.restore_state(saved, whole=True)


def estimate_background(env, n: int = 18_000, seed: int = 0) -> np.ndarray:
    """Background from ``n`` sampled screens (paper: 18 000)."""
    bg = None
    for s in sample_screens(env, n, seed):
        if bg is None:
            bg = Background(s.shape[0], s.shape[1])
        bg.add(s)
    return bg.image()


def tri_index(i: int, j: int, n: int) -> int:
    """Compact index of the unordered pair i < j among n items: row-major over the upper triangle."""
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


def make(name: str, env=None, *, seed: int = 0, background=None, n_samples: int = 18_000, **kw) -> FeatureSet:
    """A feature set by name; screen sets estimate a background from ``n_samples`` screens of ``env``."""
    name = name.lower()
    if name == "ram":
        from .ram import RamFeatures
        return RamFeatures()
    if name == "lsh":
        from .lsh import LshFeatures
        h = env.screen().shape[0] if env is not None else 210
        return LshFeatures(height=h, seed=seed, **kw)
    if name == "blobprost":
        from .blobprost import BlobProstFeatures
        return BlobProstFeatures(**kw)  # no background: Blob-PROST keeps every pixel
    if background is None:
        if env is None:
            raise ValueError(f"feature set {name!r} needs an env (to sample a background) or a background")
        background = estimate_background(env, n_samples, seed)
    if name == "basic":
        from .basic import BasicFeatures
        return BasicFeatures(background)
    if name == "bass":
        from .bass import BassFeatures
        return BassFeatures(background)
    if name == "disco":
        from .disco import DiscoFeatures
        return DiscoFeatures.discover(env, background, n_samples=2 * n_samples, seed=seed, **kw)
    raise ValueError(f"unknown feature set {name!r}")
