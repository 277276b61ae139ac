"""Compiled cartridge behaviour on the bus: bank-switch hotspots, Superchip RAM, FE's A13 decoding and
the DPC (Pitfall II) coprocessor — one small function per scheme, keyed by ``carts.S_*`` ids."""
from __future__ import annotations

import numpy as np

from .carts import S_2K, S_4K, S_F8, S_F8SWAP, S_F8SC, S_F6, S_F6SC, S_F4, S_F4SC, S_E0, S_FE, S_DPC

from ._jit import jit
from .layout import (C_SCHEME, C_BANK, C_RESETBANK, C_SLICE, C_XRAM_SIZE, C_FAST_LO, C_FAST_HI, C_BASE, C_PAGE,
                     D_TOPS, D_BOTTOMS,
                     D_COUNTERS, D_FLAGS, D_MUSIC, D_RNG, D_SYSCYC, D_FRAC, CYC, XRAM0, MT_IDX, MT0)
from .rng import mt_next

_DPC_RNG_INPUT = np.array([1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1], dtype=np.int64)
_DPC_AMPLITUDE = np.array([0x00, 0x04, 0x05, 0x09, 0x06, 0x0A, 0x0B, 0x0F], dtype=np.int64)


@jit
def update_map(s):
    """Recompute the direct-read window and the ROM offset of each 1K slice after a bank switch."""
    scheme = s[C_SCHEME]
    if scheme == S_2K:
        lo, hi = 0, 0x1000
        for k in range(4):
            s[C_BASE + k] = (k & 1) * 1024
    elif scheme == S_4K:
        lo, hi = 0, 0x1000
        for k in range(4):
            s[C_BASE + k] = k * 1024
    elif scheme == S_E0:
        lo, hi = 0, 0xFC0
        for k in range(4):
            s[C_BASE + k] = s[C_SLICE + k] * 1024
    elif scheme == S_FE:
        lo, hi = 0, 0  # the bank follows CPU address line A13: always the device path
    else:
        if scheme == S_DPC:
            lo, hi = 0x80, 0xFC0
        elif scheme == S_F8SC or scheme == S_F6SC or scheme == S_F4SC:
            lo, hi = 0x100, 0xFC0
        else:
            lo, hi = 0, 0xFC0
        for k in range(4):
            s[C_BASE + k] = s[C_BANK] * 4096 + k * 1024
    s[C_FAST_LO] = lo
    s[C_FAST_HI] = hi
    for p in range(64):
        off = p * 64
        s[C_PAGE + p] = s[C_BASE + (off >> 10)] + (off & 0x03FF) if lo <= off < hi else -1


@jit
def _hotspot(s, scheme, a):
    """Bank switching on any access (read or write) to a hotspot address (a = addr & 0xFFF). The page map
    is recomputed only when the mapping changed: DPC reaches here on every top-page read, and games
    select the bank already mapped."""
    bank = s[C_BANK]
    if scheme == S_F8 or scheme == S_F8SWAP or scheme == S_F8SC or scheme == S_DPC:
        if a == 0xFF8:
            bank = 0
        elif a == 0xFF9:
            bank = 1
    elif scheme == S_F6 or scheme == S_F6SC:
        if 0xFF6 <= a <= 0xFF9:
            bank = a - 0xFF6
    elif scheme == S_F4 or scheme == S_F4SC:
        if 0xFF4 <= a <= 0xFFB:
            bank = a - 0xFF4
    elif scheme == S_E0:
        if 0xFE0 <= a <= 0xFF7:
            k = (a - 0xFE0) >> 3
            if s[C_SLICE + k] != (a & 7):
                s[C_SLICE + k] = a & 7
                update_map(s)
        return
    if bank != s[C_BANK]:
        s[C_BANK] = bank
        update_map(s)


@jit(forceinline=True)
def _dpc_clock_rng(s):
    r = s[D_RNG]
    bit = _DPC_RNG_INPUT[((r >> 3) & 0x07) | (0x08 if r & 0x80 else 0)]
    s[D_RNG] = ((r << 1) | bit) & 0xFF


@jit
def _dpc_update_music(s):
    cycles = (s[CYC] - s[D_SYSCYC]) & 0xFFFFFFFF
    if cycles >= 0x80000000:
        cycles -= 0x100000000
    s[D_SYSCYC] = s[CYC]
    frac = s[D_FRAC:D_FRAC + 1].view(np.float64)
    clocks = ((15750.0 * cycles) / 1193191.66666667) + frac[0]
    whole = int(clocks)
    frac[0] = clocks - float(whole)
    if whole <= 0:
        return
    for x in range(5, 8):
        if s[D_MUSIC + x - 5]:
            top = s[D_TOPS + x] + 1
            low = s[D_COUNTERS + x] & 0xFF
            if s[D_TOPS + x] != 0:
                # a scanline's clocks are fewer than the counter's period: skip the division then
                low -= whole if whole < top else whole % top
                if low < 0:
                    low += top
            else:
                low = 0
            if low <= s[D_BOTTOMS + x]:
                s[D_FLAGS + x] = 0x00
            elif low <= s[D_TOPS + x]:
                s[D_FLAGS + x] = 0xFF
            s[D_COUNTERS + x] = (s[D_COUNTERS + x] & 0x0700) | low


