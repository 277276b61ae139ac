"""Image preprocessing for the vector environment, compiled and in place: palette lookups into a raw frame,
the max of two frames, an area-average resize and a ring of stacked frames.

The resize reproduces OpenCV's ``cv::resize(..., INTER_AREA)`` for shrinking (what ale-py's vector
environment runs): each output pixel is the mean of the source area it covers, with fractional weights at
the area's edges. The weights are computed in double precision and stored as C floats, rows are summed
in single precision in the same order, and the result is rounded half to even (``cvRound``). When both
scale factors are whole numbers OpenCV takes its integer path (sum the block, then scale), and so do we.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import jit


def area_table(ssize: int, dsize: int, cn: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per source cell of one axis: (destination index, source index, weight), destination-major.
    ``cn`` interleaved channels multiply both indices (weights apply to whole pixels)."""
    scale = 1.0 / (dsize / ssize)  # OpenCV keeps the inverse scale and inverts it
    di, si, alpha = [], [], []
    for dx in range(dsize):
        fsx1 = dx * scale
        fsx2 = fsx1 + scale
        cell = min(scale, ssize - fsx1)
        sx1, sx2 = math.ceil(fsx1), math.floor(fsx2)
        sx2 = min(sx2, ssize - 1)
        sx1 = min(sx1, sx2)
        if sx1 - fsx1 > 1e-3:
            di.append(dx * cn), si.append((sx1 - 1) * cn), alpha.append((sx1 - fsx1) / cell)
        for sx in range(sx1, sx2):
            di.append(dx * cn), si.append(sx * cn), alpha.append(1.0 / cell)
        if fsx2 - sx2 > 1e-3:
            di.append(dx * cn), si.append(sx2 * cn), alpha.append(min(min(fsx2 - sx2, 1.0), cell) / cell)
    return (np.array(di, dtype=np.int64), np.array(si, dtype=np.int64), np.array(alpha, dtype=np.float32))


