"""Blob-PROST (Liang, Machado, Talvitie & Bowling 2016; the linear baseline of Machado et al. 2018).

Our reading, written down once here and in docs/agents.md:

1. **Blobs.** No background subtraction (Liang et al. dropped it). Two pixels of the same colour
   (``byte >> 1``, 128 NTSC colours) are linked when they lie within Chebyshev distance ``LINK = 3`` of each
   other (a 7 x 7 neighbourhood), so that striped or flickering objects form one blob; a blob is a connected
   component of that relation. A blob stands for the centre of its bounding box,
   ``(row, col) = ((top + bottom) // 2, (left + right) // 2)``.
2. **Position grid.** Cells of 7 rows x 4 columns on a 210-line screen: R = 30 rows, C = 40 columns. For a
   screen of height h, cell row = ``row * 30 // h`` and cell column = ``col // 4``.
3. **Features** (binary, 64-bit ids), D = (2R - 1)(2C - 1) = 4 661 offsets:

   * Basic: ``colour * R*C + cellrow * C + cellcol`` for every blob (153 600 ids).
   * B-PRO: for every pair of blobs of one screen (a blob with itself included) with colours c1 <= c2, the
     cell offset cell(c1's blob) - cell(c2's blob); for c1 == c2 the offset is canonicalised to dr > 0 or
     (dr == 0 and dc >= 0). Id ``BASE_PRO + pair(c1, c2) * D + (dr + R - 1) * (2C - 1) + (dc + C - 1)``,
     pair() the compact index of the 8 256 unordered colour pairs (38 481 216 ids).
   * B-PROST: for every blob of the previous observation given to ``active`` (colour c1) and every blob of
     the current one (colour c2), the offset cell(previous) - cell(current); id
     ``BASE_TIME + (c1 * 128 + c2) * D + offset index`` (76 365 824 ids). None on the first observation of
     an episode: ``reset()`` forgets the previous blobs.

   The active set is the sorted unique ids; the id space holds ``N_IDS`` = 115 000 640 of them.
4. **Slots.** Dense weights over 1.15e8 ids (x 18 actions) would not fit, so the feature set owns an exact
   map from id to dense slot: an open-addressing hash table (int64 keys, int64 slots, power-of-two size at
   least twice the capacity, linear probing) in which an id gets the next free slot the first time it is
   seen — like Liang et al., only features that occurred are stored, and no two ids ever share a slot.
   ``capacity`` (``n_features`` for SARSA, default 2**21) bounds the slots; once all are given out, unseen
   ids are dropped (not active) and ``overflow`` counts each drop. ``active(obs)`` returns slot indices
   (sorted int64); ``ids(obs)`` returns the raw ids that ``reference(obs)`` (pure Python) is held equal to.
   The slot table travels with the weights (``save_arrays`` / ``load_arrays``).
"""
from __future__ import annotations

import numpy as np

from .._nb import HASH_MUL, njit
from . import FeatureSet

LINK = 3                 # same-colour pixels within this Chebyshev distance join one blob
N_COLOURS = 128
GRID_ROWS = 30           # R: 7-line cells on a 210-line screen
GRID_COLS = 40           # C: 4-pixel cells on the 160-pixel width
CELL_W = 4
N_CELLS = GRID_ROWS * GRID_COLS
OFF_ROWS = 2 * GRID_ROWS - 1
OFF_COLS = 2 * GRID_COLS - 1
N_OFFSETS = OFF_ROWS * OFF_COLS                       # 4 661
N_COLOUR_PAIRS = N_COLOURS * (N_COLOURS + 1) // 2     # 8 256 unordered pairs c1 <= c2
N_BASIC = N_COLOURS * N_CELLS                         # 153 600
N_PRO = N_COLOUR_PAIRS * N_OFFSETS                    # 38 481 216
N_TIME = N_COLOURS * N_COLOURS * N_OFFSETS            # 76 365 824
BASE_PRO = N_BASIC
BASE_TIME = N_BASIC + N_PRO
N_IDS = N_BASIC + N_PRO + N_TIME                      # 115 000 640
DEFAULT_CAPACITY = 1 << 21
LAYOUT = "blobprost-1"   # recorded in weights files; bump when the id layout changes

