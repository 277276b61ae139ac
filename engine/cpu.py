"""NMOS 6502 as ALE's "Low" CPU runs it (ale-behaviour.md §3.2).

Timing convention: the opcode is fetched, then the instruction's whole base cycle count is charged before
any operand access, plus page-cross/branch extras — so every TIA/RIOT access is stamped at the end of the
instruction. No addressing-mode dummy reads and no RMW double writes; only the stack instructions' dummy
peeks (JSR, RTS, RTI, PLA, PLP, BRK). Decimal mode uses table-based BCD with N/Z from the BCD result.
Decoding is data-driven: one ``INFO`` word per opcode (built from ``opcodes.py``) gives the cycles, the
addressing group and flags that fetch the operand, and the operation.
"""
from __future__ import annotations

import numpy as np
from numba import carray, cfunc

from . import opcodes as oc
from ._jit import DEVICE_SIG, call_device, jit, ptr_i64, ptr_u8
from .bus import S_FLAT64K, access_inline, peek as bus_peek
from .layout import (A, X, Y, SP, PC, IR, FN, FV, FB, FD, FI, FNZ, FC, EXEC, EX_FATAL, LAST_READ, CYC,
                     INSTR, JAMMED, DBUS, RAM0, C_SCHEME, C_PAGE, FN_DEVICE, FN_TIA_UNDRAWN, N_STATE, FB_SIZE, R_TIMER, R_SHIFT,
                     R_SETCYC, T_FRAMESTART, T_MAXLINES, AUD_ON, DEFER_CLK)
from .riot import U32, _to_int32, riot_peek
from .tia import (UNSEEN, tia_access, grp_unseen, starts_starfield, store_unseen, tia_input, unchanged,
                  write_clock, wsync_cycle)

# Addressing groups: the loop fetches instruction bytes and computes the address per group, with the index
# register chosen by a flag (zp/zp,X/zp,Y share one path, abs/abs,X/abs,Y another).
G_IMP, G_IMM, G_ZP, G_ABS, G_IZX, G_IZY, G_IND = range(7)
_GROUP = {oc.IMP: G_IMP, oc.IMM: G_IMM, oc.REL: G_IMM, oc.ZP: G_ZP, oc.ZPX: G_ZP, oc.ZPY: G_ZP,
          oc.ABS: G_ABS, oc.ABX: G_ABS, oc.ABY: G_ABS, oc.IZX: G_IZX, oc.IZY: G_IZY, oc.IND: G_IND}
F_IDX_X = 1 << 8     # index by X
F_IDX_Y = 1 << 9     # index by Y
F_READS = 1 << 10    # reads its operand from memory
F_CROSS = 1 << 11    # pays a cycle when indexing crosses a page (plain reads only)
F_WRITES = 1 << 12   # the shared write site stores ``wval`` at the address


def _info(op: int) -> int:
    """Everything the loop needs about an opcode in one word: cycles | group << 4 | flags | operation << 16."""
    name = oc.OPS[oc.OPERATION[op]]
    mode = int(oc.MODE[op])
    acc = int(oc.ACCESS[op])
    group = G_IMP if name == "JSR" else _GROUP[mode]  # JSR fetches its bytes around its stack accesses
    flags = 0
    if mode in (oc.ZPX, oc.ABX):  # (zp,X) indexes the pointer, not the address
        flags |= F_IDX_X
    if mode in (oc.ZPY, oc.ABY, oc.IZY):
        flags |= F_IDX_Y
    if acc in (oc.ACC_R, oc.ACC_RMW) and mode not in (oc.IMP, oc.IMM, oc.REL):
        flags |= F_READS
    if acc == oc.ACC_R:
        flags |= F_CROSS
    if acc in (oc.ACC_W, oc.ACC_RMW):
        flags |= F_WRITES
    return int(oc.CYCLES[op]) | (group << 4) | flags | (int(oc.OPERATION[op]) << 16)


INFO = np.array([_info(op) for op in range(256)], dtype=np.int64)
# 1 where an opcode's last bus access is a read: the state's last-access flag after it
ENDS_WITH_READ = np.array([0 if (oc.ACCESS[op] in (oc.ACC_W, oc.ACC_RMW)
                                 or oc.OPS[oc.OPERATION[op]] in ("PHA", "PHP")) else 1 for op in range(256)],
                          dtype=np.int64)

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
def _rom_byte(s, rom, addr):
    """The cartridge byte at ``addr`` when its page is read directly from ROM, else -1."""
    a = addr & 0x1FFF
    if (a & 0x1000) == 0:
        return -1
    base = s[C_PAGE + ((a >> 6) & 63)]
    return -1 if base < 0 else np.int64(rom[base + (a & 63)])


