"""BASS (paper A.1): Basic on the 8 SECAM colours (1 792 singles) plus the AND of every pair of singles.

Compact pair index: singles i < j map to ``1792 + i*(2*1792 - i - 1)/2 + (j - i - 1)`` (row-major upper
triangle, see ``features.tri_index``), so the whole set has 1 792 + 1 792*1 791/2 = 1 606 528 features and
no index is wasted.
"""
from __future__ import annotations

import numpy as np

from .._nb import njit
from .basic import BasicFeatures, tile_colours, tile_colours_reference
from . import tri_index


@njit(cache=True, nogil=True)
def with_pairs(singles, n_singles):
    """Singles (sorted) followed by their pairwise conjunctions in compact triangular indexing."""
    k = singles.shape[0]
    out = np.empty(k + k * (k - 1) // 2, np.int64)
    out[:k] = singles
    n = k
    for a in range(k):
        i = singles[a]
        base = n_singles + i * (2 * n_singles - i - 1) // 2 - i - 1
        for b in range(a + 1, k):
            out[n] = base + singles[b]
            n += 1
    return out


class BassFeatures(BasicFeatures):
    name = "bass"
    secam = True

    def __init__(self, background):
        super().__init__(background)
        ns = self.n_singles
        self.n_features = ns + ns * (ns - 1) // 2

    def active(self, obs) -> np.ndarray:
        return with_pairs(tile_colours(self._screen(obs), self.background, True, self._mark), self.n_singles)

    def reference(self, obs) -> np.ndarray:
        s = [int(v) for v in tile_colours_reference(obs.screen, self.background, True)]
        pairs = [self.n_singles + tri_index(s[a], s[b], self.n_singles)
                 for a in range(len(s)) for b in range(a + 1, len(s))]
        return np.array(s + pairs, np.int64)
