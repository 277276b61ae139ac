"""numba for agent kernels: ``njit(cache=True, nogil=True)`` with the runtime on (agent kernels allocate
their outputs, unlike the emulator's).

numba fixes a function's cache folder when it is decorated, so the folder is switched to the agents' one
(see ``engine._jit.agents_cache_dir``) around each decoration."""
import numba

from engine import _jit

_AGENT_CACHE = _jit.agents_cache_dir()


def njit(*args, **kw):
    def deco(fn):
        old = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = _AGENT_CACHE
        try:
            return numba.njit(**kw)(fn)
        finally:
            numba.config.CACHE_DIR = old

    if args and callable(args[0]) and not kw:
        return deco(args[0])
    return deco
