"""TIA video as ALE's 2007-era Stella core models it: lazy rendering up to the current colour clock.

Every TIA access first draws all pixels from the last update point up to "now" with the register values
of that moment (ALE ``updateFrame``); then the access changes registers. Only scanlines inside the
YStart..YStart+Height window are drawn or collision-checked.
"""
from __future__ import annotations

import numpy as np

from ._jit import jit, store_kept
from .layout import (
    CYC, DBUS, EXEC, EX_STOP, LAST_READ,
    T_FRAMESTART, T_STARTDISP, T_STOPDISP, T_LASTUPD, T_TOEOL, T_VSYNCFIN, T_LINESLAST, T_CURLINE,
    T_FP, T_FBCUR, T_PARTIAL, T_YSTART, T_HEIGHT, T_MAXLINES, T_COLORLOSS, T_HMBLANKS,
    T_ENABLED, T_VSYNC, T_VBLANK, T_NUSIZ0, T_NUSIZ1, T_COLUBK, T_COLUPF, T_COLUP0, T_COLUP1, T_CTRLPF,
    T_PPS, T_REFP0, T_REFP1, T_PF, T_GRP0, T_GRP1, T_DGRP0, T_DGRP1, T_ENAM0, T_ENAM1, T_ENABL, T_DENABL,
    T_HMP0, T_HMP1, T_HMM0, T_HMM1, T_HMBL, T_VDELP0, T_VDELP1, T_VDELBL, T_RESMP0, T_RESMP1, T_COLLISION,
    T_POSP0, T_POSP1, T_POSM0, T_POSM1, T_POSBL, T_CURGRP0, T_CURGRP1,
    T_P0M_POS, T_P0M_MODE, T_P0M_SKIP, T_P1M_POS, T_P1M_MODE, T_P1M_SKIP,
    T_M0M_POS, T_M0M_NUM, T_M0M_SIZE, T_M0M_OFF, T_M1M_POS, T_M1M_NUM, T_M1M_SIZE,
    T_BLM_POS, T_BLM_SIZE, T_PFM_REFL, T_LASTHMOVE, T_HMBLANK_ON, T_COSMIC_ON, T_COSMIC_CNT,
    T_DUMP_ON, T_DUMP_CYC, T_AUDC0, T_AUDC1, T_AUDF0, T_AUDF1, T_AUDV0, T_AUDV1,
    IN_FIRE, IN_RES, AUD_ON, AUD_N, AUD_LOG_OFFSET, AUD_LOG_MAX, CV_KEY, CV_WORDS, QV_OK, QV_PF_KEY, QV_PF_WORDS,
    ACC_OBJS, ACC_WORDS, DEFER_CLK, X_CYC0, X_CYC0_TRUNC, X_LIMIT,
)
from .tia_tables import (
    P0_BIT, M0_BIT, P1_BIT, M1_BIT, BL_BIT, PF_BIT, SCORE_BIT, PRIORITY_BIT,
    PLAYER_REACH4, MISSILE_REACH4, BALL_REACH4, PF_MASK, PRIORITY, COLLISION, MOTION, REFLECT,
    HMOVE_BLANK_CYCLE, POKE_DELAY, PF_DELAY, COSMIC_ARK_STEP, COPY_OFFSETS, PLAYER_PIXELS, PF_COVER,
    PLAYER_RUNS, BAR_RUNS, BYTE_SPANS, PLAYER_HULL, MISSILE_HULL, BALL_HULL,
)
from .tia_regs import (
    VSYNC, VBLANK, WSYNC, RSYNC, NUSIZ0, NUSIZ1, COLUP0, COLUP1, COLUPF, COLUBK, CTRLPF, REFP0, REFP1,
    PF0, PF1, PF2, RESP0, RESP1, RESM0, RESM1, RESBL, AUDC0, AUDC1, AUDF0, AUDF1, AUDV0, AUDV1,
    GRP0, GRP1, ENAM0, ENAM1, ENABL, HMP0, HMP1, HMM0, HMM1, HMBL, VDELP0, VDELP1, VDELBL,
    RESMP0, RESMP1, HMOVE, HMCLR, CXCLR, N_WRITE,
    CXM0P, CXM1P, CXP0FB, CXP1FB, CXM0FB, CXM1FB, CXBLPF, CXPPMM, INPT0, INPT3, INPT4, INPT5,
)

HBLANK = 68
INT_MAX = 0x7FFFFFFF
MAX_RESISTANCE = 0x7FFFFFFF


@jit
def wrap_int32(v):
    """C ``int`` wrap-around for clocks that drift across frames."""
    v &= 0xFFFFFFFF
    return v - 0x100000000 if v >= 0x80000000 else v


@jit
def c_div(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------------------------------------------
# masks
# ---------------------------------------------------------------------------------------------------
# the collision pairs (tia_tables._collision_table's bit order) each object takes part in
_P0_PAIRS = (1 << 1) | (1 << 2) | (1 << 4) | (1 << 5) | (1 << 13)
_P1_PAIRS = (1 << 0) | (1 << 3) | (1 << 6) | (1 << 7) | (1 << 13)
_M0_PAIRS = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9) | (1 << 14)
_M1_PAIRS = (1 << 2) | (1 << 3) | (1 << 10) | (1 << 11) | (1 << 14)
_BL_PAIRS = (1 << 5) | (1 << 7) | (1 << 9) | (1 << 11) | (1 << 12)
_PF_PAIRS = (1 << 4) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 12)
# the pairs any of a set of objects (tia_tables' object bits) takes part in
OBJECT_PAIRS = np.zeros(64, dtype=np.int64)
for _objs in range(64):
    for _bit, _pairs in ((P0_BIT, _P0_PAIRS), (P1_BIT, _P1_PAIRS), (M0_BIT, _M0_PAIRS), (M1_BIT, _M1_PAIRS),
                         (BL_BIT, _BL_PAIRS), (PF_BIT, _PF_PAIRS)):
        if _objs & _bit:
            OBJECT_PAIRS[_objs] |= _pairs


@jit(forceinline=True)
def _moved(s, changed, pairs):
    """An object's place or size changed: the pairs it is in are no longer known to be kept apart."""
    if changed:
        s[QV_OK] &= ~pairs


@jit(forceinline=True)
def _set_player(s, skip, pos_reg, nusiz_reg, m_pos, m_mode, m_skip, pairs):
    pos = s[pos_reg]
    mode = s[nusiz_reg] & 7
    _moved(s, pos != s[m_pos] or mode != s[m_mode], pairs)
    s[m_pos] = pos
    s[m_mode] = mode
    s[m_skip] = skip


@jit(forceinline=True)
def _set_missile(s, pos_reg, nusiz_reg, m_pos, m_num, m_size, pairs):
    pos = s[pos_reg]
    num = s[nusiz_reg] & 7
    size = (s[nusiz_reg] & 0x30) >> 4
    _moved(s, pos != s[m_pos] or num != s[m_num] or size != s[m_size], pairs)
    s[m_pos] = pos
    s[m_num] = num
    s[m_size] = size


@jit
def _set_p0_mask(s, skip):
    _set_player(s, skip, T_POSP0, T_NUSIZ0, T_P0M_POS, T_P0M_MODE, T_P0M_SKIP, _P0_PAIRS)


@jit
def _set_p1_mask(s, skip):
    _set_player(s, skip, T_POSP1, T_NUSIZ1, T_P1M_POS, T_P1M_MODE, T_P1M_SKIP, _P1_PAIRS)


@jit
def _set_m0_mask(s):
    _set_missile(s, T_POSM0, T_NUSIZ0, T_M0M_POS, T_M0M_NUM, T_M0M_SIZE, _M0_PAIRS)
    s[T_M0M_OFF] = 0


@jit
def _set_m1_mask(s):
    _set_missile(s, T_POSM1, T_NUSIZ1, T_M1M_POS, T_M1M_NUM, T_M1M_SIZE, _M1_PAIRS)


@jit
def _set_bl_mask(s):
    pos = s[T_POSBL]
    size = (s[T_CTRLPF] & 0x30) >> 4
    _moved(s, pos != s[T_BLM_POS] or size != s[T_BLM_SIZE], _BL_PAIRS)
    s[T_BLM_POS] = pos
    s[T_BLM_SIZE] = size


# ---------------------------------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------------------------------
@jit(forceinline=True)
def _wrap160(d):
    """``d % 160`` for -160 <= d < 320 (a pixel offset from an object's position), without a division."""
    if d < 0:
        return d + 160
    if d >= 160:
        return d - 160
    return d


@jit
def _block_clear(s, objs, x):
    """True when none of the objects in ``objs`` covers a pixel of [x, x + 4): one table lookup per object."""
    if (objs & P0_BIT) and PLAYER_REACH4[s[T_P0M_SKIP], s[T_P0M_MODE], _wrap160(x - s[T_P0M_POS])]:
        return False
    if (objs & P1_BIT) and PLAYER_REACH4[s[T_P1M_SKIP], s[T_P1M_MODE], _wrap160(x - s[T_P1M_POS])]:
        return False
    if ((objs & M0_BIT) and s[T_M0M_OFF] == 0
            and MISSILE_REACH4[s[T_M0M_NUM], s[T_M0M_SIZE], _wrap160(x - s[T_M0M_POS])]):
        return False
    if (objs & M1_BIT) and MISSILE_REACH4[s[T_M1M_NUM], s[T_M1M_SIZE], _wrap160(x - s[T_M1M_POS])]:
        return False
    if (objs & BL_BIT) and BALL_REACH4[s[T_BLM_SIZE], _wrap160(x - s[T_BLM_POS])]:
        return False
    return True


