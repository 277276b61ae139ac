"""numba for agent kernels: ``njit(cache=True, nogil=True)`` with the runtime on (agent kernels allocate
their outputs, unlike the emulator's). Their compiled code is cached beside the emulator's by the engine's
locator, stamped by the agent's file and the engine files it imports."""
import numba
import numpy as np

from arcade_lab.engine import _jit  # installs the cache locator before anything is decorated

# Fibonacci hashing (2**64 / golden ratio) for the agents' open-addressing tables: SARSA's trace table and
# Blob-PROST's id -> slot map take the product's high bits as the bucket.
HASH_MUL = np.uint64(0x9E3779B97F4A7C15)


def njit(*args, **kw):
    if args and callable(args[0]) and not kw:
        return _jit.portable(numba.njit(args[0]))
    return lambda fn: _jit.portable(numba.njit(*args, **kw)(fn))
