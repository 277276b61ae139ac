"""NMOS 6502 as ALE's "Low" CPU runs it (ale-behaviour.md §3.2).

Timing convention: the opcode is fetched, then the instruction's whole base cycle count is charged before
any operand access, plus page-cross/branch extras — so every TIA/RIOT access is stamped at the end of the
instruction. No addressing-mode dummy reads and no RMW double writes; only the stack instructions' dummy
peeks (JSR, RTS, RTI, PLA, PLP, BRK). Decimal mode uses table-based BCD with N/Z from the BCD result.
Decoding is data-driven: ``opcodes.MODE``/``ACCESS`` choose the operand, ``opcodes.OPERATION`` the work.
"""
from __future__ import annotations

import numpy as np

from . import opcodes as oc
from ._jit import jit
from .riot import riot_peek
from .bus import S_FLAT64K, peek as bus_peek, poke as bus_poke, read as bus_read, write as bus_write
from .layout import (A, X, Y, SP, PC, IR, FN, FV, FB, FD, FI, FNZ, FC, EXEC, EX_FATAL, LAST_READ, CYC,
                     INSTR, JAMMED, DBUS, RAM0, C_SCHEME, C_PAGE)

CYCLES = oc.CYCLES
MODE_BYTES = np.array(oc.MODE_BYTES, dtype=np.int64)
# Everything the loop needs about an opcode in one word: cycles | mode << 4 | access << 8 | operation << 12
# | instruction bytes << 20.
INFO = (CYCLES | (oc.MODE << 4) | (oc.ACCESS << 8) | (oc.OPERATION << 12)
        | (MODE_BYTES[oc.MODE] << 20)).astype(np.int64)
OPERATION = oc.OPERATION
MODE = oc.MODE
ACCESS = oc.ACCESS