@jit
def _fast_value(s, en, sel, x):
    """ALE draws some object combinations four aligned pixels at a time once the objects' masks are
    empty there, which can paint up to three pixels past the update point. Returns the colour of such
    a 4-pixel block starting at ``x``, or -1 where ALE would draw pixel by pixel."""
    pf_on = (s[T_PF] & PF_MASK[s[T_PFM_REFL], x]) != 0
    if sel == PF_BIT or sel == (PF_BIT | PRIORITY_BIT):
        return s[T_COLUPF] if pf_on else s[T_COLUBK]
    if sel == (PF_BIT | SCORE_BIT) or sel == (PF_BIT | SCORE_BIT | PRIORITY_BIT):
        if pf_on:
            return s[T_COLUP0] if x < 80 else s[T_COLUP1]
        return s[T_COLUBK]
    # the combinations ALE has a 4-pixel path for, and the colour it paints when they are clear
    if (en == P0_BIT or en == P1_BIT or en == (P0_BIT | P1_BIT) or en == M0_BIT or en == M1_BIT
            or en == BL_BIT or en == (M0_BIT | M1_BIT) or en == (BL_BIT | M0_BIT) or en == (BL_BIT | M1_BIT)
            or en == (BL_BIT | P1_BIT)):
        under = s[T_COLUBK]
    elif (sel & SCORE_BIT) == 0 and (en == (PF_BIT | P0_BIT) or en == (PF_BIT | P1_BIT)
                                     or en == (PF_BIT | BL_BIT)):
        under = s[T_COLUPF] if pf_on else s[T_COLUBK]
    else:
        return -1
    return under if _block_clear(s, en & ~PF_BIT, x) else -1


@jit(forceinline=True)
def _or_word(ob64, k, c, w, a, b):
    """OR into word ``k`` of ``ob64`` (pixels 8k..8k+7) the part of run ``w`` (pixel c + i in byte i) that
    lies in [a, b)."""
    base = 8 * k
    lo = a - base if a > base else 0
    hi = b - base if b < base + 8 else 8
    d = base - c
    part = w >> np.uint64(8 * d) if d >= 0 else w << np.uint64(-8 * d)
    ob64[k] |= part & BYTE_SPANS[lo, hi]


@jit(forceinline=True)
def _mark_run(ob64, x0, x1, c, w, lo, hi):
    """Mark the eight pixels from ``c`` (0..159, wrapping past 159) whose bytes are set in ``w`` (1 << object
    bit per shown pixel), over [x0, x1) only: a word or two of ``ob`` rather than a byte per pixel. Returns the
    marked hull widened by the pixels the run spans there."""
    a = c if c > x0 else x0
    b = c + 8 if c + 8 < x1 else x1
    if b > a:
        _or_word(ob64, a >> 3, c, w, a, b)
        if ((b - 1) >> 3) != (a >> 3):
            _or_word(ob64, (b - 1) >> 3, c, w, a, b)
        lo = a if a < lo else lo
        hi = b if b > hi else hi
    if c + 8 > 160:      # the wrapped pixels, from pixel 0 on
        b = c + 8 - 160 if c + 8 - 160 < x1 else x1
        if b > x0:
            _or_word(ob64, 0, c - 160, w, x0, b)
            lo = x0 if x0 < lo else lo
            hi = b if b > hi else hi
    return lo, hi


@jit
def _mark_player(ob64, x0, x1, pos, mode, skip, grp, bit, lo, hi):
    """OR ``bit`` into ob[x] where the player's graphics cover pixel x of the segment."""
    if mode == 5 or mode == 7:
        if skip:
            return lo, hi
        shift = 1 if mode == 5 else 2
        c = _wrap160(pos + 1)
        for j in range(1 << shift):
            lo, hi = _mark_run(ob64, x0, x1, _wrap160(c + 8 * j), PLAYER_RUNS[shift, grp, j] * np.uint64(bit),
                               lo, hi)
        return lo, hi
    w = PLAYER_RUNS[0, grp, 0] * np.uint64(bit)
    for k in range(3):
        off = COPY_OFFSETS[mode, k]
        if off < 0 or (k == 0 and skip):
            continue
        lo, hi = _mark_run(ob64, x0, x1, _wrap160(pos + off), w, lo, hi)
    return lo, hi


@jit
def _mark_bar(ob64, x0, x1, pos, number, width, bit, lo, hi):
    """Missiles (copies by NUSIZ number) and the ball (number 0): solid bars ``width`` pixels wide."""
    w = BAR_RUNS[width] * np.uint64(bit)
    for k in range(3):
        off = COPY_OFFSETS[number, k]
        if off < 0:
            continue
        lo, hi = _mark_run(ob64, x0, x1, _wrap160(pos + off), w, lo, hi)
    return lo, hi


@jit(forceinline=True)
def _place(w0, w1, w2, pixels, c):
    """OR a run of <= 32 pixels starting at pixel ``c`` (0..159) into a line's three coverage words;
    pixels past 159 land in word 2's upper half and are wrapped by ``_fold``."""
    o = c & 63
    k = c >> 6
    if k == 0:
        w0 |= pixels << o
        if o > 32:
            w1 |= pixels >> (64 - o)
    elif k == 1:
        w1 |= pixels << o
        if o > 32:
            w2 |= pixels >> (64 - o)
    else:
        w2 |= pixels << o
    return w0, w1, w2


@jit(forceinline=True)
def _fold(w0, w1, w2):
    return w0 | ((w2 >> 32) & 0xFFFFFFFF), w1, w2 & 0xFFFFFFFF


@jit(forceinline=True)
def _player_cover(pos, mode, skip, grp):
    w0 = w1 = w2 = 0
    if mode == 5 or mode == 7:
        if not skip:
            w0, w1, w2 = _place(w0, w1, w2, PLAYER_PIXELS[1 if mode == 5 else 2, grp], _wrap160(pos + 1))
    else:
        pixels = PLAYER_PIXELS[0, grp]
        for k in range(3):
            off = COPY_OFFSETS[mode, k]
            if off >= 0 and not (k == 0 and skip):
                w0, w1, w2 = _place(w0, w1, w2, pixels, _wrap160(pos + off))
    return _fold(w0, w1, w2)


@jit(forceinline=True)
def _bar_cover(pos, number, width):
    w0 = w1 = w2 = 0
    pixels = (1 << width) - 1
    for k in range(3):
        off = COPY_OFFSETS[number, k]
        if off >= 0:
            w0, w1, w2 = _place(w0, w1, w2, pixels, _wrap160(pos + off))
    return _fold(w0, w1, w2)


@jit(forceinline=True)
def _pf_cover(v, r):
    w0 = w1 = w2 = 0
    for nib in range(5):
        q = (v >> (4 * nib)) & 15
        if q:
            w0 |= PF_COVER[r, nib, q, 0]
            w1 |= PF_COVER[r, nib, q, 1]
            w2 |= PF_COVER[r, nib, q, 2]
    return w0, w1, w2


@jit(forceinline=True)
def _cached(s, k, key):
    """Slot ``k`` of the cover cache: (True, its words) when they were built from ``key``."""
    i = CV_WORDS + 3 * k
    return s[CV_KEY + k] == key, s[i], s[i + 1], s[i + 2]


@jit(forceinline=True)
def _cache(s, k, key, w):
    i = CV_WORDS + 3 * k
    s[CV_KEY + k] = key
    s[i] = w[0]
    s[i + 1] = w[1]
    s[i + 2] = w[2]
    return w


@jit(forceinline=True)
def _player_words(s, k, pos, mode, skip, grp):
    key = (1 << 40) | (grp << 24) | (skip << 20) | (mode << 16) | (pos & 0xFFFF)
    hit, w0, w1, w2 = _cached(s, k, key)
    if hit:
        return w0, w1, w2
    return _cache(s, k, key, _player_cover(pos, mode, skip, grp))


@jit(forceinline=True)
def _bar_words(s, k, pos, number, size):
    key = (1 << 40) | (size << 24) | (number << 16) | (pos & 0xFFFF)
    hit, w0, w1, w2 = _cached(s, k, key)
    if hit:
        return w0, w1, w2
    return _cache(s, k, key, _bar_cover(pos, number, 1 << size))


@jit(forceinline=True)
def _pf_words(s, v, r):
    key = (1 << 40) | (r << 20) | v
    hit, w0, w1, w2 = _cached(s, 5, key)
    if hit:
        return w0, w1, w2
    return _cache(s, 5, key, _pf_cover(v, r))


@jit(forceinline=True)
def _below(n, base):
    """The bits of the coverage word starting at pixel ``base`` for pixels < n (0 <= n <= 160)."""
    d = n - base
    if d <= 0:
        return 0
    if d >= 64:
        return -1
    return (1 << d) - 1


@jit(forceinline=True)
def _add(s, objs, bit, k, w0, w1, w2):
    """OR one object's clipped cover into the line's slot ``k`` (stored over it when ``objs`` has no
    ``bit`` yet: slots are not cleared between lines)."""
    i = ACC_WORDS + 3 * k
    if objs & bit:
        s[i] |= w0
        s[i + 1] |= w1
        s[i + 2] |= w2
    else:
        s[i] = w0
        s[i + 1] = w1
        s[i + 2] = w2


