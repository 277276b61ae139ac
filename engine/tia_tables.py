"""Lookup tables of the 2007-era TIA model ALE runs (object masks, priorities, motion).

All positions are relative: an object at position ``p`` covers pixel ``x`` when its table row has a
non-zero entry at ``(x - p) mod 160``. The facts behind these tables (copy spacings, the one-pixel delay of
double/quad-width players, the HMOVE motion amounts per CPU cycle, poke delays) are those of ALE 0.12.1's
TIA; ``tests/test_quirks.py`` checks them against ale-py.
"""
from __future__ import annotations

import numpy as np

from .tia_regs import GRP0, GRP1, N_WRITE, NUSIZ0, NUSIZ1, PF0, PF1, PF2, REFP0, REFP1, RESM0, RESM1, VBLANK

# Object bits as the TIA model numbers them.
P0_BIT, M0_BIT, P1_BIT, M1_BIT, BL_BIT, PF_BIT, SCORE_BIT, PRIORITY_BIT = 1, 2, 4, 8, 16, 32, 64, 128

# Copy offsets for NUSIZ number modes (players and missiles share them).
_COPIES = {0: (0,), 1: (0, 16), 2: (0, 32), 3: (0, 16, 32), 4: (0, 64), 5: (0,), 6: (0, 32, 64), 7: (0,)}


