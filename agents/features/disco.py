"""DISCO (paper A.3), a compact but faithful version.

Pipeline: histogram background (shared with Basic) -> blobs = 8-connected regions of foreground pixels of
one colour -> classes discovered from sampled screens -> per frame, blobs matched to classes, instances
tracked frame to frame (a match moves at most 8 px per axis, else velocity 0) -> tile-coded features:

* absolute position of each instance, per class;
* position of every instance relative to every instance of another class, per class pair;
* velocity of every instance relative to every instance of another class, per class pair.

Tile coding: 8 tilings, 8 tiles per dimension (paper Appendix C), each tiling shifted by 1/8 of a tile, so a
tiling has 9 x 9 cells; all arithmetic is on integers so the compiled and reference paths agree exactly.
Simplifications (documented in docs/agents.md): a class is a blob shape signature (colour, width, height)
kept when it appears on >= 20% of the sampled screens (at most 10, most frequent first) and blobs match a
class within +-1 px of its width and height; similar classes are merged when they share a colour and
differ by at most 1 px (greedy, most frequent kept). Several instances of a class hitting the same cell
give one (binary) feature rather than an additive count.
"""
from __future__ import annotations

import numpy as np

from .._nb import njit
from . import FeatureSet, checked_background, sample_screens, tri_index

N_TILINGS = 8
GRID = 8
CELLS = (GRID + 1) * (GRID + 1)
MAX_CLASSES = 10
MAX_VELOCITY = 8
MIN_FREQUENCY = 0.2
SIZE_TOLERANCE = 1
MAX_BLOB_SIZE = 64     # wider/taller regions are scenery the background missed, not objects
VEL_RANGE = 2 * MAX_VELOCITY  # relative velocities lie in [-16, 16]

# blob record columns
B_COLOUR, B_X0, B_Y0, B_X1, B_Y1, B_CX, B_CY, B_N = range(8)
N_BLOB_COLS = 8


@njit(cache=True, nogil=True)
def extract_blobs(screen, bg):
    """8-connected same-colour foreground regions: rows of (colour, x0, y0, x1, y1, cx, cy, pixels) in
    raster order of their first pixel; cx, cy = bounding-box centre."""
    h, w = screen.shape
    label = np.full(h * w, -1, np.int64)
    stack = np.empty(h * w, np.int64)
    blobs = np.empty((h * w, N_BLOB_COLS), np.int64)
    nb = 0
    for start in range(h * w):
        y0, x0 = start // w, start % w
        if label[start] >= 0 or screen[y0, x0] == bg[y0, x0]:
            continue
        c = screen[y0, x0]
        label[start] = nb
        sp = 1
        stack[0] = start
        xmin, xmax, ymin, ymax, n = x0, x0, y0, y0, 0
        while sp > 0:
            sp -= 1
            p = stack[sp]
            py, px = p // w, p % w
            n += 1
            xmin = min(xmin, px)
            xmax = max(xmax, px)
            ymin = min(ymin, py)
            ymax = max(ymax, py)
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    qy, qx = py + dy, px + dx
                    if 0 <= qy < h and 0 <= qx < w:
                        q = qy * w + qx
                        if label[q] < 0 and screen[qy, qx] == c and screen[qy, qx] != bg[qy, qx]:
                            label[q] = nb
                            stack[sp] = q
                            sp += 1
        blobs[nb, B_COLOUR] = c
        blobs[nb, B_X0] = xmin
        blobs[nb, B_Y0] = ymin
        blobs[nb, B_X1] = xmax
        blobs[nb, B_Y1] = ymax
        blobs[nb, B_CX] = (xmin + xmax) // 2
        blobs[nb, B_CY] = (ymin + ymax) // 2
        blobs[nb, B_N] = n
        nb += 1
    return blobs[:nb].copy()