@jit(inline="always")
def _fetch(s, rom, fb, pc, draw, cyc, bus):
    """An instruction byte: cartridge ROM outside device pages stays in the loop. Returns (value, cycles)."""
    v = _rom_byte(s, rom, pc)
    if v >= 0:
        return v, cyc
    return _rd_slow(s, rom, fb, pc, draw, cyc, bus)


@jit(inline="always")
def _rd_low(s, rom, fb, addr, draw, cyc, bus):
    """A read below $200 (zero page, stack, pointers): RIOT RAM stays in the loop, the TIA does not."""
    if addr & 0x80 and s[C_SCHEME] != S_FLAT64K:
        return s[RAM0 + (addr & 0x7F)], cyc
    return _rd_slow(s, rom, fb, addr, draw, cyc, bus)


@jit(inline="always")
def _rd(s, rom, fb, addr, draw, cyc, bus):
    """A read anywhere: cartridge space as an instruction byte, the $000-$1FF mirror as zero page."""
    if addr & 0x1000:
        return _fetch(s, rom, fb, addr, draw, cyc, bus)
    if (addr & 0x200) == 0:
        return _rd_low(s, rom, fb, addr, draw, cyc, bus)
    return _rd_slow(s, rom, fb, addr, draw, cyc, bus)


_REQ_DRAW = 1 << 16
_REQ_WRITE = 1 << 17


@cfunc(DEVICE_SIG, cache=True, nopython=True)
def _device_c(sp, rp, nr, fp, request):
    """A bus access through the full decode: ``request`` = address | draw << 16 | write << 17 | value << 24."""
    s = carray(sp, (N_STATE,))
    rom = carray(rp, (nr,))
    fb = carray(fp, (3, FB_SIZE))
    return access_inline(s, rom, fb, request & 0xFFFF, (request >> 24) & 0xFF, (request & _REQ_WRITE) != 0,
                         (request & _REQ_DRAW) != 0)


@cfunc(DEVICE_SIG, cache=True, nopython=True)
def _tia_write_undrawn_c(sp, rp, nr, fp, request):
    """A TIA write on an undrawn frame (``request`` = address | value << 24): the device path without
    the address decode, and with every drawing branch compiled out."""
    s = carray(sp, (N_STATE,))
    fb = carray(fp, (3, FB_SIZE))
    value = (request >> 24) & 0xFF
    tia_access(s, fb, request & 0x1FFF, value, True, False)
    s[DBUS] = value
    return value


@jit(inline="always")
def _device(s, rom, fb, request):
    return call_device(s[FN_DEVICE], ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],
                       ptr_u8(fb.ctypes.data), request)


@jit(inline="always")
def _rd_slow(s, rom, fb, addr, draw, cyc, bus):
    """A read the loop's fast paths do not cover (TIA, RIOT I/O, device pages). The cycle counter and
    data bus live in registers inside the loop; they are written back only when a device must see them.
    Returns (value, cycles): a device read may stall the CPU."""
    a = addr & 0x1FFF
    s[CYC] = cyc
    if (a & 0x1280) == 0x280 and s[C_SCHEME] != S_FLAT64K:
        # RIOT I/O and timer (INTIM wait loops) skip the full decode: the RIOT neither reads the data bus
        # nor stalls the CPU
        return riot_peek(s, a), cyc
    if (a & 0x1088) == 0x08 and s[C_SCHEME] != S_FLAT64K:
        # TIA input ports (paddles, fire buttons, unused): nothing drawing changes, so no drawing up to
        # the read (the next access draws the span); the undriven bits carry the bus byte
        v = tia_input(s, a & 0x0F, bus & 0x3F)
        s[DBUS] = v
        if cyc * 3 > s[DEFER_CLK]:
            s[DEFER_CLK] = cyc * 3
        return v, cyc
    s[DBUS] = bus
    v = _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0))
    return v, s[CYC]


