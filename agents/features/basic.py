"""Basic (paper A.2): background subtracted, 16 x 14 tiles, one feature per (tile, colour) present.

Index of (tile row ty, tile column tx, colour c): ``(ty * 16 + tx) * n_colours + c`` — 28 672 features
for the 128 NTSC colours. Rows map to tiles by ``y * 14 // height`` so non-210-line games still tile.
"""
from __future__ import annotations

import numpy as np

from .._nb import njit
from . import N_TILE_X, N_TILE_Y, TILE_W, FeatureSet, checked_background

N_COLOURS = 128


@njit(cache=True, nogil=True)
def tile_colours(screen, bg, secam, mark):
    """Sorted indices of the (tile, colour) pairs with at least one foreground pixel. ``mark`` is a
    zeroed scratch of n_features bytes, left zeroed."""
    h, w = screen.shape
    nc = 8 if secam else 128
    out = np.empty(N_TILE_X * N_TILE_Y * nc, np.int64)
    n = 0
    for y in range(h):
        ty = y * N_TILE_Y // h
        for x in range(w):
            p = np.int64(screen[y, x])
            if p == bg[y, x]:
                continue
            c = (p >> 1) & 7 if secam else p >> 1
            f = (ty * N_TILE_X + x // TILE_W) * nc + c
            if mark[f] == 0:
                mark[f] = 1
                out[n] = f
                n += 1
    for i in range(n):
        mark[out[i]] = 0
    return np.sort(out[:n])


def tile_colours_reference(screen, bg, secam: bool) -> np.ndarray:
    nc = 8 if secam else 128
    h, w = screen.shape
    feats = set()
    for y in range(h):
        for x in range(w):
            p = int(screen[y, x])
            if p != int(bg[y, x]):
                c = (p >> 1) & 7 if secam else p >> 1
                feats.add(((y * N_TILE_Y // h) * N_TILE_X + x // TILE_W) * nc + c)
    return np.array(sorted(feats), np.int64)


class BasicFeatures(FeatureSet):
    name = "basic"
    secam = False

    def __init__(self, background: np.ndarray):
        self.background = np.ascontiguousarray(background, np.uint8)
        nc = 8 if self.secam else N_COLOURS
        self.n_singles = N_TILE_X * N_TILE_Y * nc
        self.n_features = self.n_singles
        self._mark = np.zeros(self.n_singles, np.uint8)

    def save_arrays(self) -> dict:
        return {"background": self.background}

    def load_arrays(self, arrays, header: dict) -> None:
        if "background" in arrays:
            self.background = checked_background(arrays["background"])

    def _screen(self, obs):
        s = obs.screen
        if s.shape != self.background.shape:
            raise ValueError(f"screen {s.shape} does not match the background {self.background.shape}")
        return np.ascontiguousarray(s, np.uint8)

    def active(self, obs) -> np.ndarray:
        return tile_colours(self._screen(obs), self.background, self.secam, self._mark)

    def reference(self, obs) -> np.ndarray:
        return tile_colours_reference(obs.screen, self.background, self.secam)