def _player_masks() -> np.ndarray:
    """[skip_first][mode][dx] -> graphics bit to test (0 = not covered)."""
    t = np.zeros((2, 8, 160), dtype=np.int64)
    for skip in range(2):
        for mode in range(8):
            if mode in (5, 7):
                # Double/quad width: one copy, its output delayed by one pixel.
                width = 2 if mode == 5 else 4
                if skip:
                    continue
                for dx in range(1, 8 * width + 1):
                    t[skip, mode, dx % 160] = 0x80 >> ((dx - 1) // width)
                continue
            for k, off in enumerate(_COPIES[mode]):
                if skip and k == 0:
                    continue
                for i in range(8):
                    t[skip, mode, (off + i) % 160] = 0x80 >> i
    return t


def _missile_masks() -> np.ndarray:
    """[number][size][dx] -> 1 where a missile copy covers the pixel."""
    t = np.zeros((8, 4, 160), dtype=np.int64)
    for num in range(8):
        for size in range(4):
            for off in _COPIES[num]:
                for i in range(1 << size):
                    t[num, size, (off + i) % 160] = 1
    return t


def _ball_masks() -> np.ndarray:
    t = np.zeros((4, 160), dtype=np.int64)
    for size in range(4):
        t[size, : 1 << size] = 1
    return t


def _playfield_masks() -> np.ndarray:
    """[reflect][x] -> the bit of the 20-bit PF register (PF0 bits 0-3, PF1 4-11, PF2 12-19) shown."""
    t = np.zeros((2, 160), dtype=np.int64)
    for x in range(80):
        if x < 16:
            bit = x // 4               # PF0, shown low bit first
        elif x < 48:
            bit = 11 - (x - 16) // 4   # PF1, shown high bit first
        else:
            bit = 12 + (x - 48) // 4   # PF2, shown low bit first
        t[0, x] = t[0, x + 80] = t[1, x] = 1 << bit
        t[1, 159 - x] = 1 << bit       # reflected right half mirrors the left
    return t


def _priority_table() -> np.ndarray:
    """[right_half][enabled | score/priority bits] -> colour register (0 BK, 1 PF, 2 P0, 3 P1)."""
    t = np.zeros((2, 256), dtype=np.int64)
    for half in range(2):
        for e in range(256):
            if e & PRIORITY_BIT:
                c = 0
                if e & (P1_BIT | M1_BIT):
                    c = 3
                if e & (P0_BIT | M0_BIT):
                    c = 2
                if e & (BL_BIT | PF_BIT):
                    c = 1  # playfield priority wins, score colouring is ignored
            else:
                c = 0
                if e & BL_BIT:
                    c = 1
                if e & PF_BIT:
                    c = (2 if half == 0 else 3) if e & SCORE_BIT else 1
                if e & (P1_BIT | M1_BIT):
                    c = 3 if c != 2 else 2
                if e & (P0_BIT | M0_BIT):
                    c = 2
            t[half, e] = c
    return t


def _collision_table() -> np.ndarray:
    pairs = [(M0_BIT, P1_BIT), (M0_BIT, P0_BIT), (M1_BIT, P0_BIT), (M1_BIT, P1_BIT), (P0_BIT, PF_BIT),
             (P0_BIT, BL_BIT), (P1_BIT, PF_BIT), (P1_BIT, BL_BIT), (M0_BIT, PF_BIT), (M0_BIT, BL_BIT),
             (M1_BIT, PF_BIT), (M1_BIT, BL_BIT), (BL_BIT, PF_BIT), (P0_BIT, P1_BIT), (M0_BIT, M1_BIT)]
    t = np.zeros(64, dtype=np.int64)
    for e in range(64):
        for k, (a, b) in enumerate(pairs):
            if e & a and e & b:
                t[e] |= 1 << k
    return t


# Horizontal motion applied by an HMOVE strobed at CPU cycle 0..75 of a line, for HMxx nibble 0..15.
# Rows 0-20 and 75 are the HBLANK amounts (early HMOVE); 21-54 move nothing; 55-74 give the partial
# and "extra" motion of late HMOVEs. Numbers as measured for the ALE/Stella 2.x TIA model.
_MOTION_ROWS = """
0 -1 -2 -3 -4 -5 -6 -7 8 7 6 5 4 3 2 1|x4
0 -1 -2 -3 -4 -5 -6 -6 8 7 6 5 4 3 2 1
0 -1 -2 -3 -4 -5 -5 -5 8 7 6 5 4 3 2 1|x2
0 -1 -2 -3 -4 -4 -4 -4 8 7 6 5 4 3 2 1
0 -1 -2 -3 -3 -3 -3 -3 8 7 6 5 4 3 2 1
0 -1 -2 -2 -2 -2 -2 -2 8 7 6 5 4 3 2 1|x2
0 -1 -1 -1 -1 -1 -1 -1 8 7 6 5 4 3 2 1
0 0 0 0 0 0 0 0 8 7 6 5 4 3 2 1
1 1 1 1 1 1 1 1 8 7 6 5 4 3 2 1|x2
2 2 2 2 2 2 2 2 8 7 6 5 4 3 2 2
3 3 3 3 3 3 3 3 8 7 6 5 4 3 3 3
4 4 4 4 4 4 4 4 8 7 6 5 4 4 4 4|x2
5 5 5 5 5 5 5 5 8 7 6 5 5 5 5 5
6 6 6 6 6 6 6 6 8 7 6 6 6 6 6 6
0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0|x34
0 0 0 0 0 0 0 -1 0 0 0 0 0 0 0 0
0 0 0 0 0 0 -1 -2 0 0 0 0 0 0 0 0
0 0 0 0 0 -1 -2 -3 0 0 0 0 0 0 0 0|x2
0 0 0 0 -1 -2 -3 -4 0 0 0 0 0 0 0 0
0 0 0 -1 -2 -3 -4 -5 0 0 0 0 0 0 0 0
0 0 -1 -2 -3 -4 -5 -6 0 0 0 0 0 0 0 0|x2
0 -1 -2 -3 -4 -5 -6 -7 0 0 0 0 0 0 0 0
-1 -2 -3 -4 -5 -6 -7 -8 0 0 0 0 0 0 0 0
-2 -3 -4 -5 -6 -7 -8 -9 0 0 0 0 0 0 0 -1|x2
-3 -4 -5 -6 -7 -8 -9 -10 0 0 0 0 0 0 -1 -2
-4 -5 -6 -7 -8 -9 -10 -11 0 0 0 0 0 -1 -2 -3
-5 -6 -7 -8 -9 -10 -11 -12 0 0 0 0 -1 -2 -3 -4|x2
-6 -7 -8 -9 -10 -11 -12 -13 0 0 0 -1 -2 -3 -4 -5
-7 -8 -9 -10 -11 -12 -13 -14 0 0 -1 -2 -3 -4 -5 -6
-8 -9 -10 -11 -12 -13 -14 -15 0 -1 -2 -3 -4 -5 -6 -7|x2
0 -1 -2 -3 -4 -5 -6 -7 8 7 6 5 4 3 2 1
"""


def _motion_table() -> np.ndarray:
    rows = []
    for line in _MOTION_ROWS.strip().splitlines():
        vals, _, rep = line.partition("|x")
        row = [int(v) for v in vals.split()]
        rows.extend([row] * (int(rep) if rep else 1))
    t = np.array(rows, dtype=np.int64)
    assert t.shape == (76, 16), t.shape
    return t


# [NUSIZ number mode][copy] -> pixel offset of that copy (-1: no such copy).
COPY_OFFSETS = np.full((8, 3), -1, dtype=np.int64)
for _m, _offs in _COPIES.items():
    COPY_OFFSETS[_m, :len(_offs)] = _offs

PLAYER_MASK = _player_masks()
MISSILE_MASK = _missile_masks()
BALL_MASK = _ball_masks()


def _reach4(masks: np.ndarray) -> np.ndarray:
    """[..., dx] -> 1 where the mask covers any of pixels dx..dx+3 (mod 160): ALE's four-pixel test, one lookup."""
    cover = masks != 0
    out = cover.copy()
    for i in range(1, 4):
        out |= np.roll(cover, -i, axis=-1)
    return out.astype(np.uint8)


PLAYER_REACH4 = _reach4(PLAYER_MASK)
MISSILE_REACH4 = _reach4(MISSILE_MASK)
BALL_REACH4 = _reach4(BALL_MASK)
PF_MASK = _playfield_masks()
PF_BLOCK_MASK = np.ascontiguousarray(PF_MASK[:, ::4])  # [reflect][block of 4 pixels]: one PF bit each
PRIORITY = _priority_table()
COLLISION = _collision_table()
MOTION = _motion_table()
REFLECT = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.int64)
# HMOVE at CPU cycle 0..20 or 75 of a line blanks the line's first 8 pixels.
HMOVE_BLANK_CYCLE = np.array([1 if (c <= 20 or c == 75) else 0 for c in range(76)], dtype=np.int64)
# Register writes take effect this many colour clocks later (-1: playfield, see PF_DELAY).
POKE_DELAY = np.zeros(N_WRITE, dtype=np.int64)
for _reg, _d in {VBLANK: 1, NUSIZ0: 8, NUSIZ1: 8, REFP0: 1, REFP1: 1, PF0: -1, PF1: -1, PF2: -1,
                 RESM0: 8, RESM1: 8, GRP0: 1, GRP1: 1}.items():
    POKE_DELAY[_reg] = _d
