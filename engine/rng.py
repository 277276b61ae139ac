"""std::mt19937 over a slice of an int64 array (ALE's system and environment RNGs)."""
from __future__ import annotations

import numpy as np

from ._jit import jit

MT_N = 624
MT_M = 397
U32 = 0xFFFFFFFF


@jit
def mt_seed(buf, idx, base, seed):
    """Seed the generator whose 624 words start at ``buf[base]``; its position lives in ``buf[idx]``."""
    buf[base] = seed & U32
    for i in range(1, MT_N):
        prev = buf[base + i - 1]
        buf[base + i] = (1812433253 * (prev ^ (prev >> 30)) + i) & U32
    buf[idx] = MT_N


@jit
def _mt_twist(buf, base):
    for i in range(MT_N):
        y = (buf[base + i] & 0x80000000) | (buf[base + (i + 1) % MT_N] & 0x7FFFFFFF)
        v = buf[base + (i + MT_M) % MT_N] ^ (y >> 1)
        if y & 1:
            v ^= 0x9908B0DF
        buf[base + i] = v


@jit
def mt_next(buf, idx, base):
    """Next 32-bit output (as a non-negative int)."""
    if buf[idx] >= MT_N:
        _mt_twist(buf, base)
        buf[idx] = 0
    y = buf[base + buf[idx]]
    buf[idx] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & U32


@jit
def mt_next_double(buf, idx, base):
    return mt_next(buf, idx, base) / 4294967296.0


def new_rng(seed: int) -> np.ndarray:
    """A standalone generator: word 0 is the position, words 1..624 the state."""
    buf = np.zeros(1 + MT_N, dtype=np.int64)
    mt_seed(buf, 0, 1, seed)
    return buf
