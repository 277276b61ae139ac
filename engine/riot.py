"""M6532 RIOT: 128 bytes of RAM, the two I/O ports and the interval timer, as ALE's core models them.

The timer follows ALE's formula-based model, including its "T-1 on the first
read" convention and the peculiar slow negative count after the first read past expiry. Cycle stamps are
C ``int`` values and the arithmetic is done modulo 2^32, exactly as the C++ mixes int and uint32.
"""
from __future__ import annotations

from ._jit import jit
from .layout import (CYC, R_TIMER, R_SHIFT, R_SETCYC, R_INTCYC, R_READAFTER, R_DDRA, R_DDRB,
                     IN_SWCHA, IN_SWITCHES, MT_IDX, MT0)
from .rng import mt_next

U32 = 0xFFFFFFFF


@jit
def _to_int32(v):
    v &= U32
    return v - 0x100000000 if v >= 0x80000000 else v


@jit
def riot_peek(s, addr):
    a = addr & 0x07
    if a == 0x00:
        return s[IN_SWCHA]
    if a == 0x01:
        return s[R_DDRA]
    if a == 0x02:
        return s[IN_SWITCHES]
    if a == 0x03:
        return s[R_DDRB]
    cycles = (s[CYC] - 1) & U32
    delta = (cycles - s[R_SETCYC]) & U32
    shift = s[R_SHIFT]
    timer = s[R_TIMER]
    t = _to_int32(timer - (delta >> shift) - 1)
    if a == 0x04 or a == 0x06:  # INTIM
        if t >= 0:
            return t & 0xFF
        t = _to_int32((timer << shift) - delta - 1)
        if t <= -2 and not s[R_READAFTER]:
            s[R_READAFTER] = 1
            s[R_INTCYC] = _to_int32(s[CYC])
        if s[R_READAFTER]:
            offset = _to_int32(s[R_INTCYC] - (s[R_SETCYC] + (timer << shift)))
            t = _to_int32(timer - (delta >> shift) - offset)
        return t & 0xFF
    # TIMINT ($05/$07)
    if t >= 0 or s[R_READAFTER]:
        return 0x00
    return 0x80


@jit
def riot_poke(s, addr, value):
    a = addr & 0x07
    if a == 0x00:
        return  # port A writes reach the controllers, which ignore them
    if a == 0x01:
        s[R_DDRA] = value
        return
    if a == 0x02 or a == 0x03:
        return  # port B is read-only (console switches); DDRB writes are ignored
    k = addr & 0x17
    if k >= 0x14:
        s[R_TIMER] = value
        # TIM1T/TIM8T/TIM64T/T1024T; no tuple indexing (numba would give it a zeroed stack slot
        # in every bus write it is inlined into)
        s[R_SHIFT] = 0 if k == 0x14 else (3 if k == 0x15 else (6 if k == 0x16 else 10))
        s[R_SETCYC] = _to_int32(s[CYC])
        s[R_READAFTER] = 0
    # (addr & 0x14) == 0x04: edge-detect control, not emulated


@jit
def riot_reset(s):
    s[R_TIMER] = 25 + mt_next(s, MT_IDX, MT0) % 75
    s[R_SHIFT] = 6
    s[R_SETCYC] = 0
    s[R_INTCYC] = 0
    s[R_READAFTER] = 0
    s[R_DDRA] = 0
    s[R_DDRB] = 0


@jit
def riot_cycles_reset(s, cycles):
    s[R_SETCYC] = _to_int32(s[R_SETCYC] - cycles)
    s[R_INTCYC] = _to_int32(s[R_INTCYC] - cycles)
