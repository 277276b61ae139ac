"""Observations written straight into the caller's buffer: one pass over the frame's palette indices, no
temporaries. A NumPy palette lookup (``palette[screen]``) builds an index array and a fresh result every
frame, which cost more than emulating the frame itself; these kernels are what ``Env.screen_rgb`` and
``Env.screen_grayscale`` (and ALE's ``getScreenRGB(out)``) run."""
from __future__ import annotations

import math
import sys

import numpy as np

from ._jit import jit


# Frames are mostly runs of one colour (playfield, background), so both kernels take a group of pixels at
# a time as one word (eight for RGB, four for grey) and reuse the previous group's output when the word
# repeats. Words are little-endian (the first pixel in the low byte), hence the plain loop elsewhere.
_WORDS = sys.byteorder == "little"


@jit
def _rgb_word(palette, c):
    """Colour ``c`` as the word 0x00BBGGRR."""
    return np.uint32(palette[c, 0]) | (np.uint32(palette[c, 1]) << 8) | (np.uint32(palette[c, 2]) << 16)


@jit
def rgb_into(src, palette, dst):
    """``dst[3*i:3*i+3] = palette[src[i]]`` for every pixel (src: palette indices, dst: flat RGB).

    Eight pixels at a time, as three 64-bit words: 24 bytes, RGBRGBRG BRGBRGBR GBRGBRGB (an RGB frame is
    100 KB, and the kernel is bound by its stores: 32-bit ones took twice as many)."""
    n8 = src.shape[0] // 8 if _WORDS else 0
    if n8:
        words, out = src[:8 * n8].view(np.uint64), dst[:24 * n8].view(np.uint64)
        prev = words[0] ^ np.uint64(1)  # anything but the first word
        w0 = w1 = w2 = np.uint64(0)
        for k in range(n8):
            q = words[k]
            if q != prev:
                lo, hi = np.uint32(q & np.uint64(0xFFFFFFFF)), np.uint32(q >> np.uint64(32))
                p0, p1 = np.uint64(_rgb_word(palette, lo & 0xFF)), np.uint64(_rgb_word(palette, (lo >> 8) & 0xFF))
                p2, p3 = np.uint64(_rgb_word(palette, (lo >> 16) & 0xFF)), np.uint64(_rgb_word(palette, lo >> 24))
                p4, p5 = np.uint64(_rgb_word(palette, hi & 0xFF)), np.uint64(_rgb_word(palette, (hi >> 8) & 0xFF))
                p6, p7 = np.uint64(_rgb_word(palette, (hi >> 16) & 0xFF)), np.uint64(_rgb_word(palette, hi >> 24))
                w0 = p0 | (p1 << np.uint64(24)) | (p2 << np.uint64(48))
                w1 = (p2 >> np.uint64(16)) | (p3 << np.uint64(8)) | (p4 << np.uint64(32)) | (p5 << np.uint64(56))
                w2 = (p5 >> np.uint64(8)) | (p6 << np.uint64(16)) | (p7 << np.uint64(40))
                prev = q
            out[3 * k], out[3 * k + 1], out[3 * k + 2] = w0, w1, w2
    for i in range(8 * n8, src.shape[0]):
        c = src[i]
        j = 3 * i
        dst[j] = palette[c, 0]
        dst[j + 1] = palette[c, 1]
        dst[j + 2] = palette[c, 2]


@jit
def lut_into(src, lut, dst):
    """``dst[i] = lut[src[i]]`` (grayscale from palette indices)."""
    n4 = src.shape[0] // 4 if _WORDS else 0
    if n4:
        words, out = src[:4 * n4].view(np.uint32), dst[:4 * n4].view(np.uint32)
        prev = words[0] ^ np.uint32(1)
        w = np.uint32(0)
        for k in range(n4):
            q = words[k]
            if q != prev:
                w = (lut[q & 0xFF] | (np.uint32(lut[(q >> 8) & 0xFF]) << 8)
                     | (np.uint32(lut[(q >> 16) & 0xFF]) << 16) | (np.uint32(lut[q >> 24]) << 24))
                prev = q
            out[k] = w
    for i in range(4 * n4, src.shape[0]):
        dst[i] = lut[src[i]]


def _target(out: np.ndarray | None, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
    """(the array to return, a flat C-contiguous uint8 array to write, whether to copy it into the first
    afterwards): the caller's buffer is written in place when it can be, else through a scratch array."""
    n = math.prod(shape)  # (np.prod takes microseconds on a tuple)
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