@jit(inline="always")
def _wr(s, rom, fb, addr, value, draw, cyc, last_read):
    """A CPU write (``value`` already a byte); returns the cycle counter (WSYNC stalls the CPU)."""
    if ((addr & 0x1280) == 0x80) and s[C_SCHEME] != S_FLAT64K:
        s[RAM0 + (addr & 0x7F)] = value
        return cyc
    tia = (addr & 0x1080) == 0 and s[C_SCHEME] != S_FLAT64K
    unseen = UNSEEN[addr & 0x3F] if tia else 0
    if unseen == 4:  # HMM0: the full path when it starts Cosmic Ark's starfield
        unseen = 0 if starts_starfield(s, cyc * 3, value) else 1
    elif unseen >= 3:  # a register drawing reads: skipped when the write changes nothing (GRPx: else
        if unchanged(s, addr & 0x3F, value):  # on undrawn frames while no collision is open)
            unseen = 5
        elif unseen == 5:
            unseen = 0
    if unseen == 1 or unseen == 5 or (unseen != 0 and not draw):
        # A TIA register whose write drawing up to it would not change (tia.UNSEEN): stored without the
        # device call; the next access draws the span. Past the line limit the full path ends the
        # frame; logged sound goes through it too.
        clock = cyc * 3
        r = addr & 0x3F
        if ((clock - s[T_FRAMESTART]) // 228 <= s[T_MAXLINES] and s[AUD_ON] == 0
                and (unseen != 3 or grp_unseen(s, r, value))):
            s[LAST_READ] = last_read
            s[DBUS] = value
            at = write_clock(s, clock, r)  # where the full path would have drawn up to
            if at > s[DEFER_CLK]:  # (a delayed write can take effect after a later one)
                s[DEFER_CLK] = at
            if r == 0x02:
                return wsync_cycle(s, cyc) if last_read else cyc
            if unseen < 3:  # grp_unseen stored GRPx already; an unchanged register needs nothing
                store_unseen(s, r, value)
            return cyc
    s[CYC] = cyc
    s[LAST_READ] = last_read
    if tia and not draw:
        call_device(s[FN_TIA_UNDRAWN], ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],
                    ptr_u8(fb.ctypes.data), (addr & 0xFFFF) | (value << 24))
    else:
        _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0) | _REQ_WRITE | (value << 24))
    return s[CYC]


@jit
def _rd_call(s, rom, fb, addr, draw):
    """A CPU read through the full decode, not inlined (interrupt vectors); state already synced."""
    v = _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0))
    s[LAST_READ] = 1
    return v


@jit
def _timer_wait(s, rom, pc, cyc, budget, period, a):
    """Fast-forward of the commonest loop in 2600 games, ``L: LDA/LDX/LDY/BIT INTIM|TIMINT; BNE|BPL|BMI L``,
    entered as its branch is taken back to ``pc``. Runs whole iterations (``period`` cycles, two
    instructions of ``budget``) while each read falls before the timer expires — such reads have no side
    effect, and nothing else happens in the loop — and would take the branch again. Only the cycle counter,
    the instruction count and the loaded value change; the last iteration (the exit, or the first read past
    expiry with its side effect) runs in the interpreter. Returns ``k | value << 32 | load << 40`` for
    ``k`` iterations run (``load``: 0 LDA, 1 LDX, 2 LDY, 3 BIT)."""
    if s[C_SCHEME] == S_FLAT64K:
        return 0
    op = _rom_byte(s, rom, pc)
    if op == 0xAD:
        load = 0
    elif op == 0xAE:
        load = 1
    elif op == 0xAC:
        load = 2
    elif op == 0x2C:
        load = 3
    else:
        return 0
    lo = _rom_byte(s, rom, pc + 1)
    hi = _rom_byte(s, rom, pc + 2)
    branch = _rom_byte(s, rom, pc + 3)
    if lo < 0 or hi < 0 or _rom_byte(s, rom, pc + 4) != 0xFB:
        return 0  # the bytes must come from ROM (no device page) and be the loop itself
    addr = lo | (hi << 8)
    if (addr & 0x1280) != 0x280 or (addr & 4) == 0:
        return 0  # not the timer ($284-$287 and mirrors)
    intim = (addr & 1) == 0  # TIMINT reads 0 until expiry
    timer = s[R_TIMER]
    shift = s[R_SHIFT]
    setcyc = s[R_SETCYC]
    k = 0
    value = 0
    while budget >= 2:
        # riot_peek's count for a read stamped at the end of the 4-cycle load; t >= 0 is its
        # side-effect-free, pre-expiry range
        t = _to_int32(timer - ((((cyc + 3) - setcyc) & U32) >> shift) - 1)
        if t < 0:
            break
        v = t if intim else 0
        if branch == 0xD0:
            again = ((a & v) if load == 3 else v) != 0
        elif branch == 0x10:
            again = (v & 0x80) == 0
        elif branch == 0x30:
            again = (v & 0x80) != 0
        else:
            return 0
        if not again:
            break
        value = v
        cyc += period
        budget -= 2
        k += 1
    return k | (value << 32) | (load << 40)


