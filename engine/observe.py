"""Observations written straight into the caller's buffer: one pass over the frame's palette indices, no
temporaries. A NumPy palette lookup (``palette[screen]``) builds an index array and a fresh result every
frame, which cost more than emulating the frame itself; these kernels are what ``Env.screen_rgb`` and
``Env.screen_grayscale`` (and ALE's ``getScreenRGB(out)``) run."""
from __future__ import annotations

import numpy as np

from ._jit import jit


@jit
def rgb_into(src, palette, dst):
    """``dst[3*i:3*i+3] = palette[src[i]]`` for every pixel (src: palette indices, dst: flat RGB)."""
    for i in range(src.shape[0]):
        c = src[i]
        j = 3 * i
        dst[j] = palette[c, 0]
        dst[j + 1] = palette[c, 1]
        dst[j + 2] = palette[c, 2]


@jit
def lut_into(src, lut, dst):
    """``dst[i] = lut[src[i]]`` (grayscale from palette indices)."""
    for i in range(src.shape[0]):
        dst[i] = lut[src[i]]


def _target(out: np.ndarray | None, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
    """(the array to return, a flat C-contiguous uint8 array to write, whether to copy it into the first
    afterwards): the caller's buffer is written in place when it can be, else through a scratch array."""
    n = int(np.prod(shape))
    if out is None:
        res = np.empty(shape, np.uint8)
        return res, res.reshape(-1), False
    if out.size != n:
        raise ValueError(f"observation buffer has {out.size} elements, the screen needs {n} (shape {shape})")
    if out.dtype == np.uint8 and out.flags.c_contiguous and out.flags.writeable:
        return out, out.reshape(-1), False
    return out, np.empty(n, np.uint8), True


def _write(kernel, indices: np.ndarray, table: np.ndarray, out: np.ndarray | None, shape) -> np.ndarray:
    res, flat, copy = _target(out, shape)
    kernel(indices.reshape(-1), table, flat)
    if copy:
        np.copyto(res, flat.reshape(res.shape), casting="unsafe")
    return res


def screen_rgb(indices: np.ndarray, palette: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """RGB (H, 160, 3) of a (H, 160) palette-index screen, into ``out`` when given."""
    return _write(rgb_into, indices, palette, out, (*indices.shape, 3))


def screen_lut(indices: np.ndarray, lut: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``lut`` applied to a (H, 160) palette-index screen, into ``out`` when given."""
    return _write(lut_into, indices, lut, out, indices.shape)