@jit(forceinline=True)
def _dpc_peek(s, rom, a):
    _dpc_clock_rng(s)
    if a < 0x40:
        i = a & 0x07
        fn = (a >> 3) & 0x07
        low = s[D_COUNTERS + i] & 0xFF
        if low == s[D_TOPS + i]:
            s[D_FLAGS + i] = 0xFF
        elif low == s[D_BOTTOMS + i]:
            s[D_FLAGS + i] = 0x00
        result = 0
        if fn == 0:
            if i < 4:
                result = s[D_RNG]
            else:
                _dpc_update_music(s)
                k = 0
                if s[D_MUSIC] and s[D_FLAGS + 5]:
                    k |= 1
                if s[D_MUSIC + 1] and s[D_FLAGS + 6]:
                    k |= 2
                if s[D_MUSIC + 2] and s[D_FLAGS + 7]:
                    k |= 4
                result = _DPC_AMPLITUDE[k]
        elif fn == 1:
            result = rom[8192 + 2047 - s[D_COUNTERS + i]]
        elif fn == 2:
            result = rom[8192 + 2047 - s[D_COUNTERS + i]] & s[D_FLAGS + i]
        elif fn == 7:
            result = s[D_FLAGS + i]
        if i < 5 or not s[D_MUSIC + i - 5]:
            s[D_COUNTERS + i] = (s[D_COUNTERS + i] - 1) & 0x07FF
        return result
    _hotspot(s, S_DPC, a)
    return rom[s[C_BANK] * 4096 + a]


@jit
def _dpc_poke(s, a, value):
    _dpc_clock_rng(s)
    if 0x40 <= a < 0x80:
        i = a & 0x07
        fn = (a >> 3) & 0x07
        if fn == 0:
            s[D_TOPS + i] = value
            s[D_FLAGS + i] = 0
        elif fn == 1:
            s[D_BOTTOMS + i] = value
        elif fn == 2:
            if i >= 5 and s[D_MUSIC + i - 5]:
                s[D_COUNTERS + i] = (s[D_COUNTERS + i] & 0x0700) | s[D_TOPS + i]
            else:
                s[D_COUNTERS + i] = (s[D_COUNTERS + i] & 0x0700) | value
        elif fn == 3:
            s[D_COUNTERS + i] = ((value & 0x07) << 8) | (s[D_COUNTERS + i] & 0x00FF)
            if i >= 5:
                s[D_MUSIC + i - 5] = 1 if value & 0x10 else 0
        elif fn == 6:
            s[D_RNG] = 1
    else:
        _hotspot(s, S_DPC, a)


@jit(inline="always")
def superchip_read(s, a):
    """A read of Superchip RAM's read port (a = addr & 0xFFF in $080-$0FF) on F8SC, F6SC or F4SC: the RAM
    byte, without side effects; else -1."""
    if a < 0x80 or a >= 0x100:
        return -1
    scheme = s[C_SCHEME]
    if scheme == S_F8SC or scheme == S_F6SC or scheme == S_F4SC:
        return s[XRAM0 + (a & 0x7F)]
    return -1


@jit(forceinline=True)
def cart_peek(s, rom, addr):
    """A read in $1000-$1FFF (mirrors included); ``addr`` is the full CPU address (FE needs A13)."""
    scheme = s[C_SCHEME]
    a = addr & 0x0FFF
    if scheme == S_4K:
        return rom[a]
    if scheme == S_2K:
        return rom[a & 0x07FF]
    if scheme == S_DPC:
        if a < 0x80 or a >= 0xFC0:
            return _dpc_peek(s, rom, a)
        return rom[s[C_BANK] * 4096 + a]
    if scheme == S_E0:
        if a >= 0xFC0:
            _hotspot(s, scheme, a)
        return rom[(s[C_SLICE + (a >> 10)] << 10) + (a & 0x03FF)]
    if scheme == S_FE:
        return rom[addr & 0x3FFF]  # carts.fe_image: the bank by A13
    v = superchip_read(s, a)
    if v >= 0:
        return v
    if a >= 0xFC0:
        _hotspot(s, scheme, a)
    return rom[s[C_BANK] * 4096 + a]


@jit
def cart_poke(s, addr, value):
    scheme = s[C_SCHEME]
    a = addr & 0x0FFF
    if scheme == S_2K or scheme == S_4K or scheme == S_FE:
        return
    if scheme == S_DPC:
        _dpc_poke(s, a, value)
        return
    if (scheme == S_F8SC or scheme == S_F6SC or scheme == S_F4SC) and a < 0x80:
        s[XRAM0 + a] = value
        return
    _hotspot(s, scheme, a)


@jit
def cart_reset(s):
    scheme = s[C_SCHEME]
    for i in range(s[C_XRAM_SIZE]):
        s[XRAM0 + i] = mt_next(s, MT_IDX, MT0) & 0xFF
    s[C_BANK] = s[C_RESETBANK]
    if scheme == S_E0:
        s[C_SLICE] = 4
        s[C_SLICE + 1] = 5
        s[C_SLICE + 2] = 6
        s[C_SLICE + 3] = 7
    elif scheme == S_DPC:
        s[D_SYSCYC] = s[CYC]
        s[D_FRAC:D_FRAC + 1].view(np.float64)[0] = 0.0
    update_map(s)


@jit
def cart_cycles_reset(s, cycles):
    if s[C_SCHEME] == S_DPC:
        v = (s[D_SYSCYC] - cycles) & 0xFFFFFFFF
        s[D_SYSCYC] = v - 0x100000000 if v >= 0x80000000 else v