@jit
def _signed(v):
    return v - 256 if v & 0x80 else v


@jit(inline="always")
def _status(s, nz, c):
    return (0x20 | (0x80 if nz & 0x180 else 0) | (s[FV] << 6) | (s[FB] << 4) | (s[FD] << 3) | (s[FI] << 2)
            | (0 if nz & 0xFF else 2) | c)


@jit
def execute(s, rom, fb, number, draw):
    """Run up to ``number`` instructions, stopping early when the TIA ends the frame (EX_STOP) or a
    JAM halts the CPU for good (EX_FATAL). ``draw`` false skips pixel writes (collisions still count).

    Every bus access happens in exactly ALE's order. Only A, X, Y, PC, C, N/Z and the cycle counter are
    carried from one instruction to the next in locals (more would spill out of the x86-64 register file
    on every instruction): SP, V, D, I, B and the data bus stay in the state array. ``nz`` holds N and Z
    together: Z is clear when ``nz & 0xFF``, N is set when ``nz & 0x180`` (BIT and PLP set them apart)."""
    s[EXEC] &= EX_FATAL
    if s[EXEC] != 0 or number <= 0:
        return 0
    a = s[A]
    x = s[X]
    y = s[Y]
    pc = s[PC]
    c = s[FC]
    nz = (1 if s[FNZ] else 0) | (0x100 if s[FN] else 0)
    cyc = s[CYC]
    left = number
    while True:
        op, cyc = _fetch(s, rom, fb, pc, draw, cyc, s[DBUS])
        bus = op
        pc = (pc + 1) & 0xFFFF
        info = INFO[np.uint8(op)]
        cyc += info & 15
        group = (info >> 4) & 15
        kind = info >> 16

        # ---- instruction bytes, effective address, operand ------------------------------------------
        addr = 0
        val = 0
        if group == G_ZP:
            b1, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
            pc = (pc + 1) & 0xFFFF
            bus = b1
            idx = x if info & F_IDX_X else (y if info & F_IDX_Y else 0)
            addr = (b1 + idx) & 0xFF
            if info & F_READS:
                val, cyc = _rd_low(s, rom, fb, addr, draw, cyc, bus)
                bus = val
        elif group == G_IMM:
            val, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
            pc = (pc + 1) & 0xFFFF
            bus = val
        elif group != G_IMP:
            b1, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
            pc = (pc + 1) & 0xFFFF
            bus = b1
            if group == G_ABS or group == G_IND:
                b2, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
                pc = (pc + 1) & 0xFFFF
                bus = b2
                base = b1 | (b2 << 8)
                if group == G_IND:
                    # JMP ($xxFF) takes the high byte from $xx00
                    lo, cyc = _rd(s, rom, fb, base, draw, cyc, bus)
                    hi, cyc = _rd(s, rom, fb, (base & 0xFF00) | ((base + 1) & 0xFF), draw, cyc, lo)
                    bus = hi
                    base = lo | (hi << 8)
            else:
                # (zp,X) and (zp),Y take the pointer's high byte from ptr+1 without wrapping: $FF -> $0100,
                # a TIA read
                p = (b1 + x) & 0xFF if group == G_IZX else b1
                lo, cyc = _rd_low(s, rom, fb, p, draw, cyc, bus)
                hi, cyc = _rd_low(s, rom, fb, p + 1, draw, cyc, lo)
                bus = hi
                base = lo | (hi << 8)
            idx = x if info & F_IDX_X else (y if info & F_IDX_Y else 0)
            addr = (base + idx) & 0xFFFF
            if info & F_CROSS and (base ^ addr) & 0xFF00:
                cyc += 1
            if info & F_READS:
                val, cyc = _rd(s, rom, fb, addr, draw, cyc, bus)
                bus = val

        # ---- operation -----------------------------------------------------------------------------
        wval = 0
        if kind == O_LDA:
            a = val
            nz = a
        elif kind == O_STA:
            wval = a
        elif kind == O_BNE or kind == O_BEQ or kind == O_BPL or kind == O_BMI or kind == O_BCC \
                or kind == O_BCS or kind == O_BVC or kind == O_BVS:
            if kind == O_BNE:
                taken = (nz & 0xFF) != 0
            elif kind == O_BEQ:
                taken = (nz & 0xFF) == 0
            elif kind == O_BPL:
                taken = (nz & 0x180) == 0
            elif kind == O_BMI:
                taken = (nz & 0x180) != 0
            elif kind == O_BCC:
                taken = c == 0
            elif kind == O_BCS:
                taken = c != 0
            elif kind == O_BVC:
                taken = s[FV] == 0
            else:
                taken = s[FV] != 0
            if taken:
                target = (pc + _signed(val)) & 0xFFFF
                extra = 2 if ((pc ^ target) & 0xFF00) else 1
                cyc += extra
                pc = target
                if val == 0xFB and (kind == O_BNE or kind == O_BPL or kind == O_BMI):
                    period = 4 + (info & 15) + extra  # the 4-cycle load, then this branch
                    w = _timer_wait(s, rom, pc, cyc, left - 1, period, a)
                    k = w & 0xFFFFFFFF
                    if k:
                        cyc += k * period
                        left -= 2 * k
                        v = (w >> 32) & 0xFF
                        load = w >> 40
                        if load == 0:
                            a = v
                            nz = v
                        elif load == 1:
                            x = v
                            nz = v
                        elif load == 2:
                            y = v
                            nz = v
                        else:
                            nz = (a & v) | ((v & 0x80) << 1)
                            s[FV] = (v >> 6) & 1
        elif kind == O_LDX:
            x = val
            nz = x
        elif kind == O_LDY:
            y = val
            nz = y
        elif kind == O_STX:
            wval = x
        elif kind == O_STY:
            wval = y
        elif kind == O_JMP:
            pc = addr
        elif kind == O_DEX:
            x = (x - 1) & 0xFF
            nz = x
        elif kind == O_DEY:
            y = (y - 1) & 0xFF
            nz = y
        elif kind == O_INX:
            x = (x + 1) & 0xFF
            nz = x
        elif kind == O_INY:
            y = (y + 1) & 0xFF
            nz = y
        elif kind == O_CMP or kind == O_CPX or kind == O_CPY:
            r = a if kind == O_CMP else (x if kind == O_CPX else y)
            nz = (r - val) & 0xFF
            c = 1 if r >= val else 0
        elif kind == O_AND:
            a &= val
            nz = a
        elif kind == O_ORA:
            a |= val
            nz = a
        elif kind == O_EOR:
            a ^= val
            nz = a
        elif kind == O_ADC or kind == O_SBC or kind == O_RRA or kind == O_ISB:
            if kind == O_RRA:
                wval = (val >> 1) | (c << 7)
                c = val & 1
                val = wval
            elif kind == O_ISB:
                val = (val + 1) & 0xFF
                wval = val
            if kind == O_ADC or kind == O_RRA:
                if s[FD] == 0:
                    total = a + val + c
                    s[FV] = 1 if (a ^ total) & (val ^ total) & 0x80 else 0
                    a = total & 0xFF
                    c = total >> 8
                    nz = a
                else:
                    total = BCD[a] + BCD[val] + c
                    c = 1 if total > 99 else 0
                    r = BCD[256 + (total & 0xFF)]
                    s[FV] = 1 if ((a ^ r) & 0x80) and ((r ^ val) & 0x80) else 0
                    a = r
                    nz = a
            else:
                if s[FD] == 0:
                    inv = val ^ 0xFF
                    total = a + inv + c
                    s[FV] = 1 if (a ^ total) & (inv ^ total) & 0x80 else 0
                    a = total & 0xFF
                    c = total >> 8
                    nz = a
                else:
                    borrow = 1 - c
                    diff = BCD[a] - BCD[val] - borrow
                    if diff < 0:
                        diff += 100
                    r = BCD[256 + diff]
                    c = 1 if a >= val + borrow else 0
                    s[FV] = 1 if ((a ^ r) & 0x80) and ((r ^ val) & 0x80) else 0
                    a = r
                    nz = a
        elif kind == O_BIT:
            nz = (a & val) | ((val & 0x80) << 1)
            s[FV] = (val >> 6) & 1
        elif kind == O_INC or kind == O_DEC:
            wval = (val + (1 if kind == O_INC else -1)) & 0xFF
            nz = wval
        elif kind == O_ASL or kind == O_SLO:
            c = val >> 7
            wval = (val << 1) & 0xFF
            if kind == O_SLO:
                a |= wval
                nz = a
            else:
                nz = wval
        elif kind == O_LSR or kind == O_SRE:
            c = val & 1
            wval = val >> 1
            if kind == O_SRE:
                a ^= wval
                nz = a
            else:
                nz = wval
        elif kind == O_ROL or kind == O_RLA:
            wval = ((val << 1) | c) & 0xFF
            c = val >> 7
            if kind == O_RLA:
                a &= wval
                nz = a
            else:
                nz = wval
        elif kind == O_ROR:
            wval = (val >> 1) | (c << 7)
            c = val & 1
            nz = wval
        elif kind == O_ASLA:
            c = a >> 7
            a = (a << 1) & 0xFF
            nz = a
        elif kind == O_LSRA:
            c = a & 1
            a = a >> 1
            nz = a
        elif kind == O_ROLA:
            r = ((a << 1) | c) & 0xFF
            c = a >> 7
            a = r
            nz = a
        elif kind == O_RORA:
            r = (a >> 1) | (c << 7)
            c = a & 1
            a = r
            nz = a
        elif kind == O_TAX:
            x = a
            nz = x
        elif kind == O_TAY:
            y = a
            nz = y
        elif kind == O_TXA:
            a = x
            nz = a
        elif kind == O_TYA:
            a = y
            nz = a
        elif kind == O_TSX:
            x = s[SP]
            nz = x
        elif kind == O_TXS:
            s[SP] = x
        elif kind == O_CLC:
            c = 0
        elif kind == O_SEC:
            c = 1
        elif kind == O_CLD:
            s[FD] = 0
        elif kind == O_SED:
            s[FD] = 1
        elif kind == O_CLI:
            s[FI] = 0
        elif kind == O_SEI:
            s[FI] = 1
        elif kind == O_CLV:
            s[FV] = 0
        elif kind == O_NOP:
            pass
        # ---- stack instructions (with ALE's dummy reads) -------------------------------------------
        elif kind == O_JSR:
            sp = s[SP]
            lo, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
            pc = (pc + 1) & 0xFFFF
            dummy, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, lo)
            cyc = _wr(s, rom, fb, 0x100 + sp, pc >> 8, draw, cyc, 1)
            sp = (sp - 1) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, pc & 0xFF, draw, cyc, 0)
            s[SP] = (sp - 1) & 0xFF
            hi, cyc = _fetch(s, rom, fb, pc, draw, cyc, pc & 0xFF)
            bus = hi
            pc = lo | (hi << 8)
        elif kind == O_RTS or kind == O_RTI or kind == O_PLA or kind == O_PLP:
            sp = s[SP]
            dummy, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, bus)
            sp = (sp + 1) & 0xFF
            val, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, dummy)
            bus = val
            if kind == O_PLA:
                a = val
                nz = a
            elif kind == O_RTS:
                sp = (sp + 1) & 0xFF
                hi, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, bus)
                pc = val | (hi << 8)
                dummy, cyc = _fetch(s, rom, fb, pc, draw, cyc, hi)  # RTS reads the last byte of its JSR
                bus = dummy
                pc = (pc + 1) & 0xFFFF
            else:
                nz = (0 if val & 0x02 else 1) | ((val & 0x80) << 1)
                s[FV] = (val >> 6) & 1
                s[FB] = 1  # the 6507's B flag always reads as set
                s[FD] = (val >> 3) & 1
                s[FI] = (val >> 2) & 1
                c = val & 1
                if kind == O_RTI:
                    sp = (sp + 1) & 0xFF
                    lo, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, bus)
                    sp = (sp + 1) & 0xFF
                    hi, cyc = _rd_low(s, rom, fb, 0x100 + sp, draw, cyc, lo)
                    bus = hi
                    pc = lo | (hi << 8)
            s[SP] = sp
        elif kind == O_PHA or kind == O_PHP:
            sp = s[SP]
            bus = a if kind == O_PHA else _status(s, nz, c) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, bus, draw, cyc, 1)
            s[SP] = (sp - 1) & 0xFF
        elif kind == O_BRK:
            sp = s[SP]
            dummy, cyc = _fetch(s, rom, fb, pc, draw, cyc, bus)
            pc = (pc + 1) & 0xFFFF
            s[FB] = 1
            cyc = _wr(s, rom, fb, 0x100 + sp, pc >> 8, draw, cyc, 1)
            sp = (sp - 1) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, pc & 0xFF, draw, cyc, 0)
            sp = (sp - 1) & 0xFF
            pv = _status(s, nz, c) & 0xFF
            cyc = _wr(s, rom, fb, 0x100 + sp, pv, draw, cyc, 0)
            s[SP] = (sp - 1) & 0xFF
            s[FI] = 1
            s[CYC] = cyc
            s[DBUS] = pv
            lo = _rd_call(s, rom, fb, 0xFFFE, draw)
            hi = _rd_call(s, rom, fb, 0xFFFF, draw)
            pc = lo | (hi << 8)
            cyc = s[CYC]
            bus = hi
        # ---- undocumented -----------------------------------------------------------------------------
        elif kind == O_LAX:
            a = val
            x = val
            nz = a
        elif kind == O_SAX:
            wval = a & x
        elif kind == O_DCP:
            wval = (val - 1) & 0xFF
            nz = (a - wval) & 0xFF
            c = 1 if a >= wval else 0
        elif kind == O_ANC:
            a &= val
            nz = a
            c = a >> 7
        elif kind == O_ASR:
            a &= val
            c = a & 1
            a = a >> 1
            nz = a
        elif kind == O_ARR:
            if s[FD] == 0:
                a = ((a & val) >> 1) | (c << 7)
                c = (a >> 6) & 1
                s[FV] = 1 if ((a & 0x40) ^ ((a & 0x20) << 1)) else 0
                nz = a
            else:
                value = a & val
                a = (value >> 1) | (c << 7)
                nz = a  # N is the old carry (bit 7 of the shifted value), Z from before the fix-ups
                s[FV] = 1 if ((value ^ a) & 0x40) else 0
                if ((value & 0x0F) + (value & 0x01)) > 0x05:
                    a = (a & 0xF0) | ((a + 0x06) & 0x0F)
                if ((value & 0xF0) + (value & 0x10)) > 0x50:
                    a = (a + 0x60) & 0xFF
                    c = 1
                else:
                    c = 0
        elif kind == O_ANE:
            a = (a | 0xEE) & x & val
            nz = a
        elif kind == O_LXA:
            a = (a | 0xEE) & val
            x = a
            nz = a
        elif kind == O_SBX:
            t = (x & a) - val
            x = t & 0xFF
            nz = x
            c = 1 if t >= 0 else 0
        elif kind == O_LAS:
            a = s[SP] & val
            x = a
            s[SP] = a
            nz = a
        elif kind == O_SHA or kind == O_SHS:
            if kind == O_SHS:
                s[SP] = a & x
            wval = a & x & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_SHX:
            wval = x & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_SHY:
            wval = y & (((addr >> 8) & 0xFF) + 1)
        elif kind == O_JAM:
            s[EXEC] |= EX_FATAL
            s[JAMMED] = op + 1
        if info & F_WRITES:
            cyc = _wr(s, rom, fb, addr, wval, draw, cyc, 1)
            bus = wval
        s[DBUS] = bus  # the fast paths keep the bus in a local; the next opcode fetch may need it
        left -= 1
        if left <= 0 or s[EXEC] != 0:
            break
    s[CYC] = cyc
    s[LAST_READ] = ENDS_WITH_READ[np.uint8(op)]
    s[IR] = op
    s[A] = a
    s[X] = x
    s[Y] = y
    s[PC] = pc
    s[FN] = 1 if nz & 0x180 else 0
    s[FNZ] = 1 if nz & 0xFF else 0
    s[FC] = c
    s[INSTR] += number - left
    return number - left


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