def dense_table(ssize: int, dsize: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`area_table` as one row per destination cell: source cell indices and weights, padded to the
    widest row with weight 0 (adding 0.0 to a positive float32 sum leaves it as it is, so padded rows sum
    exactly as the unpadded ones)."""
    di, si, alpha = area_table(ssize, dsize, 1)
    width = int(np.bincount(di, minlength=dsize).max())
    idx = np.zeros((dsize, width), dtype=np.int64)
    w = np.zeros((dsize, width), dtype=np.float32)
    fill = np.zeros(dsize, dtype=np.int64)
    for d, sx, a in zip(di.tolist(), si.tolist(), alpha.tolist()):
        idx[d, fill[d]] = sx
        w[d, fill[d]] = a
        fill[d] += 1
    for d in range(dsize):
        idx[d, fill[d]:] = idx[d, fill[d] - 1]
    return idx, w


class Resize:
    """The tables for one (src_h, src_w) -> (dst_h, dst_w) shrink of ``cn``-channel frames."""

    def __init__(self, src_h: int, src_w: int, dst_h: int, dst_w: int, cn: int):
        if not (0 < dst_h <= src_h and 0 < dst_w <= src_w):
            raise ValueError(f"img_height and img_width must be in 1..{src_h} and 1..{src_w} (area resize "
                             f"shrinks frames; got {dst_h}x{dst_w})")
        self.shape = (src_h, src_w, dst_h, dst_w, cn)
        sy, sx = src_h / dst_h, src_w / dst_w
        # OpenCV's integer path: both factors whole numbers (block sums, then one multiply)
        self.block = (abs(sy - round(sy)) < 2.2e-16 and abs(sx - round(sx)) < 2.2e-16)
        self.by, self.bx = int(round(sy)), int(round(sx))
        self.xs, self.xw = dense_table(src_w, dst_w)
        self.ys, self.yw = dense_table(src_h, dst_h)
        self.params = np.array([src_h, src_w, dst_h, dst_w, cn, int(self.block), self.by, self.bx], np.int64)

    def scratch(self, n: int) -> np.ndarray:
        """Per-environment single-precision rows (a horizontal pass and a running sum)."""
        return np.zeros((n, 2 * self.shape[3] * self.shape[4]), dtype=np.float32)


@jit
def _round_u8(v):
    r = np.rint(v)
    if r < 0:
        return 0
    if r > 255:
        return 255
    return np.int64(r)


@jit
def _horizontal(src, base, cn, xs, xw, buf):
    """One source row (starting at ``base``) shrunk along x into ``buf``, each output summed in the
    table's order."""
    width = xs.shape[1]
    if cn == 1:  # the common grey frames: no channel stride
        for d in range(xs.shape[0]):
            v = np.float32(0)
            for k in range(width):
                v = v + np.float32(src[base + xs[d, k]]) * xw[d, k]
            buf[d] = v
        return
    for d in range(xs.shape[0]):
        for c in range(cn):
            v = np.float32(0)
            for k in range(width):
                v = v + np.float32(src[base + xs[d, k] * cn + c]) * xw[d, k]
            buf[d * cn + c] = v


@jit
def resize_area(src, dst, rp, xs, xw, ys, yw, scratch):
    """``src`` (flat H*W*cn) shrunk into ``dst`` (flat h*w*cn); ``scratch``: 2*w*cn float32. Each output
    row is the weighted sum of its source rows' horizontal passes, in the table's order; a source row
    shared by two output rows is passed once."""
    src_w = rp[1]
    cn = rp[4]
    row = rp[3] * cn
    if rp[5]:
        _resize_blocks(src, dst, src_w, rp[2], rp[3], cn, rp[6], rp[7])
        return
    buf = scratch[:row]
    acc = scratch[row:2 * row]
    src_row = src_w * cn
    in_buf = -1
    for y in range(ys.shape[0]):
        for k in range(ys.shape[1]):
            beta = yw[y, k]
            if beta == 0 and k > 0:
                break  # padding
            sy = ys[y, k]
            if sy != in_buf:
                _horizontal(src, sy * src_row, cn, xs, xw, buf)
                in_buf = sy
            if k == 0:
                for dx in range(row):
                    acc[dx] = beta * buf[dx]
            else:
                for dx in range(row):
                    acc[dx] = acc[dx] + beta * buf[dx]
        out = y * row
        for dx in range(row):
            dst[out + dx] = _round_u8(acc[dx])


@jit
def _resize_blocks(src, dst, src_w, dst_h, dst_w, cn, by, bx):
    scale = np.float32(1.0) / np.float32(by * bx)
    half_two = by == 2 and bx == 2  # OpenCV's vector code for 2x2 rounds halves up
    for y in range(dst_h):
        for x in range(dst_w):
            for c in range(cn):
                total = 0
                for yy in range(by):
                    base = ((y * by + yy) * src_w + x * bx) * cn + c
                    for xx in range(bx):
                        total += np.int64(src[base + xx * cn])
                if half_two:
                    dst[(y * dst_w + x) * cn + c] = (total + 2) >> 2
                else:
                    dst[(y * dst_w + x) * cn + c] = _round_u8(np.float32(total) * scale)


@jit
def palette_into(src, n, gray, gray_lut, rgb_lut, dst):
    """The first ``n`` palette indices of ``src`` as grey levels or RGB triples into ``dst``."""
    if gray:
        for k in range(n):
            dst[k] = gray_lut[src[k]]
    else:
        for k in range(n):
            c = src[k]
            dst[3 * k] = rgb_lut[c, 0]
            dst[3 * k + 1] = rgb_lut[c, 1]
            dst[3 * k + 2] = rgb_lut[c, 2]


@jit
def max_into(dst, src):
    """``dst = max(dst, src)`` element by element."""
    for k in range(dst.shape[0]):
        if src[k] > dst[k]:
            dst[k] = src[k]


@jit
def linearize(stack, head, dst):
    """A ring of frames (``stack[k]``, the oldest at ``head``) into ``dst`` oldest first."""
    n = stack.shape[0]
    size = stack.shape[1]
    for i in range(n):
        src = stack[(head + i) % n]
        off = i * size
        for k in range(size):
            dst[off + k] = src[k]