@jit
def _undrawn_collisions(s, en, need, x0, x1):
    """Add what objects ``en`` cover of pixels [x0, x1) of a line nobody sees to the line's coverage
    (``flush_coverage`` latches the collisions). A line's segments cover disjoint pixels, so two objects
    meet in the line's union exactly where they met in one segment: the pair tests run once per line,
    not once per segment (a game writes a sprite register several times a line). Coverage is three 64-bit
    words per object, from the same tables ``_render`` marks and scans pixel by pixel when it draws."""
    s0 = _below(x1, 0) & ~_below(x0, 0)
    s1 = _below(x1, 64) & ~_below(x0, 64)
    s2 = _below(x1, 128) & ~_below(x0, 128)
    objs = s[ACC_OBJS]
    added = 0
    u0 = u1 = u2 = 0   # where a sprite whose pair with the playfield is still needed shows
    if en & P0_BIT:
        w0, w1, w2 = _player_words(s, 0, s[T_P0M_POS], s[T_P0M_MODE], s[T_P0M_SKIP], s[T_CURGRP0])
        w0, w1, w2 = w0 & s0, w1 & s1, w2 & s2
        _add(s, objs, P0_BIT, 0, w0, w1, w2)
        added |= P0_BIT
        if need & (1 << 4):
            u0, u1, u2 = u0 | w0, u1 | w1, u2 | w2
    if en & P1_BIT:
        w0, w1, w2 = _player_words(s, 1, s[T_P1M_POS], s[T_P1M_MODE], s[T_P1M_SKIP], s[T_CURGRP1])
        w0, w1, w2 = w0 & s0, w1 & s1, w2 & s2
        _add(s, objs, P1_BIT, 1, w0, w1, w2)
        added |= P1_BIT
        if need & (1 << 6):
            u0, u1, u2 = u0 | w0, u1 | w1, u2 | w2
    if (en & M0_BIT) and s[T_M0M_OFF] == 0:
        w0, w1, w2 = _bar_words(s, 2, s[T_M0M_POS], s[T_M0M_NUM], s[T_M0M_SIZE])
        w0, w1, w2 = w0 & s0, w1 & s1, w2 & s2
        _add(s, objs, M0_BIT, 2, w0, w1, w2)
        added |= M0_BIT
        if need & (1 << 8):
            u0, u1, u2 = u0 | w0, u1 | w1, u2 | w2
    if en & M1_BIT:
        w0, w1, w2 = _bar_words(s, 3, s[T_M1M_POS], s[T_M1M_NUM], s[T_M1M_SIZE])
        w0, w1, w2 = w0 & s0, w1 & s1, w2 & s2
        _add(s, objs, M1_BIT, 3, w0, w1, w2)
        added |= M1_BIT
        if need & (1 << 10):
            u0, u1, u2 = u0 | w0, u1 | w1, u2 | w2
    if en & BL_BIT:
        w0, w1, w2 = _bar_words(s, 4, s[T_BLM_POS], 0, s[T_BLM_SIZE])
        w0, w1, w2 = w0 & s0, w1 & s1, w2 & s2
        _add(s, objs, BL_BIT, 4, w0, w1, w2)
        added |= BL_BIT
        if need & (1 << 12):
            u0, u1, u2 = u0 | w0, u1 | w1, u2 | w2
    # the playfield only matters where such a sprite shows (its other pairs are latched already)
    if (en & PF_BIT) and (u0 | u1 | u2) != 0:
        w0, w1, w2 = _pf_words(s, s[T_PF], s[T_PFM_REFL])
        _add(s, objs, PF_BIT, 5, w0 & u0, w1 & u1, w2 & u2)
        added |= PF_BIT
    s[ACC_OBJS] = objs | added


@jit(forceinline=True)
def _line_cover(s, objs, bit, k):
    if objs & bit:
        i = ACC_WORDS + 3 * k
        return s[i], s[i + 1], s[i + 2]
    return 0, 0, 0


@jit(forceinline=True)
def _pair(need, k, a, b):
    """Collision bit ``k`` when it is still needed and coverages ``a`` and ``b`` meet."""
    if (need >> k) & 1 and ((a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2])) != 0:
        return 1 << k
    return 0


@jit
def flush_coverage(s):
    """Latch the collisions of the current line's undrawn coverage and empty it: at the end of each line,
    before a collision register is read, and when ``run_frame`` returns."""
    objs = s[ACC_OBJS]
    s[ACC_OBJS] = 0
    need = COLLISION[objs & 63] & ~s[T_COLLISION]
    if need == 0:
        return
    p0 = _line_cover(s, objs, P0_BIT, 0)
    p1 = _line_cover(s, objs, P1_BIT, 1)
    m0 = _line_cover(s, objs, M0_BIT, 2)
    m1 = _line_cover(s, objs, M1_BIT, 3)
    bl = _line_cover(s, objs, BL_BIT, 4)
    pf = _line_cover(s, objs, PF_BIT, 5)
    # latch bit order of tia_tables._collision_table
    s[T_COLLISION] |= (_pair(need, 0, m0, p1) | _pair(need, 1, m0, p0) | _pair(need, 2, m1, p0)
                       | _pair(need, 3, m1, p1) | _pair(need, 4, p0, pf) | _pair(need, 5, p0, bl)
                       | _pair(need, 6, p1, pf) | _pair(need, 7, p1, bl) | _pair(need, 8, m0, pf)
                       | _pair(need, 9, m0, bl) | _pair(need, 10, m1, pf) | _pair(need, 11, m1, bl)
                       | _pair(need, 12, bl, pf) | _pair(need, 13, p0, p1) | _pair(need, 14, m0, m1))


@jit(forceinline=True)
def _meets(need, k, a, b):
    return ((need >> k) & 1) != 0 and ((a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2])) != 0


@jit(forceinline=True)
def _hull(t, i):
    return t[i, 0], t[i, 1], t[i, 2]


@jit
def quiet(s, need):
    """``_quiet`` as a call (the renderer's undrawn segments; the CPU's writes inline it)."""
    return _quiet(s, need)


@jit(forceinline=True)
def _quiet(s, need):
    """True when none of the collision pairs in ``need`` can latch on this line or a later one while the
    objects keep their positions, sizes and copies (and the playfield its bits): then undrawn spans add
    nothing whatever the players' graphics, skipped first copies or reflections, or the playfield
    reflection a line's end latches. Each object's hull is a table row (the masks a line's end restores
    are these same positions and sizes); Boxing's boxers, whose pairs with the ropes never latch, keep
    clear of them on almost every line."""
    if s[T_COSMIC_ON]:
        return False  # the starfield moves M0 at every line's end
    need &= ~s[QV_OK]  # pairs found apart since their objects last moved or changed size hold still
    if need == 0:
        return True
    return _apart(s, need)


@jit
def _apart(s, need):
    """``_quiet``'s hull test for the pairs not yet known, remembered when they are all apart. A call, not
    inlined into the CPU's write path: the loop around it ran 4-7 % faster without its body (Boxing,
    Pong, Breakout; tools/ab_engines.py, 150-200 rounds)."""
    z = (0, 0, 0)
    p0 = _hull(PLAYER_HULL[s[T_P0M_MODE]], s[T_P0M_POS]) if need & _P0_PAIRS else z
    p1 = _hull(PLAYER_HULL[s[T_P1M_MODE]], s[T_P1M_POS]) if need & _P1_PAIRS else z
    m0 = _hull(MISSILE_HULL[s[T_M0M_NUM], s[T_M0M_SIZE]], s[T_M0M_POS]) if need & _M0_PAIRS else z
    m1 = _hull(MISSILE_HULL[s[T_M1M_NUM], s[T_M1M_SIZE]], s[T_M1M_POS]) if need & _M1_PAIRS else z
    bl = _hull(BALL_HULL[s[T_BLM_SIZE]], s[T_BLM_POS]) if need & _BL_PAIRS else z
    pf = z
    if need & _PF_PAIRS:
        key = s[T_PF] | (1 << 40)
        if s[QV_PF_KEY] != key:
            a = _pf_cover(s[T_PF], 0)
            b = _pf_cover(s[T_PF], 1)
            s[QV_PF_KEY] = key
            s[QV_PF_WORDS] = a[0] | b[0]
            s[QV_PF_WORDS + 1] = a[1] | b[1]
            s[QV_PF_WORDS + 2] = a[2] | b[2]
        pf = (s[QV_PF_WORDS], s[QV_PF_WORDS + 1], s[QV_PF_WORDS + 2])
    # pair by pair, only those needed (a branch each; all 15 tested branch-free cost more than the rest)
    apart = not (_meets(need, 4, p0, pf) or _meets(need, 6, p1, pf) or _meets(need, 12, bl, pf)
                or _meets(need, 5, p0, bl) or _meets(need, 7, p1, bl) or _meets(need, 13, p0, p1)
                or _meets(need, 0, m0, p1) or _meets(need, 1, m0, p0) or _meets(need, 2, m1, p0)
                or _meets(need, 3, m1, p1) or _meets(need, 8, m0, pf) or _meets(need, 9, m0, bl)
                or _meets(need, 10, m1, pf) or _meets(need, 11, m1, bl) or _meets(need, 14, m0, m1))
    if apart:
        s[QV_OK] |= need
    return apart


@jit(forceinline=True)
def pf_blocks(pf, refl):
    """The line's 40 playfield blocks of four pixels as bits 0-39 of one word (bit b: block b shows the
    playfield), from ``T_PF`` (PF0's four bits, PF1's eight shown last bit first, PF2's eight) and the
    reflection. The drawing loops shift it rather than look each block's bit up in ``PF_BLOCK_MASK``: a
    table read per block vectorises to a gather, which stalled the drawn frame's playfield loop."""
    left = (pf & 0xF) | (REFLECT[(pf >> 4) & 0xFF] << 4) | (pf & 0xFF000)
    right = left
    if refl:  # the right half shows the left one mirrored: bits 0-19 reversed
        right = ((REFLECT[left & 0xFF] << 12) | (REFLECT[(left >> 8) & 0xFF] << 4)
                 | (REFLECT[(left >> 16) & 0x0F] >> 4))
    return np.uint64(left | (right << 20))


