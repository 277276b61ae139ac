"""Image preprocessing for the vector environment, compiled and in place: the max of two frames, an
area-average resize and a ring of stacked frames (the frames' palette lookups are ``observe``'s).

The resize reproduces OpenCV's ``cv::resize(..., INTER_AREA)`` for shrinking (what ale-py's vector
environment runs): each output pixel is the mean of the source area it covers, with fractional weights at
the area's edges. The weights are computed in double precision and stored as C floats, rows are summed
in single precision in the same order, and the result is rounded half to even (``cvRound``). When both
scale factors are whole numbers OpenCV takes its integer path (sum the block, then scale), and so do we.

Grey frames (ale-py's default) take a faster route to the same sums (:func:`resize_grey`): the frame is
transposed so that each source column is contiguous, the horizontal pass then runs down whole columns (one
vector operation covers eight rows), and its result is transposed back so that the vertical pass runs along
whole rows. Row by row, the horizontal pass gathers three pixels per output and cost most of a 60 µs
resize; columns make it about 5 µs, and the transposes (8x8 byte tiles in 64-bit words) cost less than
that saved. Every sum is still taken in the table's order, so the result is bit for bit the same.
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

    @property
    def grey_columns(self) -> bool:
        """Whether :func:`resize_grey` runs this resize (one channel, OpenCV's fractional path)."""
        return self.shape[4] == 1 and not self.block

    def scratch(self, n: int) -> np.ndarray:
        """Per-environment single-precision work space: a horizontal pass and a running sum, or for
        :func:`resize_grey` the transposed frame, the horizontal pass by columns and by rows, and a sum."""
        src_h, src_w, _, dst_w, cn = self.shape
        size = 2 * dst_w * cn
        if self.grey_columns:
            stride = _column_stride(src_h)
            size = 2 * dst_w * stride + dst_w + (stride * src_w + 3) // 4
        return np.zeros((n, size), dtype=np.float32)


@jit
def _round_u8(v):
    """``cvRound`` saturated to 0..255 (half to even), without branches, so row loops stay vectorised."""
    r = np.rint(v)
    r = r if r > np.float32(0) else np.float32(0)   # selects, not Python's min/max (a branch each)
    return np.int32(r if r < np.float32(255) else np.float32(255))


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
def _column_stride(src_h):
    """Rows per transposed column: the height rounded up to whole 8x8 tiles."""
    return (src_h + 7) // 8 * 8


_M32 = np.uint64(0x00000000FFFFFFFF)
_M16 = np.uint64(0x0000FFFF0000FFFF)
_M8 = np.uint64(0x00FF00FF00FF00FF)


@jit(inline="always")
def _swap_bytes(a, b, shift, mask):
    """Exchange ``a``'s bytes above ``shift`` (under ``mask``) with ``b``'s below it."""
    t = ((a >> np.uint64(shift)) ^ b) & mask
    return a ^ (t << np.uint64(shift)), b ^ t


@jit
def _to_columns(src, src_h, src_w, cols, stride):
    """``cols[x*stride + r] = src[r*src_w + x]``. Whole 8x8 tiles (``src_w`` is a multiple of 8): eight
    rows' words in, three rounds of exchanges (4x4, 2x2, 1x1 blocks), eight columns' words out. Indices
    are unsigned: signed ones carry numba's negative-index fix-up into every load and store."""
    words = src[:src_h // 8 * 8 * src_w].view(np.uint64)
    out = cols.view(np.uint64)
    wpr = np.uint64(src_w // 8)
    cw = np.uint64(stride // 8)
    w2, w3, w4, w5, w6, w7 = 2 * wpr, 3 * wpr, 4 * wpr, 5 * wpr, 6 * wpr, 7 * wpr
    c2, c3, c4, c5, c6, c7 = 2 * cw, 3 * cw, 4 * cw, 5 * cw, 6 * cw, 7 * cw
    for rb in range(np.uint64(src_h // 8)):
        for xb in range(wpr):
            i = rb * np.uint64(8) * wpr + xb
            a0, a1, a2, a3 = words[i], words[i + wpr], words[i + w2], words[i + w3]
            a4, a5, a6, a7 = words[i + w4], words[i + w5], words[i + w6], words[i + w7]
            a0, a4 = _swap_bytes(a0, a4, 32, _M32)
            a1, a5 = _swap_bytes(a1, a5, 32, _M32)
            a2, a6 = _swap_bytes(a2, a6, 32, _M32)
            a3, a7 = _swap_bytes(a3, a7, 32, _M32)
            a0, a2 = _swap_bytes(a0, a2, 16, _M16)
            a1, a3 = _swap_bytes(a1, a3, 16, _M16)
            a4, a6 = _swap_bytes(a4, a6, 16, _M16)
            a5, a7 = _swap_bytes(a5, a7, 16, _M16)
            a0, a1 = _swap_bytes(a0, a1, 8, _M8)
            a2, a3 = _swap_bytes(a2, a3, 8, _M8)
            a4, a5 = _swap_bytes(a4, a5, 8, _M8)
            a6, a7 = _swap_bytes(a6, a7, 8, _M8)
            o = xb * np.uint64(8) * cw + rb
            out[o], out[o + cw], out[o + c2], out[o + c3] = a0, a1, a2, a3
            out[o + c4], out[o + c5], out[o + c6], out[o + c7] = a4, a5, a6, a7
    for r in range(src_h // 8 * 8, src_h):
        for x in range(src_w):
            cols[x * stride + r] = src[r * src_w + x]


@jit
def _horizontal_columns(cols, stride, src_h, xs, xw, by_col):
    """The horizontal pass down whole columns: ``by_col[d*stride + r]`` for every source row ``r``."""
    for d in range(xs.shape[0]):
        out = by_col[d * stride:d * stride + src_h]
        c = cols[xs[d, 0] * stride:xs[d, 0] * stride + src_h]
        w = xw[d, 0]
        for r in range(src_h):
            out[r] = np.float32(c[r]) * w
        for k in range(1, xs.shape[1]):
            c = cols[xs[d, k] * stride:xs[d, k] * stride + src_h]
            w = xw[d, k]
            for r in range(src_h):
                out[r] = out[r] + np.float32(c[r]) * w


@jit
def _to_rows(by_col, stride, src_h, dst_w, by_row):
    """``by_row[r*dst_w + d] = by_col[d*stride + r]``, eight columns at a time (each row's eight stores
    are one run), with unsigned indices (as in :func:`_to_columns`)."""
    us = np.uint64(stride)
    uw = np.uint64(dst_w)
    d0 = 0
    while d0 + 8 <= dst_w:
        base = np.uint64(d0)
        for r in range(np.uint64(src_h)):
            o = r * uw + base
            c = base * us + r
            for j in range(np.uint64(8)):
                by_row[o + j] = by_col[c + j * us]
        d0 += 8
    for d in range(d0, dst_w):
        for r in range(src_h):
            by_row[r * dst_w + d] = by_col[d * stride + r]


@jit
def _vertical_rows(by_row, dst_w, ys, yw, acc, dst):
    """Each output row: its source rows' horizontal passes weighted and summed in the table's order, then
    rounded half to even."""
    for y in range(ys.shape[0]):
        h = by_row[ys[y, 0] * dst_w:ys[y, 0] * dst_w + dst_w]
        beta = yw[y, 0]
        for dx in range(dst_w):
            acc[dx] = beta * h[dx]
        for k in range(1, ys.shape[1]):
            beta = yw[y, k]
            if beta == 0:
                break  # padding
            h = by_row[ys[y, k] * dst_w:ys[y, k] * dst_w + dst_w]
            for dx in range(dst_w):
                acc[dx] = acc[dx] + beta * h[dx]
        out = dst[y * dst_w:y * dst_w + dst_w]
        for dx in range(dst_w):
            out[dx] = _round_u8(acc[dx])


@jit
def resize_grey(src, dst, rp, xs, xw, ys, yw, scratch):
    """:func:`resize_area` for one channel on OpenCV's fractional path (``Resize.grey_columns``), by
    columns then rows; ``scratch`` as ``Resize.scratch`` sizes it."""
    src_h, src_w, dst_w = rp[0], rp[1], rp[3]
    stride = _column_stride(src_h)
    by_col = scratch[:dst_w * stride]
    by_row = scratch[dst_w * stride:2 * dst_w * stride]
    acc = scratch[2 * dst_w * stride:2 * dst_w * stride + dst_w]
    cols = scratch[2 * dst_w * stride + dst_w:].view(np.uint8)
    _to_columns(src, src_h, src_w, cols, stride)
    _horizontal_columns(cols, stride, src_h, xs, xw, by_col)
    _to_rows(by_col, stride, src_h, dst_w, by_row)
    _vertical_rows(by_row, dst_w, ys, yw, acc, dst)


@jit
def resize_frame(src, dst, rp, xs, xw, ys, yw, scratch):
    """The resize a vector environment runs: :func:`resize_grey` where it applies, else
    :func:`resize_area`."""
    if rp[4] == 1 and not rp[5]:
        resize_grey(src, dst, rp, xs, xw, ys, yw, scratch)
    else:
        resize_area(src, dst, rp, xs, xw, ys, yw, scratch)


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
def max_into(dst, src):
    """``dst = max(dst, src)`` element by element. Written as a select, which compiles to vector max
    instructions; Python's ``max`` compiles to a branch per byte, which two frames that differ here and
    there mispredict: 47 µs a frame instead of under 2."""
    for k in range(dst.shape[0]):
        d = dst[k]
        v = src[k]
        dst[k] = v if v > d else d


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