PF_DELAY = np.array([4, 5, 2, 3], dtype=np.int64)
COSMIC_ARK_STEP = np.array([18, 33, 0, 17], dtype=np.int64)


# Coverage masks for collision-only rendering: a line's 160 pixels as three 64-bit words (pixel x is bit
# x & 63 of word x >> 6; word 2 uses 32 bits). Stored as int64: only bit operations are applied to them.
def _player_pixels() -> np.ndarray:
    """[shift][graphics] -> a player copy's pixels from its first one (bit i: pixel i), for widths
    8 << shift (normal, double, quad)."""
    t = np.zeros((3, 256), dtype=np.int64)
    for shift in range(3):
        for g in range(256):
            for i in range(8 << shift):
                if g & (0x80 >> (i >> shift)):
                    t[shift, g] |= 1 << i
    return t.astype(np.uint64).view(np.int64)


def _playfield_cover() -> np.ndarray:
    """[reflect][nibble][value] -> the three words of pixels showing PF bits ``value << 4 * nibble``."""
    t = np.zeros((2, 5, 16, 3), dtype=np.uint64)
    for refl in range(2):
        for nib in range(5):
            for v in range(16):
                for x in range(160):
                    if PF_MASK[refl, x] & (v << (4 * nib)):
                        t[refl, nib, v, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
    return t.view(np.int64)


def _player_runs(pixels: np.ndarray) -> np.ndarray:
    """[shift][graphics][j] -> pixels 8j..8j+7 of a player copy (``PLAYER_PIXELS``' bits), one byte per pixel
    (1 where shown, the copy's first pixel in the lowest byte): ``ob``-style marks written a word at a time."""
    bits = pixels.view(np.uint64)
    t = np.zeros((3, 256, 4), dtype=np.uint64)
    for i in range(32):
        t[:, :, i >> 3] |= ((bits >> np.uint64(i)) & np.uint64(1)) << np.uint64(8 * (i & 7))
    return t


def _byte_spans() -> np.ndarray:
    """[a][b] -> a 64-bit word with bytes a..b-1 set to 0xFF (0 <= a <= b <= 8)."""
    t = np.zeros((9, 9), dtype=np.uint64)
    for a in range(9):
        for b in range(a, 9):
            for i in range(a, b):
                t[a, b] |= np.uint64(0xFF) << np.uint64(8 * i)
    return t


PLAYER_PIXELS = _player_pixels()
PLAYER_RUNS = _player_runs(PLAYER_PIXELS)
BYTE_SPANS = _byte_spans()
BAR_RUNS = BYTE_SPANS[0] & np.uint64(0x0101010101010101)  # [width] -> a bar's first ``width`` pixels marked
PF_COVER = _playfield_cover()


def _hull_words(rows: np.ndarray) -> np.ndarray:
    """[..., dx] covered flags -> [..., pos, word]: the object's pixels at every position, as coverage
    words (an object at ``pos`` covers pixel ``x`` where its row is set at ``(x - pos) mod 160``)."""
    x = np.arange(160)
    cov = rows[..., (x[None, :] - x[:, None]) % 160] != 0    # [..., pos, x]
    bits = np.zeros(cov.shape[:-1] + (3,), dtype=np.uint64)
    for w in range(3):
        chunk = cov[..., 64 * w:64 * (w + 1)].astype(np.uint64)
        bits[..., w] = (chunk << np.arange(chunk.shape[-1], dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)
    return bits.view(np.int64)


# Every pixel an object could cover at each position whatever its graphics (tia.quiet): players
# [mode][pos] (all copies, the first included), missiles [number][size][pos], the ball [size][pos].
PLAYER_HULL = _hull_words(PLAYER_MASK[0])
MISSILE_HULL = _hull_words(MISSILE_MASK)
BALL_HULL = _hull_words(BALL_MASK)
