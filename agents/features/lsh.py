"""LSH (paper A.4): the screen as a bit vector, 7 bits per pixel (bit k of pixel p is bit 7*p + k, p in
row-major order, the pixel's 7-bit colour ``byte >> 1``), hashed by l = 2 000 sparse random probes of
k = 1 000 positions each. Probe i sums a random weight in 1..M over its positions whose screen bit is set;
the sum mod M (M = 50) picks one of M features for that probe. Exactly l of the l*M = 100 000 features are
active on every screen; screens that differ in a few pixels share most of them.
"""
from __future__ import annotations

import numpy as np

from .._nb import njit
from . import FeatureSet

N_PROBES = 2000
PROBE_BITS = 1000
M = 50
BITS_PER_PIXEL = 7


@njit(cache=True, nogil=True)
def lsh_hash(flat, positions, weights, m, bits):
    """``bits`` is a scratch of len(flat)*7 bytes: unpacking once makes the 2 M probe reads branch-free and
    local (probe positions are sorted at construction)."""
    for p in range(flat.shape[0]):
        c = np.int64(flat[p]) >> 1
        for k in range(BITS_PER_PIXEL):
            bits[p * BITS_PER_PIXEL + k] = (c >> k) & 1
    l, k = positions.shape
    out = np.empty(l, np.int64)
    for i in range(l):
        acc = 0
        for j in range(k):
            acc += np.int64(bits[positions[i, j]]) * np.int64(weights[i, j])
        out[i] = i * m + acc % m
    return out


class LshFeatures(FeatureSet):
    name = "lsh"

    def __init__(self, height: int = 210, seed: int = 0, n_probes: int = N_PROBES, probe_bits: int = PROBE_BITS,
                 m: int = M):
        self.height, self.seed, self.m = int(height), int(seed), int(m)
        n_bits = self.height * 160 * BITS_PER_PIXEL
        rng = np.random.default_rng([seed, 0x15A])
        # each probe's positions are distinct (a sparse 0/1 vector with exactly k ones)
        pos = np.stack([rng.choice(n_bits, probe_bits, replace=False) for _ in range(n_probes)])
        w = rng.integers(1, m + 1, size=(n_probes, probe_bits))
        order = np.argsort(pos, axis=1)  # sorted reads; the hash is a sum, so order does not matter
        self.positions = np.take_along_axis(pos, order, axis=1).astype(np.int32)
        self.weights = np.take_along_axis(w, order, axis=1).astype(np.uint8 if m < 256 else np.int64)
        self._bits = np.zeros(n_bits, np.uint8)
        self.n_features = n_probes * m

    def header(self) -> dict:
        return {**super().header(), "height": self.height, "seed": self.seed, "m": self.m,
                "n_probes": int(self.positions.shape[0]), "probe_bits": int(self.positions.shape[1])}

    def active(self, obs) -> np.ndarray:
        return lsh_hash(np.ascontiguousarray(obs.screen, np.uint8).ravel(), self.positions, self.weights, self.m,
                        self._bits)

    def reference(self, obs) -> np.ndarray:
        bits = np.unpackbits((obs.screen.ravel() >> 1)[:, None].astype(np.uint8), axis=1,
                             bitorder="little")[:, :BITS_PER_PIXEL].ravel()
        out = []
        for i in range(self.positions.shape[0]):
            acc = int((bits[self.positions[i]].astype(np.int64) * self.weights[i]).sum())
            out.append(i * self.m + acc % self.m)
        return np.array(out, np.int64)
