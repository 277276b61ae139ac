"""numba for agent kernels: ``njit(cache=True, nogil=True)`` with the runtime on (agent kernels allocate
their outputs, unlike the emulator's).

numba fixes a function's cache folder when it is decorated, so the folder is switched to the agents' one
(see ``arcade_lab.engine._jit.agents_cache_dir``) for each decoration."""
import numba
import numpy as np

from arcade_lab.engine import _jit

_AGENT_CACHE = _jit.agents_cache_dir()

# Fibonacci hashing (2**64 / golden ratio) for the agents' open-addressing tables: SARSA's trace table and
# Blob-PROST's id -> slot map take the product's high bits as the bucket.
HASH_MUL = np.uint64(0x9E3779B97F4A7C15)


def njit(*args, **kw):
    def deco(fn):
        with _jit.caching_into(_AGENT_CACHE):
            return numba.njit(**kw)(fn)

    if args and callable(args[0]) and not kw:
        return deco(args[0])
    return deco
