"""RAM (paper A.5): the 1 024 RAM bits (bit b of byte i is feature 8*i + b) plus the AND of every pair,
indexed compactly after them (``1024 + tri_index(i, j, 1024)``): 524 800 features."""
from __future__ import annotations

import numpy as np

from .._nb import njit
from . import FeatureSet, tri_index
from .bass import with_pairs

N_BITS = 1024


@njit(cache=True, nogil=True)
def ram_bits(ram):
    out = np.empty(N_BITS, np.int64)
    n = 0
    for i in range(128):
        v = np.int64(ram[i])
        for b in range(8):
            if (v >> b) & 1:
                out[n] = 8 * i + b
                n += 1
    return out[:n]


class RamFeatures(FeatureSet):
    name = "ram"
    n_features = N_BITS + N_BITS * (N_BITS - 1) // 2

    def active(self, obs) -> np.ndarray:
        return with_pairs(ram_bits(np.ascontiguousarray(obs.ram, np.uint8)), N_BITS)

    def reference(self, obs) -> np.ndarray:
        bits = [8 * i + b for i in range(128) for b in range(8) if (int(obs.ram[i]) >> b) & 1]
        pairs = [N_BITS + tri_index(bits[a], bits[c], N_BITS) for a in range(len(bits))
                 for c in range(a + 1, len(bits))]
        return np.array(bits + pairs, np.int64)
