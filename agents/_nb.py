"""numba for agent kernels: ``njit(cache=True, nogil=True)`` with the runtime on (agent kernels allocate
their outputs, unlike the emulator's). Importing engine._jit first puts the cache where the engine's is."""
from engine import _jit  # noqa: F401  (chooses NUMBA_CACHE_DIR)
from numba import njit  # noqa: E402,F401
