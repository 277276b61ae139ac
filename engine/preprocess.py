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
resize. The transposes move 8x8 tiles with one vector shuffle each (``tiles``); done with 64-bit word
exchanges and element by element they took 12 of the resize's 20 µs, as shuffles about 3 (210x160 to
84x84: 10–13 µs in all, where ``cv2.resize`` takes about 50 on the same machine). Every sum is still taken in
the table's order, so the result is bit for bit the same.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import jit
from .tiles import transpose8_f32, transpose8_u8


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


@jit
def _to_columns(src, src_h, src_w, cols, stride):
    """``cols[x*stride + r] = src[r*src_w + x]``: whole 8x8 tiles (``src_w`` is a multiple of 8) as one
    vector shuffle each (``tiles.transpose8_u8``), the rows of a last partial tile byte by byte."""
    full = src_h // 8 * 8
    for r0 in range(0, full, 8):
        for x0 in range(0, src_w, 8):
            transpose8_u8(src, r0 * src_w + x0, src_w, cols, x0 * stride + r0, stride)
    for r in range(full, src_h):
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
    """``by_row[r*dst_w + d] = by_col[d*stride + r]``: 8x8 tiles as one vector shuffle each
    (``tiles.transpose8_f32``), the rows and columns of partial tiles one by one."""
    d0 = 0
    while d0 + 8 <= dst_w:
        r0 = 0
        while r0 + 8 <= src_h:
            transpose8_f32(by_col, d0 * stride + r0, stride, by_row, r0 * dst_w + d0, dst_w)
            r0 += 8
        for r in range(r0, src_h):
            for j in range(8):
                by_row[r * dst_w + d0 + j] = by_col[(d0 + j) * stride + r]
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