@jit
def _draw_playfield(buf, fp, x0, x1, blocks_word, pfl, pfr, bk):
    """Pixels [x0, x1) of a line from ``buf[fp]`` on, playfield or background (``blocks_word`` from
    ``pf_blocks``). Playfield bits are four pixels wide and 4-aligned, as are line starts in the buffer:
    whole runs are one 32-bit store."""
    one = np.uint64(1)
    x = x0
    j = np.uint64(fp)
    while x < x1 and (x & 3):
        store_kept(buf, j, (pfl if x < 80 else pfr) if (blocks_word >> np.uint64(x >> 2)) & one else bk)
        x += 1
        j += one
    # whole blocks, one 32-bit store each (kept scalar: see store_kept)
    blocks = (x1 - x) >> 2
    if blocks > 0:
        buf32 = buf.view(np.uint32)
        at = j >> np.uint64(2)
        b0 = np.uint64(x >> 2)
        left = np.uint32(pfl * 0x01010101)
        right = np.uint32(pfr * 0x01010101)
        back = np.uint32(bk * 0x01010101)
        for i in range(blocks):
            b = b0 + np.uint64(i)
            fore = left if b < np.uint64(20) else right
            store_kept(buf32, at + np.uint64(i), fore if (blocks_word >> b) & one else back)
        x += 4 * blocks
        j += np.uint64(4 * blocks)
    while x < x1:
        store_kept(buf, j, (pfl if x < 80 else pfr) if (blocks_word >> np.uint64(x >> 2)) & one else bk)
        x += 1
        j += one


@jit(forceinline=True)
def _fill(buf, fp, count, colour):
    """``buf[fp:fp + count] = colour``, in whole 32-bit words where aligned, kept scalar (``store_kept``).
    numba's slice assignment computes each element's index with its negative-index fix-up (in vector
    registers whose constants LLVM then loads on every device call)."""
    j = np.uint64(fp)
    end = np.uint64(fp + count)
    one = np.uint64(1)
    while j < end and (j & np.uint64(3)):
        buf[j] = colour
        j += one
    buf32 = buf.view(np.uint32)
    word = np.uint32(colour * 0x01010101)
    words = (end - j) >> np.uint64(2)
    k = j >> np.uint64(2)
    for i in range(words):
        store_kept(buf32, k + np.uint64(i), word)
    j += words << np.uint64(2)
    while j < end:
        store_kept(buf, j, colour)
        j += one


@jit(forceinline=True)
def _undrawn_need(s):
    """The collision latches an undrawn segment drawn now could still set: none under VBLANK or with
    fewer than two objects shown, and collisions only ever set bits — when every pair the objects could
    form is latched already (common between CXCLRs), nothing."""
    en = s[T_ENABLED]
    if (s[T_VBLANK] & 0x02) or (en & (en - 1)) == 0:
        return 0
    return COLLISION[en & 63] & ~s[T_COLLISION]


@jit(forceinline=True)
def within_line_limit(s, clock):
    """Whether colour clock ``clock`` lies on a line up to the frame's line limit: past it, a frame without
    VSYNC ends at the first TIA write."""
    return clock - s[T_FRAMESTART] < (s[T_MAXLINES] + 1) * 228