def extract_blobs_reference(screen, bg) -> np.ndarray:
    h, w = screen.shape
    seen = np.zeros((h, w), bool)
    rows = []
    for y in range(h):
        for x in range(w):
            if seen[y, x] or screen[y, x] == bg[y, x]:
                continue
            c = int(screen[y, x])
            seen[y, x] = True
            todo, pix = [(y, x)], []
            while todo:
                py, px = todo.pop()
                pix.append((py, px))
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        qy, qx = py + dy, px + dx
                        if 0 <= qy < h and 0 <= qx < w and not seen[qy, qx] and screen[qy, qx] == c \
                                and screen[qy, qx] != bg[qy, qx]:
                            seen[qy, qx] = True
                            todo.append((qy, qx))
            ys, xs = [p[0] for p in pix], [p[1] for p in pix]
            rows.append((c, min(xs), min(ys), max(xs), max(ys), (min(xs) + max(xs)) // 2,
                         (min(ys) + max(ys)) // 2, len(pix)))
    return np.array(rows, np.int64).reshape(-1, N_BLOB_COLS)


def tile(v: int, lo: int, hi: int, t: int) -> int:
    """Cell (0..GRID) of value v in [lo, hi] on tiling t (shifted by t/N_TILINGS of a cell)."""
    span = hi - lo
    c = ((v - lo) * GRID * N_TILINGS + t * span) // (span * N_TILINGS)
    return 0 if c < 0 else (GRID if c > GRID else c)


@njit(cache=True, nogil=True)
def _tile(v, lo, hi, t):
    span = hi - lo
    c = ((v - lo) * GRID * N_TILINGS + t * span) // (span * N_TILINGS)
    return 0 if c < 0 else (GRID if c > GRID else c)


@njit(cache=True, nogil=True)
def classify(blobs, classes):
    """Class of each blob (-1: none): first class with the blob's colour and size within tolerance."""
    out = np.full(blobs.shape[0], -1, np.int64)
    for i in range(blobs.shape[0]):
        bw = blobs[i, B_X1] - blobs[i, B_X0] + 1
        bh = blobs[i, B_Y1] - blobs[i, B_Y0] + 1
        for k in range(classes.shape[0]):
            if (blobs[i, B_COLOUR] == classes[k, 0] and abs(bw - classes[k, 1]) <= SIZE_TOLERANCE
                    and abs(bh - classes[k, 2]) <= SIZE_TOLERANCE):
                out[i] = k
                break
    return out


@njit(cache=True, nogil=True)
def disco_features(inst, prev, n_classes, height):
    """Active feature indices (sorted, unique) for instances ``inst`` rows (class, x, y) given the previous
    frame's instances ``prev``. Layout: [absolute: class x tiling x cell] [relative position: pair x tiling
    x cell] [relative velocity: pair x tiling x cell], pairs in compact triangular order."""
    n = inst.shape[0]
    vel = np.zeros((n, 2), np.int64)
    for i in range(n):
        best = -1
        bd = 1 << 30
        for j in range(prev.shape[0]):
            if prev[j, 0] == inst[i, 0]:
                dx = inst[i, 1] - prev[j, 1]
                dy = inst[i, 2] - prev[j, 2]
                if abs(dx) <= MAX_VELOCITY and abs(dy) <= MAX_VELOCITY and abs(dx) + abs(dy) < bd:
                    bd = abs(dx) + abs(dy)
                    best = j
        if best >= 0:
            vel[i, 0] = inst[i, 1] - prev[best, 1]
            vel[i, 1] = inst[i, 2] - prev[best, 2]
    n_pairs = n_classes * (n_classes - 1) // 2
    rel0 = n_classes * N_TILINGS * CELLS
    vel0 = rel0 + n_pairs * N_TILINGS * CELLS
    out = np.empty(n * N_TILINGS + n * n * N_TILINGS * 2, np.int64)
    m = 0
    for i in range(n):
        for t in range(N_TILINGS):
            cell = _tile(inst[i, 1], 0, 160, t) * (GRID + 1) + _tile(inst[i, 2], 0, height, t)
            out[m] = (inst[i, 0] * N_TILINGS + t) * CELLS + cell
            m += 1
    for i in range(n):
        for j in range(n):
            ci, cj = inst[i, 0], inst[j, 0]
            if ci >= cj:
                continue
            p = ci * (2 * n_classes - ci - 1) // 2 + (cj - ci - 1)
            dx = inst[j, 1] - inst[i, 1]
            dy = inst[j, 2] - inst[i, 2]
            dvx = vel[j, 0] - vel[i, 0]
            dvy = vel[j, 1] - vel[i, 1]
            for t in range(N_TILINGS):
                cell = _tile(dx, -160, 160, t) * (GRID + 1) + _tile(dy, -height, height, t)
                out[m] = rel0 + (p * N_TILINGS + t) * CELLS + cell
                m += 1
                cell = _tile(dvx, -VEL_RANGE, VEL_RANGE, t) * (GRID + 1) + _tile(dvy, -VEL_RANGE, VEL_RANGE, t)
                out[m] = vel0 + (p * N_TILINGS + t) * CELLS + cell
                m += 1
    return np.unique(out[:m])


def discover_classes(blob_lists, min_frequency=MIN_FREQUENCY, max_classes=MAX_CLASSES) -> np.ndarray:
    """Classes (colour, width, height) from per-screen blob arrays: signatures seen on at least
    ``min_frequency`` of the screens, similar ones merged into the more frequent, at most ``max_classes``."""
    from collections import Counter

    freq: Counter = Counter()
    for blobs in blob_lists:
        sigs = {(int(b[B_COLOUR]), int(b[B_X1] - b[B_X0] + 1), int(b[B_Y1] - b[B_Y0] + 1)) for b in blobs
                if b[B_X1] - b[B_X0] < MAX_BLOB_SIZE and b[B_Y1] - b[B_Y0] < MAX_BLOB_SIZE}
        freq.update(sigs)
    n = max(1, len(blob_lists))
    kept: list[tuple[int, int, int]] = []
    for sig, k in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])):
        if k / n < min_frequency:
            break
        if any(sig[0] == c[0] and abs(sig[1] - c[1]) <= SIZE_TOLERANCE and abs(sig[2] - c[2]) <= SIZE_TOLERANCE
               for c in kept):
            continue  # merged into a more frequent class
        kept.append(sig)
        if len(kept) == max_classes:
            break
    return np.array(kept, np.int64).reshape(-1, 3)