# blob record columns (extract_blobs): colour is the 7-bit colour, byte >> 1
BL_COLOUR, BL_TOP, BL_LEFT, BL_BOTTOM, BL_RIGHT, BL_ROW, BL_COL, BL_PIXELS = range(8)
N_BL_COLS = 8

# counters of the slot map
CT_USED = 0
CT_OVERFLOW = 1


def colour_pair(c1: int, c2: int) -> int:
    """Compact index of the unordered colour pair c1 <= c2 (row-major upper triangle, diagonal included)."""
    return c1 * (2 * N_COLOURS - c1 + 1) // 2 + (c2 - c1)


# ------------------------------------------------------------------------------------------------ blobs
@njit(cache=True, nogil=True)
def _root(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@njit(cache=True, nogil=True)
def _join(parent, a, b):
    ra = _root(parent, a)
    rb = _root(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb


@njit(cache=True, nogil=True)
def extract_blobs(screen, link):
    """Same-colour regions, pixels linked within Chebyshev distance ``link``: rows of (colour, top, left,
    bottom, right, row, col, pixels) in raster order of each blob's first pixel; (row, col) = bounding-box
    centre. Every pixel belongs to exactly one blob (no background subtraction).

    Works on row runs of one colour: a run joins the same-colour runs of its own row that start at most
    ``link`` pixels after it ends, and those of the ``link`` rows above whose columns come within ``link``
    of its own (union-find; the runs between two same-colour runs of a row have other colours)."""
    h, w = screen.shape
    cap = h * w
    ry = np.empty(cap, np.int64)
    rx0 = np.empty(cap, np.int64)
    rx1 = np.empty(cap, np.int64)
    rc = np.empty(cap, np.int64)
    first = np.empty(h + 1, np.int64)
    n = 0
    for y in range(h):
        first[y] = n
        x = 0
        while x < w:
            c = np.int64(screen[y, x]) >> 1
            x1 = x
            while x1 + 1 < w and (np.int64(screen[y, x1 + 1]) >> 1) == c:
                x1 += 1
            ry[n] = y
            rx0[n] = x
            rx1[n] = x1
            rc[n] = c
            n += 1
            x = x1 + 1
    first[h] = n
    parent = np.arange(n)
    ptr = np.empty(link + 1, np.int64)
    for y in range(h):
        for d in range(1, link + 1):
            ptr[d] = first[y - d] if y - d >= 0 else 0
        for r in range(first[y], first[y + 1]):
            c = rc[r]
            lo = rx0[r] - link
            hi = rx1[r] + link
            q = r + 1
            while q < first[y + 1] and rx0[q] <= hi:
                if rc[q] == c:
                    _join(parent, r, q)
                q += 1
            for d in range(1, link + 1):
                if y - d < 0:
                    break
                end = first[y - d + 1]
                q = ptr[d]
                while q < end and rx1[q] < lo:   # runs of that row entirely left of reach, for good
                    q += 1
                ptr[d] = q
                while q < end and rx0[q] <= hi:
                    if rc[q] == c:
                        _join(parent, r, q)
                    q += 1
    label = np.full(n, -1, np.int64)
    blobs = np.empty((n, N_BL_COLS), np.int64)
    nb = 0
    for r in range(n):               # runs are in raster order: a blob's first run holds its first pixel
        root = _root(parent, r)
        b = label[root]
        if b < 0:
            b = nb
            label[root] = b
            nb += 1
            blobs[b, BL_COLOUR] = rc[r]
            blobs[b, BL_TOP] = ry[r]
            blobs[b, BL_LEFT] = rx0[r]
            blobs[b, BL_BOTTOM] = ry[r]
            blobs[b, BL_RIGHT] = rx1[r]
            blobs[b, BL_PIXELS] = 0
        if ry[r] > blobs[b, BL_BOTTOM]:
            blobs[b, BL_BOTTOM] = ry[r]
        if rx0[r] < blobs[b, BL_LEFT]:
            blobs[b, BL_LEFT] = rx0[r]
        if rx1[r] > blobs[b, BL_RIGHT]:
            blobs[b, BL_RIGHT] = rx1[r]
        blobs[b, BL_PIXELS] += rx1[r] - rx0[r] + 1
    for b in range(nb):
        blobs[b, BL_ROW] = (blobs[b, BL_TOP] + blobs[b, BL_BOTTOM]) // 2
        blobs[b, BL_COL] = (blobs[b, BL_LEFT] + blobs[b, BL_RIGHT]) // 2
    return blobs[:nb].copy()


def extract_blobs_reference(screen, link: int = LINK) -> np.ndarray:
    """Slow pure-Python blobs by another route: union-find over each pixel's earlier neighbours in raster
    order (the 7 x 7 window's upper half), then components ordered by their first pixel."""
    h, w = screen.shape
    col = [int(v) >> 1 for v in np.asarray(screen).ravel().tolist()]
    parent = list(range(h * w))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for y in range(h):
        for x in range(w):
            p = y * w + x
            c = col[p]
            for dy in range(-link, 1):
                qy = y + dy
                if qy < 0:
                    continue
                for dx in range(-link, link + 1) if dy < 0 else range(-link, 0):
                    qx = x + dx
                    if 0 <= qx < w and col[qy * w + qx] == c:
                        ra, rb = find(p), find(qy * w + qx)
                        if ra != rb:
                            parent[max(ra, rb)] = min(ra, rb)   # the root stays the earliest pixel
    comps: dict[int, list] = {}
    for p in range(h * w):
        comps.setdefault(find(p), []).append(p)
    rows = []
    for root in sorted(comps):
        ys = [p // w for p in comps[root]]
        xs = [p % w for p in comps[root]]
        t, b, lf, rt = min(ys), max(ys), min(xs), max(xs)
        rows.append((col[root], t, lf, b, rt, (t + b) // 2, (lf + rt) // 2, len(ys)))
    return np.array(rows, np.int64).reshape(-1, N_BL_COLS)


# ------------------------------------------------------------------------------------------------ ids
@njit(cache=True, nogil=True)
def blob_singles(blobs, height):
    """Sorted unique Basic ids (colour, cell) of the blobs: the pairwise and time features depend on blobs
    only through these, so one blob per (colour, cell) is enough."""
    out = np.empty(blobs.shape[0], np.int64)
    for i in range(blobs.shape[0]):
        r = blobs[i, BL_ROW] * GRID_ROWS // height
        c = blobs[i, BL_COL] // CELL_W
        out[i] = blobs[i, BL_COLOUR] * N_CELLS + r * GRID_COLS + c
    return np.unique(out)


@njit(cache=True, nogil=True)
def blobprost_ids(singles, prev):
    """Sorted unique Basic + B-PRO + B-PROST ids of a screen's singles, given the previous screen's
    (``prev``, empty on an episode's first observation)."""
    k = singles.shape[0]
    kp = prev.shape[0]
    out = np.empty(k + k * (k + 1) // 2 + kp * k, np.int64)
    m = 0
    for i in range(k):
        out[m] = singles[i]
        m += 1
    for i in range(k):
        ci = singles[i] // N_CELLS
        ri = (singles[i] % N_CELLS) // GRID_COLS
        xi = singles[i] % GRID_COLS
        for j in range(i, k):
            cj = singles[j] // N_CELLS
            rj = (singles[j] % N_CELLS) // GRID_COLS
            xj = singles[j] % GRID_COLS
            # singles are sorted by colour first, so ci <= cj
            dr = ri - rj
            dc = xi - xj
            if ci == cj and (dr < 0 or (dr == 0 and dc < 0)):
                dr = -dr
                dc = -dc
            p = ci * (2 * N_COLOURS - ci + 1) // 2 + (cj - ci)
            out[m] = BASE_PRO + p * N_OFFSETS + (dr + GRID_ROWS - 1) * OFF_COLS + (dc + GRID_COLS - 1)
            m += 1
    for i in range(kp):
        ci = prev[i] // N_CELLS
        ri = (prev[i] % N_CELLS) // GRID_COLS
        xi = prev[i] % GRID_COLS
        for j in range(k):
            cj = singles[j] // N_CELLS
            rj = (singles[j] % N_CELLS) // GRID_COLS
            xj = singles[j] % GRID_COLS
            out[m] = (BASE_TIME + (ci * N_COLOURS + cj) * N_OFFSETS + (ri - rj + GRID_ROWS - 1) * OFF_COLS
                      + (xi - xj + GRID_COLS - 1))
            m += 1
    return np.unique(out[:m])


def _cell(blob, height):
    return int(blob[BL_ROW]) * GRID_ROWS // height, int(blob[BL_COL]) // CELL_W


def blobprost_ids_reference(blobs, prev_blobs) -> list:
    """Pure Python, straight from the definition, over every blob (and every blob pair) — no
    deduplication by cell first. ``blobs``/``prev_blobs``: lists of (colour, cellrow, cellcol)."""
    feats = set()
    for (c, r, x) in blobs:
        feats.add(c * N_CELLS + r * GRID_COLS + x)
    for (c1, r1, x1) in blobs:                       # ordered pairs, a blob with itself included
        for (c2, r2, x2) in blobs:
            if c1 > c2:
                continue
            dr, dc = r1 - r2, x1 - x2
            if c1 == c2 and not (dr > 0 or (dr == 0 and dc >= 0)):
                continue                             # the other order of the pair is the canonical one
            feats.add(BASE_PRO + colour_pair(c1, c2) * N_OFFSETS + (dr + GRID_ROWS - 1) * OFF_COLS
                      + (dc + GRID_COLS - 1))
    for (c1, r1, x1) in prev_blobs:
        for (c2, r2, x2) in blobs:
            feats.add(BASE_TIME + (c1 * N_COLOURS + c2) * N_OFFSETS + (r1 - r2 + GRID_ROWS - 1) * OFF_COLS
                      + (x1 - x2 + GRID_COLS - 1))
    return sorted(feats)


# ------------------------------------------------------------------------------------------------ slots
@njit(cache=True, nogil=True)
def map_ids(ids, keys, vals, by_slot, ctr, bits):
    """Slots of ``ids`` (sorted); an unseen id gets the next free slot, in the order given, while there is
    one, else it is dropped and counted in ``ctr[CT_OVERFLOW]``. ``keys`` holds id + 1 (0: empty) in a
    power-of-two table of ``1 << bits`` entries; ``by_slot[s]`` is the id of slot s."""
    mask = keys.shape[0] - 1
    cap = by_slot.shape[0]
    shift = np.uint64(64 - bits)
    out = np.empty(ids.shape[0], np.int64)
    m = 0
    for i in range(ids.shape[0]):
        key = ids[i] + 1
        h = np.int64((np.uint64(key) * HASH_MUL) >> shift) & mask
        while True:
            k = keys[h]
            if k == key:
                out[m] = vals[h]
                m += 1
                break
            if k == 0:
                used = ctr[CT_USED]
                if used < cap:
                    keys[h] = key
                    vals[h] = used
                    by_slot[used] = ids[i]
                    ctr[CT_USED] = used + 1
                    out[m] = used
                    m += 1
                else:
                    ctr[CT_OVERFLOW] += 1
                break
            h = (h + 1) & mask
    return np.sort(out[:m])


class BlobProstFeatures(FeatureSet):
    """Blob-PROST with an exact id -> slot map of ``capacity`` slots (``n_features``)."""

    name = "blobprost"
    link = LINK

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        capacity = int(capacity)
        if capacity < 1:
            raise ValueError(f"Blob-PROST capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.n_features = capacity
        bits = 1
        while (1 << bits) < 2 * capacity:
            bits += 1
        self._bits = bits
        # zeros: untouched pages of the big tables cost no memory until an id lands there
        self._keys = np.zeros(1 << bits, np.int64)
        self._vals = np.zeros(1 << bits, np.int64)
        self._by_slot = np.zeros(capacity, np.int64)
        self._ctr = np.zeros(2, np.int64)
        self._prev = np.zeros(0, np.int64)
        self._prev_ref: list = []
        self.last_ids = np.zeros(0, np.int64)

    # -- per-episode state
    def reset(self) -> None:
        self._prev = np.zeros(0, np.int64)
        self._prev_ref = []

    # -- the slot map
    @property
    def n_used(self) -> int:
        return int(self._ctr[CT_USED])

    @property
    def overflow(self) -> int:
        return int(self._ctr[CT_OVERFLOW])

    def slots(self, ids) -> np.ndarray:
        """Slots of raw ids (unseen ones are given slots; dropped when full)."""
        return map_ids(np.ascontiguousarray(ids, np.int64), self._keys, self._vals, self._by_slot, self._ctr,
                       self._bits)

    def slot_ids(self) -> np.ndarray:
        """The id of each slot in use, slot order."""
        return self._by_slot[:self.n_used].copy()

    # -- features
    def blobs(self, screen) -> np.ndarray:
        return extract_blobs(np.ascontiguousarray(screen, np.uint8), self.link)

    def ids(self, obs) -> np.ndarray:
        """Raw ids (compiled); advances the previous-screen state, as ``active`` does."""
        screen = np.ascontiguousarray(obs.screen, np.uint8)
        singles = blob_singles(extract_blobs(screen, self.link), screen.shape[0])
        out = blobprost_ids(singles, self._prev)
        self._prev = singles
        self.last_ids = out
        return out

    def active(self, obs) -> np.ndarray:
        return self.slots(self.ids(obs))

    def reference(self, obs) -> np.ndarray:
        """Raw ids, pure Python throughout; keeps its own previous screen, so call it alongside ``ids``."""
        h = obs.screen.shape[0]
        cur = [(int(b[BL_COLOUR]),) + _cell(b, h) for b in extract_blobs_reference(obs.screen, self.link)]
        out = blobprost_ids_reference(cur, self._prev_ref)
        self._prev_ref = cur
        return np.array(out, np.int64)

    # -- weights files
    def header(self) -> dict:
        return {**super().header(), "layout": LAYOUT, "n_ids": N_IDS, "link": self.link,
                "grid": [GRID_ROWS, GRID_COLS], "capacity": self.capacity, "n_used": self.n_used,
                "overflow": self.overflow}

    def save_arrays(self) -> dict:
        return {"blobprost_ids": self.slot_ids()}

    def load_arrays(self, arrays, header: dict) -> None:
        """Restore the slot map saved with a weights file (raises ValueError, changing nothing, when the
        table is missing or disagrees with the header)."""
        if "blobprost_ids" not in arrays:
            raise ValueError("no Blob-PROST slot table (blobprost_ids) in the weights file")
        want = {"layout": LAYOUT, "n_ids": N_IDS, "link": self.link, "grid": [GRID_ROWS, GRID_COLS]}
        for k, v in want.items():
            if header.get(k) != v:
                raise ValueError(f"Blob-PROST {k} {header.get(k)!r} in the weights file, this build uses {v!r}")
        try:
            cap, used = int(header["capacity"]), int(header["n_used"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("the Blob-PROST header lacks capacity/n_used") from None
        ids = np.asarray(arrays["blobprost_ids"])
        if ids.ndim != 1 or ids.dtype.kind not in "iu":
            raise ValueError(f"Blob-PROST slot table has shape {ids.shape} and dtype {ids.dtype}")
        ids = ids.astype(np.int64)
        if int(header.get("n_features", cap)) != cap:
            raise ValueError(f"Blob-PROST capacity {cap} differs from n_features {header.get('n_features')}")
        if ids.shape[0] != used or used > cap:
            raise ValueError(f"Blob-PROST slot table holds {ids.shape[0]} ids, the header says {used} of {cap}")
        if ids.size and (ids.min() < 0 or ids.max() >= N_IDS):
            raise ValueError("Blob-PROST slot table has ids outside the id space")
        if np.unique(ids).size != ids.size:
            raise ValueError("Blob-PROST slot table has an id twice")
        fresh = BlobProstFeatures(cap)
        fresh.slots(ids)                                  # unseen unique ids take slots 0, 1, ... in order
        if fresh.n_used != used or not np.array_equal(fresh._by_slot[:used], ids):
            raise ValueError("Blob-PROST slot table did not rebuild")
        fresh._ctr[CT_OVERFLOW] = int(header.get("overflow", 0))
        self.__dict__.update(fresh.__dict__)