# Stella's decimal tables: [0..255] BCD byte -> value, [256..511] value -> BCD byte. SBC can index
# below 256 with a negative difference; the flat layout reproduces what the C++ 2-D table does then.
BCD = np.zeros(512, dtype=np.int64)
for _t in range(256):
    BCD[_t] = ((_t >> 4) * 10) + (_t & 0x0F)
    BCD[256 + _t] = (((_t % 100) // 10) << 4) | (_t % 10)

(O_ADC, O_AND, O_ASL, O_ASLA, O_BCC, O_BCS, O_BEQ, O_BIT, O_BMI, O_BNE, O_BPL, O_BRK, O_BVC, O_BVS, O_CLC,
 O_CLD, O_CLI, O_CLV, O_CMP, O_CPX, O_CPY, O_DEC, O_DEX, O_DEY, O_EOR, O_INC, O_INX, O_INY, O_JMP, O_JSR,
 O_LDA, O_LDX, O_LDY, O_LSR, O_LSRA, O_NOP, O_ORA, O_PHA, O_PHP, O_PLA, O_PLP, O_ROL, O_ROLA, O_ROR, O_RORA,
 O_RTI, O_RTS, O_SBC, O_SEC, O_SED, O_SEI, O_STA, O_STX, O_STY, O_TAX, O_TAY, O_TSX, O_TXA, O_TXS, O_TYA,
 O_ANC, O_ANE, O_ARR, O_ASR, O_DCP, O_ISB, O_LAS, O_LAX, O_LXA, O_RLA, O_RRA, O_SAX, O_SBX, O_SHA, O_SHS,
 O_SHX, O_SHY, O_SLO, O_SRE, O_JAM) = range(len(oc.OPS))
assert oc.OPS[O_JAM] == "JAM"


@jit(inline="always")
def _rd(s, rom, fb, addr, draw, cyc, dbus):
    """A CPU read. The cycle counter and data bus live in registers inside the loop; they are written
    back to the state only when a device (TIA, RIOT, cartridge hotspots) must see them.
    Returns (value, cycles) — a device read may stall the CPU."""
    a = addr & 0x1FFF
    if a & 0x1000:
        base = s[C_PAGE + ((a >> 6) & 63)]
        if base >= 0:
            return np.int64(rom[base + (a & 63)]), cyc
    elif (a & 0x280) == 0x80 and s[C_SCHEME] != S_FLAT64K:
        return s[RAM0 + (a & 0x7F)], cyc
    elif (a & 0x280) == 0x280 and s[C_SCHEME] != S_FLAT64K:
        # RIOT I/O and timer: games poll INTIM in tight wait loops, so this stays in the loop instead
        # of a call through the full decode (the RIOT neither reads the data bus nor stalls the CPU)
        s[CYC] = cyc
        return riot_peek(s, a), cyc
    s[CYC] = cyc
    s[DBUS] = dbus
    v = bus_read(s, rom, fb, addr, draw)
    return v, s[CYC]


@jit(inline="always")
def _wr(s, rom, fb, addr, value, draw, cyc, last_read):
    """A CPU write; returns the cycle counter (WSYNC stalls the CPU)."""
    a = addr & 0x1FFF
    if (a & 0x1280) == 0x80 and s[C_SCHEME] != S_FLAT64K:
        s[RAM0 + (a & 0x7F)] = value & 0xFF
        return cyc
    s[CYC] = cyc
    s[LAST_READ] = last_read
    bus_write(s, rom, fb, addr, value & 0xFF, draw)
    return s[CYC]


@jit
def _rd_call(s, rom, fb, addr, draw):
    """A CPU read through the full decode, not inlined (interrupt vectors); state already synced."""
    v = bus_read(s, rom, fb, addr, draw)
    s[LAST_READ] = 1
    return v


@jit
def _signed(v):
    return v - 256 if v & 0x80 else v


@jit
def execute(s, rom, fb, number, draw):
    """Run up to ``number`` instructions, stopping early when the TIA ends the frame (EX_STOP) or a
    JAM halts the CPU for good (EX_FATAL). ``draw`` false skips pixel writes (collisions still count).

    Every bus access happens in exactly ALE's order; the code is arranged so each kind of access has one
    (inlined) site: instruction bytes, pointer bytes, the operand, the single write, and the stack."""
    s[EXEC] &= EX_FATAL
    a = s[A]
    x = s[X]
    y = s[Y]
    sp = s[SP]
    pc = s[PC]
    n = s[FN]
    v = s[FV]
    b = s[FB]
    d = s[FD]
    i = s[FI]
    notz = s[FNZ]
    c = s[FC]
    cyc = s[CYC]
    dbus = s[DBUS]
    lr = s[LAST_READ]
    op = s[IR]
    count = 0
    while s[EXEC] == 0 and number > 0:
        number -= 1
        count += 1
        op, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
        dbus = op
        lr = 1
        pc = (pc + 1) & 0xFFFF
        info = INFO[np.uint8(op)]
        cyc += info & 15
        mode = (info >> 4) & 15
        acc = (info >> 8) & 15
        kind = (info >> 12) & 255

        # ---- instruction bytes (JSR fetches its own, around the stack accesses) --------------------
        b1 = 0
        b2 = 0
        nbytes = info >> 20
        if nbytes >= 2 and kind != O_JSR:
            b1, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
            dbus = b1
            lr = 1
            pc = (pc + 1) & 0xFFFF
            if nbytes == 3:
                b2, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
                dbus = b2
                lr = 1
                pc = (pc + 1) & 0xFFFF

        # ---- effective address -------------------------------------------------------------------
        addr = 0
        val = b1
        if mode == oc.ZP:
            addr = b1
        elif mode == oc.ZPX:
            addr = (b1 + x) & 0xFF
        elif mode == oc.ZPY:
            addr = (b1 + y) & 0xFF
        elif mode == oc.ABS:
            addr = b1 | (b2 << 8)
        elif mode == oc.ABX or mode == oc.ABY:
            base = b1 | (b2 << 8)
            idx = x if mode == oc.ABX else y
            if acc == oc.ACC_R and ((base ^ (base + idx)) & 0xFF00):
                cyc += 1
            addr = (base + idx) & 0xFFFF
        elif mode == oc.IZX or mode == oc.IZY or mode == oc.IND:
            # pointer bytes: (zp,X) and (zp),Y take the high byte from ptr+1 without wrapping ($FF ->
            # $0100, a TIA read); JMP ($xxFF) wraps within the page
            if mode == oc.IZX:
                p_lo = (b1 + x) & 0xFF
                p_hi = p_lo + 1
            elif mode == oc.IZY:
                p_lo = b1
                p_hi = b1 + 1
            else:
                p_lo = b1 | (b2 << 8)
                p_hi = (p_lo & 0xFF00) if ((p_lo ^ (p_lo + 1)) & 0xFF00) else p_lo + 1
            lo, cyc = _rd(s, rom, fb, p_lo, draw, cyc, dbus)
            dbus = lo
            lr = 1
            hi, cyc = _rd(s, rom, fb, p_hi & 0xFFFF, draw, cyc, dbus)
            dbus = hi
            lr = 1
            addr = lo | (hi << 8)
            if mode == oc.IZY:
                if acc == oc.ACC_R and ((addr ^ (addr + y)) & 0xFF00):
                    cyc += 1
                addr = (addr + y) & 0xFFFF
        if acc != oc.ACC_W and acc != oc.ACC_NONE and mode != oc.IMM and mode != oc.REL:
            val, cyc = _rd(s, rom, fb, addr, draw, cyc, dbus)
            dbus = val
            lr = 1

        # ---- operation -----------------------------------------------------------------------------
        write = False
        wval = 0
        if kind == O_LDA:
            a = val
            notz = a
            n = a >> 7
        elif kind == O_STA:
            write = True
            wval = a
        elif kind == O_BNE or kind == O_BEQ or kind == O_BPL or kind == O_BMI or kind == O_BCC \
                or kind == O_BCS or kind == O_BVC or kind == O_BVS:
            if kind == O_BNE:
                taken = notz != 0
            elif kind == O_BEQ:
                taken = notz == 0
            elif kind == O_BPL:
                taken = n == 0
            elif kind == O_BMI:
                taken = n != 0
            elif kind == O_BCC:
                taken = c == 0
            elif kind == O_BCS:
                taken = c != 0
            elif kind == O_BVC:
                taken = v == 0
            else:
                taken = v != 0
            if taken:
                target = (pc + _signed(val)) & 0xFFFF
                cyc += 2 if ((pc ^ target) & 0xFF00) else 1
                pc = target
        elif kind == O_LDX:
            x = val
            notz = x
            n = x >> 7
        elif kind == O_LDY:
            y = val
            notz = y
            n = y >> 7
        elif kind == O_STX:
            write = True
            wval = x
        elif kind == O_STY:
            write = True
            wval = y
        elif kind == O_JMP:
            pc = addr
        elif kind == O_DEX:
            x = (x - 1) & 0xFF
            notz = x
            n = x >> 7
        elif kind == O_DEY:
            y = (y - 1) & 0xFF
            notz = y
            n = y >> 7
        elif kind == O_INX:
            x = (x + 1) & 0xFF
            notz = x
            n = x >> 7
        elif kind == O_INY:
            y = (y + 1) & 0xFF
            notz = y
            n = y >> 7
        elif kind == O_CMP or kind == O_CPX or kind == O_CPY:
            r = a if kind == O_CMP else (x if kind == O_CPX else y)
            t = (r - val) & 0xFFFF
            notz = t
            n = (t >> 7) & 1
            c = 0 if t & 0x100 else 1
        elif kind == O_AND:
            a &= val
            notz = a
            n = a >> 7
        elif kind == O_ORA:
            a |= val
            notz = a
            n = a >> 7
        elif kind == O_EOR:
            a ^= val
            notz = a
            n = a >> 7
        elif kind == O_ADC or kind == O_SBC or kind == O_RRA or kind == O_ISB:
            if kind == O_RRA:
                oldc = c
                c = val & 1
                val = ((val >> 1) & 0x7F) | (0x80 if oldc else 0)
                write = True
                wval = val
            elif kind == O_ISB:
                val = (val + 1) & 0xFF
                write = True
                wval = val
            olda = a
            if kind == O_ADC or kind == O_RRA:
                if not d:
                    ssum = _signed(a) + _signed(val) + (1 if c else 0)
                    v = 1 if (ssum > 127 or ssum < -128) else 0
                    total = a + val + (1 if c else 0)
                    a = total & 0xFF
                    c = 1 if total > 0xFF else 0
                    notz = a
                    n = a >> 7
                else:
                    total = BCD[a] + BCD[val] + (1 if c else 0)
                    c = 1 if total > 99 else 0
                    a = BCD[256 + (total & 0xFF)]
                    notz = a
                    n = a >> 7
                    v = 1 if (((olda ^ a) & 0x80) and ((a ^ val) & 0x80)) else 0
            else:
                if not d:
                    inv = (~val) & 0xFF
                    ssum = _signed(a) + _signed(inv) + (1 if c else 0)
                    v = 1 if (ssum > 127 or ssum < -128) else 0
                    total = a + inv + (1 if c else 0)
                    a = total & 0xFF
                    c = 1 if total > 0xFF else 0
                    notz = a
                    n = a >> 7
                else:
                    borrow = 0 if c else 1
                    diff = BCD[a] - BCD[val] - borrow
                    if diff < 0:
                        diff += 100
                    a = BCD[256 + diff]
                    notz = a
                    n = a >> 7
                    c = 1 if olda >= val + borrow else 0
                    v = 1 if (((olda ^ a) & 0x80) and ((a ^ val) & 0x80)) else 0
        elif kind == O_BIT:
            notz = a & val
            n = (val >> 7) & 1
            v = (val >> 6) & 1
        elif kind == O_INC or kind == O_DEC:
            val = (val + (1 if kind == O_INC else -1)) & 0xFF
            write = True
            wval = val
            notz = val
            n = val >> 7
        elif kind == O_ASL or kind == O_SLO:
            c = (val >> 7) & 1
            val = (val << 1) & 0xFF
            write = True
            wval = val
            if kind == O_SLO:
                a |= val
                notz = a
                n = a >> 7
            else:
                notz = val
                n = val >> 7
        elif kind == O_LSR or kind == O_SRE:
            c = val & 1
            val = (val >> 1) & 0x7F
            write = True
            wval = val
            if kind == O_SRE:
                a ^= val
                notz = a
                n = a >> 7
            else:
                notz = val
                n = val >> 7
        elif kind == O_ROL:
            oldc = c
            c = (val >> 7) & 1
            val = ((val << 1) | (1 if oldc else 0)) & 0xFF
            write = True
            wval = val
            notz = val
            n = val >> 7
        elif kind == O_RLA:
            newv = ((val << 1) | (1 if c else 0)) & 0xFF
            write = True
            wval = newv
            a &= newv
            c = (val >> 7) & 1
            notz = a
            n = a >> 7
        elif kind == O_ROR:
            oldc = c
            c = val & 1
            val = ((val >> 1) & 0x7F) | (0x80 if oldc else 0)
            write = True
            wval = val
            notz = val
            n = val >> 7
        elif kind == O_ASLA:
            c = (a >> 7) & 1
            a = (a << 1) & 0xFF
            notz = a
            n = a >> 7
        elif kind == O_LSRA:
            c = a & 1
            a = (a >> 1) & 0x7F
            notz = a
            n = a >> 7
        elif kind == O_ROLA:
            oldc = c
            c = (a >> 7) & 1
            a = ((a << 1) | (1 if oldc else 0)) & 0xFF
            notz = a
            n = a >> 7
        elif kind == O_RORA:
            oldc = c
            c = a & 1
            a = ((a >> 1) & 0x7F) | (0x80 if oldc else 0)
            notz = a
            n = a >> 7
        elif kind == O_TAX:
            x = a
            notz = x
            n = x >> 7
        elif kind == O_TAY:
            y = a
            notz = y
            n = y >> 7
        elif kind == O_TXA:
            a = x
            notz = a
            n = a >> 7
        elif kind == O_TYA:
            a = y
            notz = a
            n = a >> 7
        elif kind == O_TSX:
            x = sp
            notz = x
            n = x >> 7
        elif kind == O_TXS:
            sp = x
        elif kind == O_CLC:
            c = 0
        elif kind == O_SEC:
            c = 1
        elif kind == O_CLD:
            d = 0
        elif kind == O_SED:
            d = 1
        elif kind == O_CLI:
            i = 0
        elif kind == O_SEI:
            i = 1
        elif kind == O_CLV:
            v = 0
        elif kind == O_NOP:
            pass
        # ---- stack instructions (with ALE's dummy reads) -------------------------------------------
        elif kind == O_JSR:
            lo, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
            dbus = lo
            lr = 1
            pc = (pc + 1) & 0xFFFF
            dummy, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
            dbus = dummy
            lr = 1
            wv = (pc >> 8) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
            wv = (pc & 0xFF) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
            hi, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
            dbus = hi
            lr = 1
            pc = lo | (hi << 8)
        elif kind == O_RTS or kind == O_RTI or kind == O_PLA or kind == O_PLP:
            dummy, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
            dbus = dummy
            lr = 1
            sp = (sp + 1) & 0xFF
            val, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
            dbus = val
            lr = 1
            if kind == O_PLA:
                a = val
                notz = a
                n = a >> 7
            elif kind == O_RTS:
                sp = (sp + 1) & 0xFF
                hi, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
                dbus = hi
                lr = 1
                pc = val | (hi << 8)
                dummy, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)  # RTS reads the last byte of its JSR
                dbus = dummy
                lr = 1
                pc = (pc + 1) & 0xFFFF
            else:
                n = (val >> 7) & 1
                v = (val >> 6) & 1
                b = 1  # the 6507's B flag always reads as set
                d = (val >> 3) & 1
                i = (val >> 2) & 1
                notz = 0 if val & 0x02 else 1
                c = val & 1
                if kind == O_RTI:
                    sp = (sp + 1) & 0xFF
                    pc, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
                    dbus = pc
                    lr = 1
                    sp = (sp + 1) & 0xFF
                    hi, cyc = _rd(s, rom, fb, 0x100 + sp, draw, cyc, dbus)
                    dbus = hi
                    lr = 1
                    pc |= hi << 8
        elif kind == O_PHA or kind == O_PHP:
            if kind == O_PHA:
                pv = a
            else:
                pv = 0x20 | (n << 7) | (v << 6) | (b << 4) | (d << 3) | (i << 2) | (0 if notz else 2) | c
            wv = (pv) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
        elif kind == O_BRK:
            dummy, cyc = _rd(s, rom, fb, pc, draw, cyc, dbus)
            dbus = dummy
            lr = 1
            pc = (pc + 1) & 0xFFFF
            b = 1
            wv = (pc >> 8) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
            wv = (pc & 0xFF) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
            pv = 0x20 | (n << 7) | (v << 6) | (b << 4) | (d << 3) | (i << 2) | (0 if notz else 2) | c
            wv = (pv) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, wv, draw, cyc, lr)
            dbus = wv
            lr = 0
            sp = (sp - 1) & 0xFF
            i = 1
            s[CYC] = cyc
            s[DBUS] = dbus
            lo = _rd_call(s, rom, fb, 0xFFFE, draw)
            hi = _rd_call(s, rom, fb, 0xFFFF, draw)
            pc = lo | (hi << 8)
            cyc = s[CYC]
            dbus = hi
            lr = 1
        # ---- undocumented -----------------------------------------------------------------------------
        elif kind == O_LAX:
            a = val
            x = val
            notz = a
            n = a >> 7
        elif kind == O_SAX:
            write = True
            wval = a & x
        elif kind == O_DCP:
            val = (val - 1) & 0xFF
            write = True
            wval = val
            t = (a - val) & 0xFFFF
            notz = t
            n = (t >> 7) & 1
            c = 0 if t & 0x100 else 1
        elif kind == O_ANC:
            a &= val
            notz = a
            n = a >> 7
            c = n
        elif kind == O_ASR:
            a &= val
            c = a & 1
            a = (a >> 1) & 0x7F
            notz = a
            n = a >> 7
        elif kind == O_ARR:
            if not d:
                a &= val
                a = ((a >> 1) & 0x7F) | (0x80 if c else 0)
                c = (a >> 6) & 1
                v = 1 if ((a & 0x40) ^ ((a & 0x20) << 1)) else 0
                notz = a
                n = a >> 7
            else:
                value = a & val
                a = ((value >> 1) & 0x7F) | (0x80 if c else 0)
                n = 1 if c else 0
                notz = a
                v = 1 if ((value ^ a) & 0x40) else 0
                if ((value & 0x0F) + (value & 0x01)) > 0x05:
                    a = (a & 0xF0) | ((a + 0x06) & 0x0F)
                if ((value & 0xF0) + (value & 0x10)) > 0x50:
                    a = (a + 0x60) & 0xFF
                    c = 1
                else:
                    c = 0
        elif kind == O_ANE:
            a = (a | 0xEE) & x & val
            notz = a
            n = a >> 7
        elif kind == O_LXA:
            a = (a | 0xEE) & val
            x = a
            notz = a
            n = a >> 7
        elif kind == O_SBX:
            t = ((x & a) - val) & 0xFFFF
            x = t & 0xFF
            notz = x
            n = x >> 7
            c = 0 if t & 0x100 else 1
        elif kind == O_LAS:
            a = sp & val
            x = a
            sp = a
            notz = a
            n = a >> 7
        elif kind == O_SHA or kind == O_SHS:
            if kind == O_SHS:
                sp = a & x
            write = True
            wval = a & x & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_SHX:
            write = True
            wval = x & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_SHY:
            write = True
            wval = y & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_JAM:
            s[EXEC] |= EX_FATAL
            s[JAMMED] = op + 1
        if write:
            cyc = _wr(s, rom, fb, addr, wval, draw, cyc, lr)
            dbus = wval & 0xFF
            lr = 0
    s[CYC] = cyc
    s[DBUS] = dbus
    s[LAST_READ] = lr
    s[IR] = op
    s[A] = a
    s[X] = x
    s[Y] = y
    s[SP] = sp
    s[PC] = pc
    s[FN] = n
    s[FV] = v
    s[FB] = b
    s[FD] = d
    s[FI] = i
    s[FNZ] = 1 if notz else 0
    s[FC] = c
    s[INSTR] += count
    return count


@jit
def cpu_reset(s, rom, fb):
    s[EXEC] = 0
    s[A] = 0
    s[X] = 0
    s[Y] = 0
    s[SP] = 0xFF
    s[FN] = 0
    s[FV] = 0
    s[FB] = 1
    s[FD] = 0
    s[FI] = 0
    s[FNZ] = 1
    s[FC] = 0
    s[LAST_READ] = 1
    lo = bus_peek(s, rom, fb, 0xFFFC, True)
    hi = bus_peek(s, rom, fb, 0xFFFD, True)
    s[PC] = lo | (hi << 8)