@jit(forceinline=True)
def frame_constants(s):
    """The frame-start arithmetic the CPU's write path would otherwise redo on every write (``X_CYC0``,
    ``X_CYC0_TRUNC``, ``X_LIMIT``): set at the start of every ``cpu_exec.execute`` call, during which the
    frame start stays put. Only that path reads them (the device path may run outside a call)."""
    fs = s[T_FRAMESTART]
    s[X_CYC0] = -((-fs) // 3)
    s[X_CYC0_TRUNC] = c_div(fs, 3)
    s[X_LIMIT] = fs + (s[T_MAXLINES] + 1) * 228


@jit(forceinline=True)
def write_x(s, cyc):
    """``line_cycle(s, 3 * cyc)``, the CPU cycle within the line, from ``frame_constants``:
    with the frame start 3q - r (0 <= r < 3) both are ``(cyc - X_CYC0) % 76``. One modulo on the write's
    cycle instead of a modulo and a division on its clock, each with Python's sign fix-up."""
    return (cyc - s[X_CYC0]) % 76


@jit(forceinline=True)
def _draw_marked(s, buf, ob, at, lo, hi, blocks_word, pps, coll):
    """The marked pixels of ``ob`` in [lo, hi) over a line whose pixel 0 is ``buf[at]``: each one's colour by
    priority among its objects and the playfield, its collisions ORed into ``coll`` (returned), its mark
    cleared. Four pixels at a time where one set of objects covers a whole 4-aligned block — wide sprites,
    missiles and balls, the common case — as the playfield's bit is one per block too: one colour, one
    collision lookup, one 32-bit store. Objects far apart leave most of [lo, hi) unmarked: eight marks are
    tested at a time (the scratch row is 8-aligned and zero outside the marks, so a skip may run past
    ``hi``). Indices are unsigned (no negative-index fix-ups), and the colour is read from the register
    PRIORITY names, COLUBK + 0..3 in ALE's order, rather than chosen by branches a mixed span mispredicts."""
    ob64 = ob.view(np.uint64)
    ob32 = ob.view(np.uint32)
    buf32 = buf.view(np.uint32)
    x = np.uint64(lo & ~3)
    end = np.uint64(hi)
    while x < end:
        if (x & np.uint64(7)) == 0 and ob64[x >> np.uint64(3)] == 0:
            x += np.uint64(8)
            continue
        q = np.uint64(ob32[x >> np.uint64(2)])
        if q:
            ob32[x >> np.uint64(2)] = 0
            half = np.uint64(1) if x >= np.uint64(80) else np.uint64(0)
            pfb = PF_BIT if (blocks_word >> (x >> np.uint64(2))) & np.uint64(1) else 0
            o = q & np.uint64(0xFF)
            if q == o * np.uint64(0x01010101):
                e = np.int64(o) | pfb
                coll |= COLLISION[e]
                buf32[(at + x) >> np.uint64(2)] = np.uint32(s[T_COLUBK + PRIORITY[half, e | pps]] * 0x01010101)
            else:
                for k in range(4):
                    o = (q >> np.uint64(8 * k)) & np.uint64(0xFF)
                    if o:
                        e = np.int64(o) | pfb
                        coll |= COLLISION[e]
                        buf[at + x + np.uint64(k)] = s[T_COLUBK + PRIORITY[half, e | pps]]
        x += np.uint64(4)
    return coll


@jit(forceinline=True)
def _render(s, buf, ob, fp, count, hpos, draw):
    """Draw ``count`` visible pixels from pixel ``hpos`` of the current line at buffer offset ``fp``,
    accumulating collisions. With ``draw`` false only collisions are computed. ``ob`` is a zeroed
    160-entry scratch row: sprite bits are marked there over the pixels their copies cover, so only
    those pixels go through the priority and collision logic; the rest are playfield or background."""
    if s[T_VBLANK] & 0x02:
        if draw:
            _fill(buf, fp, count, 0)
        return
    en = s[T_ENABLED]
    bk = s[T_COLUBK]
    if en == 0:
        if draw:
            _fill(buf, fp, count, bk)
        return
    if not draw:
        need = _undrawn_need(s)
        if need == 0:
            return
        possible = COLLISION[en & 63]
        # Likewise an object none of whose pairs can add a new bit need not be marked at all
        # (the playfield is never marked, only tested per marked pixel).
        b = P0_BIT
        while b <= BL_BIT:
            if (en & b) and (possible & ~COLLISION[(en & ~b) & 63] & need) == 0:
                en &= ~b
            b <<= 1
        if quiet(s, need):
            return
        _undrawn_collisions(s, en, need, hpos, hpos + count)
        return
    x0 = hpos
    x1 = hpos + count
    lo = 160
    hi = 0
    ob64 = ob.view(np.uint64)
    if en & P0_BIT:
        lo, hi = _mark_player(ob64, x0, x1, s[T_P0M_POS], s[T_P0M_MODE], s[T_P0M_SKIP], s[T_CURGRP0], P0_BIT, lo, hi)
    if en & P1_BIT:
        lo, hi = _mark_player(ob64, x0, x1, s[T_P1M_POS], s[T_P1M_MODE], s[T_P1M_SKIP], s[T_CURGRP1], P1_BIT, lo, hi)
    if (en & M0_BIT) and s[T_M0M_OFF] == 0:
        lo, hi = _mark_bar(ob64, x0, x1, s[T_M0M_POS], s[T_M0M_NUM], 1 << s[T_M0M_SIZE], M0_BIT, lo, hi)
    if en & M1_BIT:
        lo, hi = _mark_bar(ob64, x0, x1, s[T_M1M_POS], s[T_M1M_NUM], 1 << s[T_M1M_SIZE], M1_BIT, lo, hi)
    if en & BL_BIT:
        lo, hi = _mark_bar(ob64, x0, x1, s[T_BLM_POS], 0, 1 << s[T_BLM_SIZE], BL_BIT, lo, hi)
    sel = en | s[T_PPS]
    pps = s[T_PPS]
    if sel == (PF_BIT | SCORE_BIT | PRIORITY_BIT):
        pps = SCORE_BIT  # ALE's dedicated playfield-only path keeps score colours under priority
    pf = s[T_PF] if en & PF_BIT else 0
    blocks_word = pf_blocks(pf, s[T_PFM_REFL]) if pf else np.uint64(0)
    c1 = s[T_COLUPF]
    c2 = s[T_COLUP0]
    c3 = s[T_COLUP1]
    if draw:
        if pf == 0:
            _fill(buf, fp, count, bk)
        else:
            pcl = PRIORITY[0, PF_BIT | pps]
            pcr = PRIORITY[1, PF_BIT | pps]
            pfl = c1 if pcl == 1 else (c2 if pcl == 2 else c3)
            pfr = c1 if pcr == 1 else (c2 if pcr == 2 else c3)
            _draw_playfield(buf, fp, x0, x1, blocks_word, pfl, pfr, bk)
    s[T_COLLISION] = _draw_marked(s, buf, ob, np.uint64(fp - x0), lo, hi, blocks_word, pps, s[T_COLLISION])
    if draw:
        end = fp + count
        if end & 3:
            a = end & ~3
            if a >= fp:
                v = _fast_value(s, en, sel, hpos + (a - fp))
                if v >= 0:
                    # one to three bytes, stored one by one: as a loop LLVM vectorizes it and loads the
                    # vector's constants on every drawing device call
                    ue = np.uint64(end)
                    buf[ue] = v
                    if (end & 3) <= 2:
                        buf[ue + np.uint64(1)] = v
                    if (end & 3) == 1:
                        buf[ue + np.uint64(2)] = v


@jit
def _end_of_line(s):
    if s[ACC_OBJS]:
        flush_coverage(s)
    s[T_PFM_REFL] = s[T_CTRLPF] & 1
    _set_p0_mask(s, 0)
    _set_p1_mask(s, 0)
    if s[T_COSMIC_ON]:
        cnt = (s[T_COSMIC_CNT] + 1) & 3
        s[T_COSMIC_CNT] = cnt
        pos = s[T_POSM0] - COSMIC_ARK_STEP[cnt]
        if pos >= 160:
            pos -= 160
        elif pos < 0:
            pos += 160
        s[T_POSM0] = pos
        _set_m0_mask(s)
        if cnt == 1:
            _moved(s, True, _M0_PAIRS)
            s[T_M0M_SIZE] |= 1   # stretched to at least two pixels
        elif cnt == 2:
            s[T_M0M_OFF] = 1     # not drawn on this line


@jit(forceinline=True)
def _blank(buf, j, n):
    """Black ``n`` <= 8 pixels from ``buf[j]`` (the HMOVE blank); a loop here became a memset call."""
    u = np.uint64(j)
    for k in range(8):
        if k < n:
            buf[u + np.uint64(k)] = 0


@jit(forceinline=True)
def _due(s, clock):
    """Whether drawing up to colour clock ``clock`` covers any pixel of the display window not yet drawn."""
    return not (clock < s[T_STARTDISP] or s[T_LASTUPD] >= s[T_STOPDISP] or s[T_LASTUPD] >= clock)


@jit(forceinline=True)
def _next_span(s, clock):
    """Move the update point to ``clock`` or the line's end, whichever comes first. Returns the piece's
    frame-buffer offset, its visible pixel count and its first colour clock counted from the line's start
    (HBLANK clocks are not visible)."""
    toeol = s[T_TOEOL]
    cfs = 228 - toeol
    last = s[T_LASTUPD]
    if clock > last + toeol:
        n = toeol
        s[T_TOEOL] = 228
        s[T_LASTUPD] = last + n
    else:
        n = clock - last
        s[T_TOEOL] = toeol - n
        s[T_LASTUPD] = clock
    if cfs < HBLANK:
        skip = HBLANK - cfs
        if skip > n:
            skip = n
        cfs += skip
        n -= skip
    fp = s[T_FP]
    s[T_FP] = fp + n
    return fp, n, cfs


@jit(forceinline=True)
def _after_span(s, n, cfs):
    """A piece's end: the HMOVE blank ends once its eight pixels are past; a line's end latches."""
    if s[T_HMBLANK_ON] and cfs < HBLANK + 8 and n + cfs >= HBLANK + 8:
        s[T_HMBLANK_ON] = 0
    if s[T_TOEOL] == 228:
        _end_of_line(s)


@jit(forceinline=True)
def update_frame(s, fb, clock, draw):
    """Draw from the last update point up to colour clock ``clock`` (ALE ``TIA::updateFrame``)."""
    if not _due(s, clock):
        return
    if clock > s[T_STOPDISP]:
        clock = s[T_STOPDISP]
    buf = fb[s[T_FBCUR]]
    while True:
        fp, n, cfs = _next_span(s, clock)
        if n != 0:
            _render(s, buf, fb[2], fp, n, cfs - HBLANK, draw)
        if draw and s[T_HMBLANK_ON] and cfs < HBLANK + 8:
            _blank(buf, fp, (HBLANK + 8) - cfs)
        _after_span(s, n, cfs)
        if s[T_LASTUPD] >= clock:
            break


@jit(forceinline=True)
def advance(s, clock):
    """``update_frame`` on an undrawn frame whose segments up to ``clock`` latch nothing (``quiet``): the
    update point, line ends and HMOVE blank move on exactly as drawing would move them."""
    if not _due(s, clock):
        return
    if clock > s[T_STOPDISP]:
        clock = s[T_STOPDISP]
    while True:
        fp, n, cfs = _next_span(s, clock)
        _after_span(s, n, cfs)
        if s[T_LASTUPD] >= clock:
            break


@jit
def grey_out_frame(s, fb):
    """A frame the CPU did not finish in 25 000 instructions: the undrawn rest is greyed (ALE)."""
    buf = fb[s[T_FBCUR]]
    line = (s[CYC] * 3 - s[T_FRAMESTART]) // 228
    ystart = s[T_YSTART]
    if line < ystart:
        line = ystart
    for row in range(line, s[T_HEIGHT] + ystart):
        base = (row - ystart) * 160
        for x in range(160):
            buf[base + x] = (buf[base + x] & 0x0F) >> 1


# ---------------------------------------------------------------------------------------------------
# register access
# ---------------------------------------------------------------------------------------------------
@jit
def _paddle_bit(s, pin):
    r = s[IN_RES + pin]
    if r == 0:
        return 0x80
    if r == MAX_RESISTANCE or s[T_DUMP_ON]:
        return 0
    needed = int(((1.6 * r) * 0.01e-6) * 1.19e6)
    if s[CYC] > ((s[T_DUMP_CYC] + needed) & 0xFFFFFFFF):
        return 0x80
    return 0


@jit(forceinline=True)
def blank_since_update(s, clock):
    """Whether drawing up to colour clock ``clock`` would draw no pixel and end no line: everything since
    the last update lies in one line's horizontal blank (the update point is ``228 - T_TOEOL`` clocks
    into its line). A register written then shows only from the next span on, whenever that is drawn."""
    return clock - s[T_LASTUPD] <= s[T_TOEOL] - (228 - HBLANK)


@jit(forceinline=True)
def stored_in_blank(s, r, value, cyc):
    """A ``BLANK_STORE`` register's write on a drawn frame (register ``r``, CPU cycle ``cyc``), stored without
    the device path as ``_tia_store`` would when drawing up to it would draw nothing (``blank_since_update``):
    kernels write a line's graphics and colours just after WSYNC and HMOVE, whose device call has drawn
    up to there. Like the other deferred writes it records its clock in ``DEFER_CLK``. Returns False,
    changing nothing, otherwise (and past the line limit, or while sound is logged)."""
    clock = cyc * 3
    at = clock + POKE_DELAY[r]
    if clock >= s[X_LIMIT] or s[AUD_ON] != 0 or not blank_since_update(s, at):
        return False
    if at > s[DEFER_CLK]:
        s[DEFER_CLK] = at
    if r == GRP0 or r == GRP1:
        store_grp(s, r, value)
        _show_grp(s)
    elif r == VDELP0 or r == VDELP1:
        s[T_VDELP0 if r == VDELP0 else T_VDELP1] = value & 0x01
        _show_grp(s)
    elif r == ENABL:
        _store_enabl(s, value)
    elif r == CTRLPF:
        _store_ctrlpf(s, clock, value)
    else:
        store_unseen(s, r, value)
    return True


# Registers ``stored_in_blank`` takes: the colours, the players' graphics and vertical delays, the ball's
# enable and the playfield control (Seaquest writes ~80 of the last four a drawn frame in the blank).
BLANK_STORE = np.zeros(N_WRITE, dtype=np.int64)
for _r in (COLUP0, COLUP1, COLUPF, COLUBK, GRP0, GRP1, VDELP0, VDELP1, ENABL, CTRLPF):
    BLANK_STORE[_r] = 1


@jit(forceinline=True)
def cpu_write_clock(s, cyc, clock, r):
    """``write_clock`` on the CPU's write path (``frame_constants`` set)."""
    delay = POKE_DELAY[r]
    if delay == -1:
        delay = PF_DELAY[write_x(s, cyc) & 3]
    return clock + delay


@jit(forceinline=True)
def write_clock(s, clock, r):
    """The clock a write to register ``r`` at ``clock`` takes effect at (ALE's poke delays; the playfield's
    depends on where in its 4-clock cycle the write falls): drawing runs up to it first."""
    delay = POKE_DELAY[r]
    if delay == -1:
        delay = PF_DELAY[line_cycle(s, clock) & 3]
    return clock + delay


@jit(forceinline=True)
def line_cycle(s, clock):
    """The CPU cycle within its line of colour clock ``clock`` (the CPU's write path has ``write_x``)."""
    return ((clock - s[T_FRAMESTART]) % 228) // 3


@jit(forceinline=True)
def tia_access(s, fb, addr, value, write, draw):
    """A TIA read or write: draw up to the moment it takes effect (ALE ``updateFrame``), then access the
    register. One ``update_frame`` serves both directions: each inlined copy of it costs every device
    call a dozen zeroed stack slots."""
    clock = s[CYC] * 3
    if write:
        clock = write_clock(s, clock, addr & 0x3F)
    update_frame(s, fb, clock, draw)
    if write:
        _tia_store(s, fb, addr, value, draw)
        return value
    if s[ACC_OBJS] and (addr & 0x0F) < INPT0:
        flush_coverage(s)  # a collision register: the line so far counts
    return _tia_load(s, addr)


@jit(forceinline=True)
def _tia_load(s, addr):
    noise = s[DBUS] & 0x3F
    a = addr & 0x0F
    c = s[T_COLLISION]
    if a == CXM0P:
        return (0x80 if c & 0x0001 else 0) | (0x40 if c & 0x0002 else 0) | noise
    if a == CXM1P:
        return (0x80 if c & 0x0004 else 0) | (0x40 if c & 0x0008 else 0) | noise
    if a == CXP0FB:
        return (0x80 if c & 0x0010 else 0) | (0x40 if c & 0x0020 else 0) | noise
    if a == CXP1FB:
        return (0x80 if c & 0x0040 else 0) | (0x40 if c & 0x0080 else 0) | noise
    if a == CXM0FB:
        return (0x80 if c & 0x0100 else 0) | (0x40 if c & 0x0200 else 0) | noise
    if a == CXM1FB:
        return (0x80 if c & 0x0400 else 0) | (0x40 if c & 0x0800 else 0) | noise
    if a == CXBLPF:
        return (0x80 if c & 0x1000 else 0) | noise
    if a == CXPPMM:
        return (0x80 if c & 0x2000 else 0) | (0x40 if c & 0x4000 else 0) | noise
    return tia_input(s, a, noise)


@jit(forceinline=True)
def tia_input(s, a, noise):
    """TIA read registers INPT0 (0x08) to 0x0F (paddles, fire buttons, nothing) with ``noise`` in the
    undriven bits."""
    if a <= INPT3:
        return _paddle_bit(s, a - INPT0) | noise
    if a == INPT4:
        return (0x80 if s[IN_FIRE] else 0) | noise
    if a == INPT5:
        return (0x80 if s[IN_FIRE + 1] else 0) | noise
    return noise


@jit
def _update_grp(s):
    _show_grp(s)


@jit(forceinline=True)
def _show_grp(s):
    """The players' graphics as shown (vertical delay, reflection) and whether they show at all."""
    g0 = s[T_DGRP0] if s[T_VDELP0] else s[T_GRP0]
    s[T_CURGRP0] = REFLECT[g0] if s[T_REFP0] else g0
    g1 = s[T_DGRP1] if s[T_VDELP1] else s[T_GRP1]
    s[T_CURGRP1] = REFLECT[g1] if s[T_REFP1] else g1
    en = s[T_ENABLED] & ~(P0_BIT | P1_BIT)
    if s[T_CURGRP0] != 0:
        en |= P0_BIT
    if s[T_CURGRP1] != 0:
        en |= P1_BIT
    s[T_ENABLED] = en


@jit
def _update_ball_enable(s):
    on = s[T_DENABL] if s[T_VDELBL] else s[T_ENABL]
    if on:
        s[T_ENABLED] |= BL_BIT
    else:
        s[T_ENABLED] &= ~BL_BIT


@jit
def _set_color(s, reg, value):
    color = value & 0xFE
    if s[T_COLORLOSS] and (s[T_LINESLAST] & 1):
        color |= 0x01
    s[reg] = color


@jit
def _reset_player(s, clock, pos_reg, nusiz_reg, which, fb, draw):
    hpos = (clock - s[T_FRAMESTART]) % 228
    newx = 3 if hpos < HBLANK else ((hpos - HBLANK) + 5) % 160
    mode = s[nusiz_reg] & 7
    # Where does the new position fall relative to the copies drawn from the old one?
    d = (newx - s[pos_reg]) % 160
    when = 0
    if mode == 5 or mode == 7:
        width = 16 if mode == 5 else 32
        if d < 4:
            when = -1
        elif d < 4 + width:
            when = 1
    else:
        # ALE fills the "display" (1) ranges after the "delay" (-1) ones, so display wins overlaps.
        # (Copy offsets come from the table, not a tuple literal: iterating a tuple makes numba keep it
        # in a zero-initialised stack slot, and that zeroing ran on every TIA write this is inlined in.)
        for k in range(3):
            o = COPY_OFFSETS[mode, k]
            if o >= 0 and o <= d < o + 4:
                when = -1
        for k in range(3):
            o = COPY_OFFSETS[mode, k]
            if o >= 0 and o + 4 <= d < o + 12:
                when = 1
    if when == 1:
        update_frame(s, fb, clock + 11, draw)
    s[pos_reg] = newx
    if which == 0:
        _set_p0_mask(s, 0 if when == -1 else 1)
    else:
        _set_p1_mask(s, 0 if when == -1 else 1)


@jit
def _audio_write(s, fb, addr, value):
    """Log an audio register write with its cycle so sound can be synthesised time-aligned."""
    if s[AUD_ON] and s[AUD_N] < AUD_LOG_MAX:
        log = fb[2]
        k = AUD_LOG_OFFSET + 5 * s[AUD_N]
        c = s[CYC]
        if c > 0xFFFFFF:
            c = 0xFFFFFF
        log[k] = c & 0xFF
        log[k + 1] = (c >> 8) & 0xFF
        log[k + 2] = (c >> 16) & 0xFF
        log[k + 3] = addr
        log[k + 4] = value
        s[AUD_N] += 1


@jit(forceinline=True)
def _hmove_one(s, x, pos_reg, hm_reg):
    p = s[pos_reg] + MOTION[x, s[hm_reg]]
    if p >= 160:
        p -= 160
    elif p < 0:
        p += 160
    s[pos_reg] = p


@jit(forceinline=True)
def wsync_cycle(s, cyc):
    """The CPU cycle a WSYNC written at ``cyc`` releases the CPU at: the start of the next line."""
    return _released(cyc, c_div(s[T_FRAMESTART], 3))


@jit(forceinline=True)
def cpu_wsync_cycle(s, cyc):
    """``wsync_cycle`` on the CPU's write path (``frame_constants`` set)."""
    return _released(cyc, s[X_CYC0_TRUNC])


@jit(forceinline=True)
def _released(cyc, line0):
    """``wsync_cycle`` with the frame start in CPU cycles as ALE counts it (truncated) given."""
    to_eol = 76 - ((cyc - line0) & 0xFFFFFFFF) % 76
    return cyc + to_eol if to_eol < 76 else cyc


# Registers drawing never reads and which take effect at once (WSYNC, sound, HMOVE amounts, HMCLR, the
# unused addresses: 1; HMM0 unless it starts the starfield: 4), the colours, which only drawn pixels
# read (2), and the players' graphics where undrawn segments would latch nothing before or after the
# write (3): the CPU stores
# them without drawing up to the write (cpu._wr). The next access draws the span in one go with the
# same state, so the pixels — including ALE's 4-pixel runs past an update point — come out the same.
UNSEEN = np.zeros(N_WRITE, dtype=np.int64)
for _r in (WSYNC, AUDC0, AUDC1, AUDF0, AUDF1, AUDV0, AUDV1, HMP0, HMP1, HMM1, HMBL, HMCLR):
    UNSEEN[_r] = 1
for _r in (COLUP0, COLUP1, COLUPF, COLUBK):
    UNSEEN[_r] = 2
for _r in range(CXCLR + 1, N_WRITE):  # no register (RSYNC, which ALE does not emulate, neither)
    UNSEEN[_r] = 1
UNSEEN[RSYNC] = 1
UNSEEN[GRP0] = UNSEEN[GRP1] = 3  # on undrawn frames while no collision is open (grp_unseen)
UNSEEN[HMM0] = 4  # unless it starts Cosmic Ark's starfield, which moves M0 at every line's end
# Registers drawing does read, when the write leaves the TIA exactly as it is (``unchanged``): Pong
# rewrites its playfield, missiles and ball with the same values on ~600 of its ~1 000 writes a frame.
# (GRP0/GRP1, 3 above, are checked the same way first, on drawn frames too.)
for _r in (NUSIZ0, NUSIZ1, CTRLPF, REFP0, REFP1, PF0, PF1, PF2, ENAM0, ENAM1, ENABL, VDELBL):
    UNSEEN[_r] = 5


@jit(forceinline=True)
def store_unseen(s, addr, value):
    """A write to one of the ``UNSEEN`` registers other than WSYNC and GRPx (``addr`` 0-0x3F)."""
    if addr <= COLUBK:
        if addr == COLUP0:
            _set_color(s, T_COLUP0, value)
        elif addr == COLUP1:
            _set_color(s, T_COLUP1, value)
        elif addr == COLUPF:
            _set_color(s, T_COLUPF, value)
        elif addr == COLUBK:
            _set_color(s, T_COLUBK, value)
    elif addr <= AUDV1:
        if addr == AUDC0:
            s[T_AUDC0] = value & 0x0F
        elif addr == AUDC1:
            s[T_AUDC1] = value & 0x0F
        elif addr == AUDF0:
            s[T_AUDF0] = value & 0x1F
        elif addr == AUDF1:
            s[T_AUDF1] = value & 0x1F
        elif addr == AUDV0:
            s[T_AUDV0] = value & 0x0F
        else:
            s[T_AUDV1] = value & 0x0F
    elif addr == HMP0:
        s[T_HMP0] = value >> 4
    elif addr == HMP1:
        s[T_HMP1] = value >> 4
    elif addr == HMM1:
        s[T_HMM1] = value >> 4
    elif addr == HMBL:
        s[T_HMBL] = value >> 4
    elif addr == HMM0:  # not starting the starfield: see starts_starfield
        s[T_HMM0] = value >> 4
    elif addr == HMCLR:
        s[T_HMP0] = 0
        s[T_HMP1] = 0
        s[T_HMM0] = 0
        s[T_HMM1] = 0
        s[T_HMBL] = 0


@jit(forceinline=True)
def unchanged(s, r, value):
    """Whether writing ``value`` to register ``r`` (an ``UNSEEN`` 5 register) now would leave every slot
    ``_tia_store`` sets as it is. Drawing never changes these slots, except the line's end, which only
    brings the object masks back to what a write would set (and Cosmic Ark's starfield, which moves M0:
    NUSIZ0 then takes the full path) — so a check before drawing up to the write holds after it too."""
    if r == PF0:
        return ((s[T_PF] & 0x000FFFF0) | ((value >> 4) & 0x0F)) == s[T_PF]
    if r == PF1:
        return ((s[T_PF] & 0x000FF00F) | (value << 4)) == s[T_PF]
    if r == PF2:
        return ((s[T_PF] & 0x00000FFF) | (value << 12)) == s[T_PF]
    if r == ENAM0:
        return (value & 0x02) == s[T_ENAM0]
    if r == ENAM1:
        return (value & 0x02) == s[T_ENAM1]
    if r == ENABL:
        return (value & 0x02) == s[T_ENABL]
    if r == REFP0:
        return (1 if value & 0x08 else 0) == s[T_REFP0]
    if r == REFP1:
        return (1 if value & 0x08 else 0) == s[T_REFP1]
    if r == VDELBL:
        return (value & 0x01) == s[T_VDELBL]
    if r == GRP0:  # also copies GRP1 into its delayed copy
        return value == s[T_GRP0] and s[T_DGRP1] == s[T_GRP1]
    if r == GRP1:  # also copies GRP0 and ENABL
        return value == s[T_GRP1] and s[T_DGRP0] == s[T_GRP0] and s[T_DENABL] == s[T_ENABL]
    if r == NUSIZ0:
        return (value == s[T_NUSIZ0] and s[T_COSMIC_ON] == 0 and s[T_P0M_POS] == s[T_POSP0]
                and s[T_P0M_SKIP] == 0 and s[T_P0M_MODE] == (value & 7) and s[T_M0M_POS] == s[T_POSM0]
                and s[T_M0M_NUM] == (value & 7) and s[T_M0M_SIZE] == ((value & 0x30) >> 4) and s[T_M0M_OFF] == 0)
    if r == NUSIZ1:
        return (value == s[T_NUSIZ1] and s[T_P1M_POS] == s[T_POSP1] and s[T_P1M_SKIP] == 0
                and s[T_P1M_MODE] == (value & 7) and s[T_M1M_POS] == s[T_POSM1]
                and s[T_M1M_NUM] == (value & 7) and s[T_M1M_SIZE] == ((value & 0x30) >> 4))
    if r == CTRLPF:
        return (value == s[T_CTRLPF] and s[T_PFM_REFL] == (value & 0x01) and s[T_BLM_POS] == s[T_POSBL]
                and s[T_BLM_SIZE] == ((value & 0x30) >> 4))
    return False


@jit(forceinline=True)
def starts_starfield(s, clock, value):
    """Cosmic Ark's starfield: HMM0 changed from 7 to 6 exactly 21 CPU cycles after an HMOVE."""
    return clock == s[T_LASTHMOVE] + 21 * 3 and s[T_HMM0] == 7 and (value >> 4) == 6


@jit(forceinline=True)
def store_grp(s, addr, value):
    """GRP0 (0x1B; also latches GRP1's delayed copy) or GRP1 (0x1C; also GRP0's and ENABL's); the caller
    then calls ``_update_grp`` (one call site in the device path: each costs it a zeroed stack slot)."""
    if addr == GRP0:
        s[T_GRP0] = value
        s[T_DGRP1] = s[T_GRP1]
    else:
        s[T_GRP1] = value
        s[T_DGRP0] = s[T_GRP0]
        s[T_DENABL] = s[T_ENABL]
        _update_ball_enable(s)


@jit(forceinline=True)
def grp_unseen(s, addr, value):
    """An undrawn GRP0/GRP1 write stored without drawing up to it (cpu._wr), when no collision the
    objects it changes could add or take away is still open — every one latched, or its pair kept apart
    on the line whatever the graphics (``quiet``): the span then latches the same either way, and the
    line's end reads nothing a GRP write changes. Pairs of objects the write leaves as they are latch the
    same whenever the span is drawn (whoever draws or skips it checks them then). Returns False, changing
    nothing, otherwise."""
    open_ = ~s[T_COLLISION]
    en = s[T_ENABLED]
    if addr == GRP0:  # P0 shows GRP0 unless vertically delayed; P1's delayed copy takes GRP1
        g0, g1, d0, d1 = value, s[T_GRP1], s[T_DGRP0], s[T_GRP1]
        after = en & ~(P0_BIT | P1_BIT)
        changed = (0 if s[T_VDELP0] else P0_BIT) | (P1_BIT if s[T_VDELP1] else 0)
    else:  # GRP1 also copies ENABL into its delayed copy: the ball shows as ENABL says
        g0, g1, d0, d1 = s[T_GRP0], value, s[T_GRP0], s[T_DGRP1]
        after = (en & ~(P0_BIT | P1_BIT | BL_BIT)) | (BL_BIT if s[T_ENABL] else 0)
        changed = (0 if s[T_VDELP1] else P1_BIT) | (P0_BIT if s[T_VDELP0] else 0) | (BL_BIT if s[T_VDELBL] else 0)
    if (d0 if s[T_VDELP0] else g0) != 0:
        after |= P0_BIT
    if (d1 if s[T_VDELP1] else g1) != 0:
        after |= P1_BIT
    need = (COLLISION[en & 63] | COLLISION[after & 63]) & open_ & OBJECT_PAIRS[changed]
    if need and not _quiet(s, need):
        return False
    store_grp(s, addr, value)
    _show_grp(s)
    return True


@jit(forceinline=True)
def _store_ctrlpf(s, clock, value):
    """CTRLPF written at ``clock``; its reflection bit takes effect at once only when written before colour
    clock ``HBLANK + 79`` of the line (ALE)."""
    s[T_CTRLPF] = value
    s[T_PPS] = (value & 0x06) << 5
    if ((clock - s[T_FRAMESTART]) % 228) < (HBLANK + 79):
        s[T_PFM_REFL] = value & 0x01
    _set_bl_mask(s)


@jit(forceinline=True)
def _store_enabl(s, value):
    s[T_ENABL] = value & 0x02
    _update_ball_enable(s)


@jit(forceinline=True)
def _store_nusiz(s, addr, value):
    if addr == NUSIZ0:
        s[T_NUSIZ0] = value
        _set_p0_mask(s, 0)
        _set_m0_mask(s)
    else:
        s[T_NUSIZ1] = value
        _set_p1_mask(s, 0)
        _set_m1_mask(s)


@jit(forceinline=True)
def _store_pf(s, addr, value):
    pf = s[T_PF]
    if addr == PF0:
        pf = (pf & 0x000FFFF0) | ((value >> 4) & 0x0F)
    elif addr == PF1:
        pf = (pf & 0x000FF00F) | (value << 4)
    else:
        pf = (pf & 0x00000FFF) | (value << 12)
    _moved(s, pf != s[T_PF], _PF_PAIRS)
    s[T_PF] = pf
    if pf == 0:
        s[T_ENABLED] &= ~PF_BIT
    else:
        s[T_ENABLED] |= PF_BIT


@jit(forceinline=True)
def _store_hmove(s, clock, x):
    """HMOVE at colour clock ``clock``, CPU cycle ``x`` of its line, applied instantly from the motion
    table."""
    if s[T_HMBLANKS] and HMOVE_BLANK_CYCLE[x]:
        s[T_HMBLANK_ON] = 1
    # unrolled (a loop over a tuple of register pairs costs a zeroed stack slot on every write)
    _hmove_one(s, x, T_POSP0, T_HMP0)
    _hmove_one(s, x, T_POSP1, T_HMP1)
    _hmove_one(s, x, T_POSM0, T_HMM0)
    _hmove_one(s, x, T_POSM1, T_HMM1)
    _hmove_one(s, x, T_POSBL, T_HMBL)
    _set_bl_mask(s)
    _set_p0_mask(s, 0)
    _set_p1_mask(s, 0)
    _set_m0_mask(s)
    _set_m1_mask(s)
    s[T_LASTHMOVE] = clock
    s[T_COSMIC_ON] = 0


# Registers ``quiet_store`` takes: what they change is where objects are and whether they show.
QUIET_STORE = np.zeros(N_WRITE, dtype=np.int64)
for _r in (NUSIZ0, NUSIZ1, PF0, PF1, PF2, HMOVE):
    QUIET_STORE[_r] = 1


@jit(forceinline=True)
def quiet_store(s, r, value, cyc, clock):
    """A write to a ``QUIET_STORE`` register on an undrawn frame, stored by the CPU (cpu._wr) without the
    device path when the span up to it latches nothing: the TIA's update point moves on as drawing
    would (``advance``), then the register is stored as ``_tia_store`` would. Returns False, changing
    nothing, when the span could latch a collision (the device path then draws it)."""
    need = _undrawn_need(s)
    if need != 0 and not _quiet(s, need):
        return False
    advance(s, cpu_write_clock(s, cyc, clock, r))
    if r == HMOVE:
        _store_hmove(s, clock, write_x(s, cyc))
    elif r == NUSIZ0 or r == NUSIZ1:
        _store_nusiz(s, r, value)
    else:
        _store_pf(s, r, value)
    return True


@jit(forceinline=True)
def _tia_store(s, fb, addr, value, draw):
    addr &= 0x3F
    clock = s[CYC] * 3
    grp = False  # the players' graphics need recomputing (one call site for four registers)

    # A frame that runs past the line limit without VSYNC ends at the first TIA write.
    if not within_line_limit(s, clock):
        s[EXEC] |= EX_STOP
        s[T_PARTIAL] = 0

    if addr == VSYNC:
        s[T_VSYNC] = value
        if value & 0x02:
            s[T_VSYNCFIN] = clock + 228
        elif clock >= s[T_VSYNCFIN]:
            s[T_VSYNCFIN] = INT_MAX
            s[EXEC] |= EX_STOP
            s[T_PARTIAL] = 0
    elif addr == VBLANK:
        old = s[T_VBLANK]
        if not (old & 0x80) and (value & 0x80):
            s[T_DUMP_ON] = 1
        if (old & 0x80) and not (value & 0x80):
            s[T_DUMP_ON] = 0
            s[T_DUMP_CYC] = s[CYC]
        s[T_VBLANK] = value
    elif addr == WSYNC:  # the CPU only halts on a read cycle
        if s[LAST_READ]:
            s[CYC] = wsync_cycle(s, s[CYC])
    elif addr == RSYNC:  # not emulated by ALE
        pass
    elif addr == NUSIZ0 or addr == NUSIZ1:
        _store_nusiz(s, addr, value)
    elif COLUP0 <= addr <= COLUBK:
        store_unseen(s, addr, value)
    elif addr == CTRLPF:
        _store_ctrlpf(s, clock, value)
    elif addr == REFP0:
        on = 1 if value & 0x08 else 0
        if on != s[T_REFP0]:
            s[T_REFP0] = on
            s[T_CURGRP0] = REFLECT[s[T_CURGRP0]]
    elif addr == REFP1:
        on = 1 if value & 0x08 else 0
        if on != s[T_REFP1]:
            s[T_REFP1] = on
            s[T_CURGRP1] = REFLECT[s[T_CURGRP1]]
    elif addr == PF0 or addr == PF1 or addr == PF2:
        _store_pf(s, addr, value)
    elif addr == RESP0 or addr == RESP1:  # one call site for both: each costs a zeroed slot per device call
        w = addr - RESP0
        _reset_player(s, clock, T_POSP0 if w == 0 else T_POSP1, T_NUSIZ0 if w == 0 else T_NUSIZ1, w, fb, draw)
    elif addr == RESM0:
        hpos = (clock - s[T_FRAMESTART]) % 228
        s[T_POSM0] = 2 if hpos < HBLANK else ((hpos - HBLANK) + 4) % 160
        if (clock - s[T_LASTHMOVE]) == 20 * 3 and hpos == 69:
            s[T_POSM0] = 8
        _set_m0_mask(s)
    elif addr == RESM1:
        hpos = (clock - s[T_FRAMESTART]) % 228
        s[T_POSM1] = 2 if hpos < HBLANK else ((hpos - HBLANK) + 4) % 160
        if (clock - s[T_LASTHMOVE]) == 3 * 3 and hpos == 18:
            s[T_POSM1] = 3
        _set_m1_mask(s)
    elif addr == RESBL:
        hpos = (clock - s[T_FRAMESTART]) % 228
        s[T_POSBL] = 2 if hpos < HBLANK else ((hpos - HBLANK) + 4) % 160
        since = clock - s[T_LASTHMOVE]
        if since == 18 * 3 and (hpos == 60 or hpos == 69):
            s[T_POSBL] = 10
        elif since == 3 * 3 and hpos == 18:
            s[T_POSBL] = 3
        elif since == 7 * 3 and hpos == 30:
            s[T_POSBL] = 6
        elif since == 6 * 3 and hpos == 27:
            s[T_POSBL] = 5
        _set_bl_mask(s)
    elif AUDC0 <= addr <= AUDV1:
        _audio_write(s, fb, addr, value)
        store_unseen(s, addr, value)
    elif addr == GRP0 or addr == GRP1:
        store_grp(s, addr, value)
        grp = True
    elif addr == ENAM0:
        s[T_ENAM0] = value & 0x02
        if s[T_ENAM0] and not s[T_RESMP0]:
            s[T_ENABLED] |= M0_BIT
        else:
            s[T_ENABLED] &= ~M0_BIT
    elif addr == ENAM1:
        s[T_ENAM1] = value & 0x02
        if s[T_ENAM1] and not s[T_RESMP1]:
            s[T_ENABLED] |= M1_BIT
        else:
            s[T_ENABLED] &= ~M1_BIT
    elif addr == ENABL:
        _store_enabl(s, value)
    elif addr == HMP0 or addr == HMP1 or addr == HMM1 or addr == HMBL or addr == HMCLR:
        store_unseen(s, addr, value)
    elif addr == HMM0:
        if starts_starfield(s, clock, value):
            s[T_COSMIC_ON] = 1
            s[T_COSMIC_CNT] = 0
        s[T_HMM0] = value >> 4
    elif addr == VDELP0:
        s[T_VDELP0] = value & 0x01
        grp = True
    elif addr == VDELP1:
        s[T_VDELP1] = value & 0x01
        grp = True
    elif addr == VDELBL:
        s[T_VDELBL] = value & 0x01
        _update_ball_enable(s)
    elif addr == RESMP0 or addr == RESMP1:
        if addr == RESMP0:
            pos_m, pos_p, nus, resmp, enam, bit = T_POSM0, T_POSP0, T_NUSIZ0, T_RESMP0, T_ENAM0, M0_BIT
        else:
            pos_m, pos_p, nus, resmp, enam, bit = T_POSM1, T_POSP1, T_NUSIZ1, T_RESMP1, T_ENAM1, M1_BIT
        if s[resmp] and not (value & 0x02):
            mode = s[nus] & 7
            middle = 8 if mode == 5 else (16 if mode == 7 else 4)
            s[pos_m] = (s[pos_p] + middle) % 160
            if addr == RESMP0:
                _set_m0_mask(s)
            else:
                _set_m1_mask(s)
        s[resmp] = value & 0x02
        if s[enam] and not s[resmp]:
            s[T_ENABLED] |= bit
        else:
            s[T_ENABLED] &= ~bit
    elif addr == HMOVE:
        _store_hmove(s, clock, line_cycle(s, clock))
    elif addr == CXCLR:
        s[T_COLLISION] = 0
        s[ACC_OBJS] = 0  # the line's pending coverage would latch before the clear: it goes with it
    if grp:
        _update_grp(s)


# ---------------------------------------------------------------------------------------------------
# frame boundaries and resets
# ---------------------------------------------------------------------------------------------------
@jit
def tia_cycles_reset(s, cycles):
    """The system clock is about to be rebased to 0: move our clock stamps along (ALE semantics)."""
    clocks = cycles * 3
    s[T_DUMP_CYC] = wrap_int32(s[T_DUMP_CYC] - cycles)
    s[T_FRAMESTART] = wrap_int32(s[T_FRAMESTART] - clocks)
    s[T_STARTDISP] = wrap_int32(s[T_STARTDISP] - clocks)
    s[T_STOPDISP] = wrap_int32(s[T_STOPDISP] - clocks)
    s[T_LASTUPD] = wrap_int32(s[T_LASTUPD] - clocks)
    s[T_VSYNCFIN] = wrap_int32(s[T_VSYNCFIN] - clocks)
    s[T_LASTHMOVE] = wrap_int32(s[T_LASTHMOVE] - clocks)


@jit
def frame_reset(s, fb):
    """Frame bookkeeping after a TIA reset (ALE ``frameReset``): both buffers cleared."""
    fb[:2, :] = 0
    s[T_FP] = 0
    start_off = 228 * s[T_YSTART]
    stop_off = start_off + 228 * s[T_HEIGHT]
    s[T_FRAMESTART] = s[CYC] * 3
    s[T_STARTDISP] = s[T_FRAMESTART] + start_off
    s[T_STOPDISP] = s[T_FRAMESTART] + stop_off
    s[T_LASTUPD] = s[T_FRAMESTART]
    s[T_TOEOL] = 228
    s[T_VSYNCFIN] = INT_MAX
    s[T_LINESLAST] = 0
    s[T_CURLINE] = 0


@jit
def tia_reset(s, fb, pal):
    for r in (T_ENABLED, T_VSYNC, T_VBLANK, T_NUSIZ0, T_NUSIZ1, T_COLUP0, T_COLUP1, T_COLUPF, T_PPS,
              T_COLUBK, T_CTRLPF, T_REFP0, T_REFP1, T_PF, T_GRP0, T_GRP1, T_DGRP0, T_DGRP1, T_ENAM0,
              T_ENAM1, T_ENABL, T_DENABL, T_HMP0, T_HMP1, T_HMM0, T_HMM1, T_HMBL, T_VDELP0, T_VDELP1,
              T_VDELBL, T_RESMP0, T_RESMP1, T_COLLISION, T_POSP0, T_POSP1, T_POSM0, T_POSM1, T_POSBL,
              T_CURGRP0, T_CURGRP1, T_LASTHMOVE, T_HMBLANK_ON, T_COSMIC_ON, T_COSMIC_CNT,
              T_DUMP_ON, T_DUMP_CYC, T_AUDC0, T_AUDC1, T_AUDF0, T_AUDF1, T_AUDV0, T_AUDV1, ACC_OBJS):
        s[r] = 0
    _set_bl_mask(s)
    _set_m0_mask(s)
    _set_m1_mask(s)
    _set_p0_mask(s, 0)
    _set_p1_mask(s, 0)
    s[T_PFM_REFL] = 0
    if pal:
        s[T_COLORLOSS] = 1
        s[T_MAXLINES] = 342
    else:
        s[T_COLORLOSS] = 0
        s[T_MAXLINES] = 290
    frame_reset(s, fb)