class DiscoFeatures(FeatureSet):
    name = "disco"

    def __init__(self, background: np.ndarray, classes: np.ndarray):
        self.background = np.ascontiguousarray(background, np.uint8)
        self.classes = np.asarray(classes, np.int64).reshape(-1, 3)
        self.height = self.background.shape[0]
        c = self.classes.shape[0]
        self.n_features = max(1, c * N_TILINGS * CELLS + c * (c - 1) * N_TILINGS * CELLS)
        self._prev = np.zeros((0, 3), np.int64)
        self._prev_ref: list = []
        self._last_frame = -1

    @classmethod
    def discover(cls, env, background, n_samples: int = 36_000, seed: int = 0, **_):
        bg = np.ascontiguousarray(background, np.uint8)
        blobs = [extract_blobs(np.ascontiguousarray(s), bg) for s in sample_screens(env, n_samples, seed + 1)]
        return cls(bg, discover_classes(blobs))

    def header(self) -> dict:
        return {**super().header(), "classes": self.classes.tolist()}

    def save_arrays(self) -> dict:
        return {"background": self.background, "classes": self.classes}

    def load_arrays(self, arrays, header: dict) -> None:
        bg = checked_background(arrays["background"]) if "background" in arrays else self.background
        classes = np.asarray(arrays["classes"]) if "classes" in arrays else self.classes
        if classes.dtype.kind not in "iu" or classes.size % 3:
            raise ValueError(f"DISCO classes of shape {classes.shape} and dtype {classes.dtype}")
        self.__init__(bg, classes)

    def reset(self) -> None:
        self._prev = np.zeros((0, 3), np.int64)
        self._prev_ref = []

    def _new_episode(self, obs) -> None:
        if obs.frame <= self._last_frame:
            self.reset()
        self._last_frame = obs.frame

    def instances(self, screen) -> np.ndarray:
        blobs = extract_blobs(np.ascontiguousarray(screen, np.uint8), self.background)
        k = classify(blobs, self.classes)
        sel = k >= 0
        return np.stack([k[sel], blobs[sel, B_CX], blobs[sel, B_CY]], axis=1).astype(np.int64).reshape(-1, 3)

    def active(self, obs) -> np.ndarray:
        self._new_episode(obs)
        inst = self.instances(obs.screen)
        out = disco_features(inst, self._prev, self.classes.shape[0], self.height)
        self._prev = inst
        return out

    def reference(self, obs) -> np.ndarray:
        """Pure Python throughout; keeps its own tracking state, so call it alongside ``active``."""
        blobs = extract_blobs_reference(obs.screen, self.background)
        inst = []
        for b in blobs:
            bw, bh = int(b[B_X1] - b[B_X0] + 1), int(b[B_Y1] - b[B_Y0] + 1)
            for k, (c, cw, ch) in enumerate(self.classes.tolist()):
                if int(b[B_COLOUR]) == c and abs(bw - cw) <= SIZE_TOLERANCE and abs(bh - ch) <= SIZE_TOLERANCE:
                    inst.append((k, int(b[B_CX]), int(b[B_CY])))
                    break
        prev = self._prev_ref
        vel = []
        for (k, x, y) in inst:
            cands = [(abs(x - px) + abs(y - py), j) for j, (pk, px, py) in enumerate(prev)
                     if pk == k and abs(x - px) <= MAX_VELOCITY and abs(y - py) <= MAX_VELOCITY]
            if cands:
                j = min(cands)[1]
                vel.append((x - prev[j][1], y - prev[j][2]))
            else:
                vel.append((0, 0))
        nc, h = self.classes.shape[0], self.height
        rel0 = nc * N_TILINGS * CELLS
        vel0 = rel0 + nc * (nc - 1) // 2 * N_TILINGS * CELLS
        feats = set()
        for (k, x, y) in inst:
            for t in range(N_TILINGS):
                feats.add((k * N_TILINGS + t) * CELLS + tile(x, 0, 160, t) * (GRID + 1) + tile(y, 0, h, t))
        for i, (ki, xi, yi) in enumerate(inst):
            for j, (kj, xj, yj) in enumerate(inst):
                if ki >= kj:
                    continue
                p = tri_index(ki, kj, nc)
                dvx, dvy = vel[j][0] - vel[i][0], vel[j][1] - vel[i][1]
                for t in range(N_TILINGS):
                    feats.add(rel0 + (p * N_TILINGS + t) * CELLS + tile(xj - xi, -160, 160, t) * (GRID + 1)
                              + tile(yj - yi, -h, h, t))
                    feats.add(vel0 + (p * N_TILINGS + t) * CELLS + tile(dvx, -VEL_RANGE, VEL_RANGE, t) * (GRID + 1)
                              + tile(dvy, -VEL_RANGE, VEL_RANGE, t))
        self._prev_ref = inst
        return np.array(sorted(feats), np.int64)
