"""NMOS 6502 as ALE's "Low" CPU runs it.

Timing convention: the opcode is fetched, then the instruction's whole base cycle count is charged before
any operand access, plus page-cross/branch extras — so every TIA/RIOT access is stamped at the end of the
instruction. No addressing-mode dummy reads and no RMW double writes; only the stack instructions' dummy
peeks (JSR, RTS, RTI, PLA, PLP, BRK). Decimal mode uses table-based BCD with N/Z from the BCD result.
The interpreter loop (``cpu_exec.execute``: one case per opcode, its addressing mode and operation written
out together) is generated from ``opcodes.py`` by ``cpu_gen.py``. This module holds what the cases call:
reads whose common cases (cartridge ROM pages, RIOT RAM) stay in the loop while every other one (TIA, RIOT
I/O, device pages) is one C call through the device pointer, the write path, and the operations too long
to repeat in every case that uses them.
"""
from __future__ import annotations

import numpy as np
from numba import carray

from . import opcodes as oc
from ._jit import DEVICE_SIG, call_device, jit, lazy_cfunc, load_u32, ptr_i64, ptr_u8
from .bus import S_FLAT64K, access_inline
from .cart_bus import superchip_read
from .carts import S_2K, S_4K, S_DPC, S_E0, S_F4, S_F4SC, S_F6, S_F6SC, S_F8, S_F8SC, S_F8SWAP, S_FE
from .layout import (A, X, Y, SP, PC, FN, FV, FB, FD, FI, FNZ, FC, EXEC, LAST_READ, CYC, DBUS, RAM0, C_SCHEME,
                     C_BASE, C_FAST_HI, C_FAST_LO, C_PAGE, FN_DEVICE, FN_TIA_UNDRAWN, N_STATE, FB_SIZE, R_TIMER,
                     R_SHIFT, R_SETCYC, AUD_ON, DEFER_CLK, X_LIMIT)
from .riot import U32, _to_int32
from .tia import (BLANK_STORE, QUIET_STORE, UNSEEN, cpu_write_clock, cpu_wsync_cycle, tia_access, grp_unseen,
                  quiet_store, starts_starfield, store_unseen, stored_in_blank, unchanged)
from .tia_regs import WSYNC

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

@jit(inline="always")
def _rom_byte(s, rom, addr):
    """The cartridge byte at ``addr`` when its page is read directly from ROM, else -1."""
    a = addr & 0x1FFF
    if (a & 0x1000) == 0:
        return -1
    base = s[C_PAGE + ((a >> 6) & 63)]
    return -1 if base < 0 else np.int64(rom[base + (a & 63)])


_REQ_DRAW = 1 << 16
_REQ_WRITE = 1 << 17


@lazy_cfunc(DEVICE_SIG)
def _device_c(sp, rp, nr, fp, request):
    """A bus access through the full decode: ``request`` = address | draw << 16 | write << 17 | value << 24."""
    s = carray(sp, (N_STATE,))
    rom = carray(rp, (nr,))
    fb = carray(fp, (3, FB_SIZE))
    return access_inline(s, rom, fb, request & 0xFFFF, (request >> 24) & 0xFF, (request & _REQ_WRITE) != 0,
                         (request & _REQ_DRAW) != 0)


@lazy_cfunc(DEVICE_SIG)
def _tia_write_undrawn_c(sp, rp, nr, fp, request):
    """A TIA write on an undrawn frame (``request`` = address | value << 24): the device path without
    the address decode, and with every drawing branch compiled out."""
    s = carray(sp, (N_STATE,))
    fb = carray(fp, (3, FB_SIZE))
    value = (request >> 24) & 0xFF
    # typed as plain booleans: the device path's compiled TIA serves here too, and LLVM, inlining it,
    # drops the drawing branches (literal arguments would compile a second copy of the whole TIA)
    tia_access(s, fb, request & 0x1FFF, value, np.bool_(True), np.bool_(False))
    s[DBUS] = value
    return value


@jit(inline="always")
def _device(s, rom, fb, request):
    return call_device(s[FN_DEVICE], ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],
                       ptr_u8(fb.ctypes.data), request)


@jit(forceinline=True)
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
    if unseen == 0 and tia and not draw and QUIET_STORE[addr & 0x3F]:
        unseen = 6  # on an undrawn frame: stored here when the span up to it latches nothing (tia.quiet_store)
    if unseen == 1 or unseen == 5 or (unseen != 0 and not draw):
        # A TIA register whose write drawing up to it would not change (tia.UNSEEN): stored without the
        # device call; the next access draws the span. Past the line limit the full path ends the
        # frame; logged sound goes through it too.
        clock = cyc * 3
        r = addr & 0x3F
        if clock < s[X_LIMIT] and s[AUD_ON] == 0:  # within the line limit (tia.within_line_limit)
            if unseen == 6:
                if quiet_store(s, r, value, cyc, clock):
                    s[LAST_READ] = last_read
                    s[DBUS] = value
                    return cyc
            elif unseen != 3 or grp_unseen(s, r, value):
                s[LAST_READ] = last_read
                s[DBUS] = value
                at = cpu_write_clock(s, cyc, clock, r)  # where the full path would have drawn up to
                if at > s[DEFER_CLK]:  # (a delayed write can take effect after a later one)
                    s[DEFER_CLK] = at
                if r == WSYNC:
                    return cpu_wsync_cycle(s, cyc) if last_read else cyc
                if unseen < 3:  # grp_unseen stored GRPx already; an unchanged register needs nothing
                    store_unseen(s, r, value)
                return cyc
    s[CYC] = cyc
    s[LAST_READ] = last_read
    if tia and not draw:
        call_device(s[FN_TIA_UNDRAWN], ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],
                    ptr_u8(fb.ctypes.data), (addr & 0xFFFF) | (value << 24))
    else:
        if tia and BLANK_STORE[addr & 0x3F] and stored_in_blank(s, addr & 0x3F, value, cyc):
            s[DBUS] = value  # a drawn frame's write with nothing to draw up to it (tia.BLANK_STORE)
            return cyc
        _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0) | _REQ_WRITE | (value << 24))
    return s[CYC]


WINDOW = -1  # _flat_mask: one 4K bank in the ROM window
NO_WINDOW = -2


@jit(forceinline=True)
def _flat_mask(s, rom):
    """How the loop reads the cartridge's ROM space. A cartridge without bank switching (2K, 4K), or FE
    (whose image is laid out by address bits 0-13, ``carts.fe_image``), reads every page straight from ROM
    at ``addr & mask``: that mask, so the loop's reads there skip the page map (one load less on the path
    from the program counter to the next opcode). ``WINDOW`` for the 4K-bank schemes (F8, F6, F4, their
    Superchip forms, DPC), whose direct-read window [C_FAST_LO, C_FAST_HI) is one bank from ``C_BASE``
    (``_opcode``); ``NO_WINDOW`` for the rest (E0's 1K slices, a CPU test's flat RAM)."""
    scheme = s[C_SCHEME]
    if scheme == S_2K and rom.shape[0] >= 0x800:
        return 0x7FF
    if scheme == S_4K and rom.shape[0] >= 0x1000:
        return 0xFFF
    if scheme == S_FE and rom.shape[0] >= 0x4000:
        return 0x3FFF
    if scheme in (S_F8, S_F8SWAP, S_F8SC, S_F6, S_F6SC, S_F4, S_F4SC, S_DPC):
        return WINDOW
    return NO_WINDOW


@jit(inline="always")
def _top_page_byte(s, rom, addr):
    """A read of the cartridge's top page ($FC0-$FFF, a device page for the page map because the bank
    switches sit there) at an address that is no hotspot of F8, F6, F4 or E0: the byte of the slice
    mapped there, as ``cart_bus.cart_peek`` would read it (E0 games run code on that page); else -1."""
    a = addr & 0x1FFF
    if a < 0x1FC0:
        return -1
    scheme = s[C_SCHEME]
    if scheme == S_E0:
        hot = 0x1FE0 <= a <= 0x1FF7
    elif scheme == S_F8 or scheme == S_F8SWAP or scheme == S_F8SC:
        hot = 0x1FF8 <= a <= 0x1FF9
    elif scheme == S_F6 or scheme == S_F6SC:
        hot = 0x1FF6 <= a <= 0x1FF9
    elif scheme == S_F4 or scheme == S_F4SC:
        hot = 0x1FF4 <= a <= 0x1FFB
    else:
        return -1
    return -1 if hot else np.int64(rom[s[C_BASE + 3] + (a & 0x3FF)])


# The read helpers are inlined by LLVM (``forceinline``; numba's own inlining of the loop's ~400 read sites
# took over ten minutes) into the cases of the commonest opcodes (``cpu_gen.INLINED``). Left to LLVM's
# judgement, about 250 sites, many in common opcodes, stayed calls passing every array as its exploded
# struct: on bank-switched cartridges, whose reads go past the flat path, 5-15 % of the time. What a read
# reaches only off the ROM pages (the top page, Superchip RAM, the device) is one call away, in
# ``_off_map``.
@jit(forceinline=True)
def _byte(s, rom, fb, flat, addr, draw, cyc, bus):
    """A read where code lives (instruction bytes): a cartridge ROM page stays in the loop. Returns
    (value, cycles)."""
    if flat >= 0 and addr & 0x1000:
        return np.int64(rom[addr & flat]), cyc
    v = _rom_byte(s, rom, addr)
    if v >= 0:
        return v, cyc
    return _off_map(s, rom, fb, addr, draw, cyc, bus)


@jit(forceinline=True)
def _opcode(s, rom, fb, flat, addr, draw, cyc, bus):
    """An opcode fetch off the fast stretches (``_instruction_far``): ``_byte``, with the 4K-bank cartridges'
    (F8, F6, F4, their Superchip forms, DPC) ROM window read as one bank, ``rom[bank base + offset]``, which
    does not wait on the page map's entry. E0's 1K slices are not contiguous and keep the page map."""
    if flat == WINDOW and addr & 0x1000:
        off = addr & 0xFFF
        if s[C_FAST_LO] <= off < s[C_FAST_HI]:
            return np.int64(rom[s[C_BASE] + off]), cyc
    return _byte(s, rom, fb, flat, addr, draw, cyc, bus)


# The operand bytes an instruction's case reads from the fetch (``_instruction``): its length less one;
# none for JSR, whose bytes come around its stack accesses, and BRK, whose padding byte is a dummy read
# of its own (both fetch them in their cases when the fetch could not take them from ROM).
OPERAND_BYTES = np.array([0 if op in (0x00, 0x20) else oc.MODE_BYTES[oc.MODE[op]] - 1 for op in range(256)],
                         dtype=np.int64)
_SELF_FETCHED = -1  # ``_instruction``'s operand word for JSR and BRK off the fast paths


@jit(forceinline=True)
def _instruction(s, rom, fb, flat, pc, draw, cyc, bus):
    """The instruction at ``pc``: (opcode, operand word, cycles). The operand word holds the bytes after
    the opcode, ``b1 | b2 << 8``, those the instruction has. Where all three bytes lie on one directly read
    ROM stretch (a 2K/4K/FE image, the 4K-bank window, a mapped 64-byte page) they come from one
    unaligned four-byte load: ROM reads have no side effects, so reading bytes an instruction does not
    have is harmless, and each case finds its operands in a register instead of fetching them. Elsewhere
    ``_instruction_far`` fetches them one by one as the cases did."""
    if pc & (pc + 2) & 0x1000:  # all three in the cartridge's 4K, none past its end
        if flat >= 0:
            off = pc & flat
            if off <= flat - 3:
                w = load_u32(rom, off)
                return w & 0xFF, (w >> 8) & 0xFFFF, cyc
        elif flat == WINDOW:
            off = pc & 0xFFF
            if s[C_FAST_LO] <= off and off + 2 < s[C_FAST_HI]:
                w = load_u32(rom, s[C_BASE] + off)
                return w & 0xFF, (w >> 8) & 0xFFFF, cyc
        else:
            page = s[C_PAGE + ((pc >> 6) & 63)]
            if page >= 0 and (pc & 63) <= 60:  # the fourth byte still inside the page
                w = load_u32(rom, page + (pc & 63))
                return w & 0xFF, (w >> 8) & 0xFFFF, cyc
    return _instruction_far(s, rom, fb, flat, pc, draw, cyc, bus)


@jit
def _instruction_far(s, rom, fb, flat, pc, draw, cyc, bus):
    """``_instruction`` off the direct ROM stretches (the top page, RAM, a device page, a stretch's last
    bytes): the opcode, then each operand byte through ``_byte`` with every side effect. The cases used to
    fetch their operands after adding their cycles: a device read here sees the cycle count it saw there,
    and a stall it adds is kept."""
    op, cyc = _opcode(s, rom, fb, flat, pc, draw, cyc, bus)
    n = OPERAND_BYTES[op]
    if n == 0:
        return op, (_SELF_FETCHED if op == 0x00 or op == 0x20 else 0), cyc
    at = cyc + oc.CYCLES[op]
    lo, at = _byte(s, rom, fb, flat, (pc + 1) & 0xFFFF, draw, at, op)
    hi = 0
    if n == 2:
        hi, at = _byte(s, rom, fb, flat, (pc + 2) & 0xFFFF, draw, at, lo)
    return op, lo | (hi << 8), at - oc.CYCLES[op]


@jit
def _off_map(s, rom, fb, addr, draw, cyc, bus):
    """A read the page map does not serve: the top page's non-hotspot bytes and Superchip RAM's read port
    (neither has a side effect: ``cart_bus.cart_peek`` returns them as they are), else the device."""
    v = _top_page_byte(s, rom, addr)
    if v >= 0:
        return v, cyc
    v = superchip_read(s, addr & 0x0FFF) if addr & 0x1000 else -1
    if v >= 0:
        return v, cyc
    return _far(s, rom, fb, addr, draw, cyc, bus)


@jit
def _byte_cold(s, rom, fb, flat, addr, draw, cyc, bus):
    """``_byte`` for the uncommon opcodes' cases (``cpu_gen.INLINED``)."""
    return _byte(s, rom, fb, flat, addr, draw, cyc, bus)


@jit
def _zp(s, rom, fb, addr, draw, cyc, bus):
    """A read below $200 (zero page, stack, pointers): RIOT RAM stays in the loop, the TIA does not."""
    if addr & 0x80 and s[C_SCHEME] != S_FLAT64K:
        return s[RAM0 + (addr & 0x7F)], cyc
    return _far(s, rom, fb, addr, draw, cyc, bus)


@jit(forceinline=True)
def _any(s, rom, fb, flat, addr, draw, cyc, bus):
    """A read anywhere: cartridge ROM pages and RIOT RAM (with its $1xx mirror) stay in the loop."""
    if addr & 0x1000:
        return _byte(s, rom, fb, flat, addr, draw, cyc, bus)
    if (addr & 0x280) == 0x80 and s[C_SCHEME] != S_FLAT64K:
        return s[RAM0 + (addr & 0x7F)], cyc
    return _far(s, rom, fb, addr, draw, cyc, bus)


@jit
def _any_cold(s, rom, fb, flat, addr, draw, cyc, bus):
    """``_any`` for the uncommon opcodes' cases (``cpu_gen.INLINED``)."""
    return _any(s, rom, fb, flat, addr, draw, cyc, bus)


@jit(inline="always")
def _far(s, rom, fb, addr, draw, cyc, bus):
    """Every other read, through the full decode behind the device pointer: a five-argument C call. (A
    call to a compiled function would pass each array as its exploded struct and keep all those fields
    live across the loop; measured, the loop ran at 0.6x.) Returns (value, cycles): a device read may
    stall the CPU."""
    s[CYC] = cyc
    s[DBUS] = bus
    v = _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0))
    return v, s[CYC]


@jit
def _push(s, rom, fb, addr, value, draw, cyc, last_read):
    """A stack write of JSR or BRK: RIOT RAM here, a stack pointed at the TIA through the device."""
    if (addr & 0x1280) == 0x80 and s[C_SCHEME] != S_FLAT64K:
        s[RAM0 + (addr & 0x7F)] = value
        return cyc
    s[CYC] = cyc
    s[LAST_READ] = last_read
    _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0) | _REQ_WRITE | (value << 24))
    return s[CYC]


@jit
def _adc_bcd(s, a, val, c):
    """Decimal ADC (sets V): the result byte | carry << 8."""
    total = BCD[a] + BCD[val] + c
    r = BCD[256 + (total & 0xFF)]
    s[FV] = 1 if ((a ^ r) & 0x80) and ((r ^ val) & 0x80) else 0
    return r | ((1 if total > 99 else 0) << 8)


@jit
def _sbc_bcd(s, a, val, c):
    """Decimal SBC (sets V): the result byte | carry << 8. The carry is the binary compare's."""
    borrow = 1 - c
    diff = BCD[a] - BCD[val] - borrow
    if diff < 0:
        diff += 100
    r = BCD[256 + diff]
    s[FV] = 1 if ((a ^ r) & 0x80) and ((r ^ val) & 0x80) else 0
    return r | ((1 if a >= val + borrow else 0) << 8)


@jit
def _arr(s, a, val, c):
    """ARR (AND, then ROR A with its odd flags; sets V): returns (a, carry, nz)."""
    if s[FD] == 0:
        a = ((a & val) >> 1) | (c << 7)
        s[FV] = 1 if ((a & 0x40) ^ ((a & 0x20) << 1)) else 0
        return a, (a >> 6) & 1, a
    value = a & val
    a = (value >> 1) | (c << 7)
    nz = a  # N is the old carry (bit 7 of the shifted value), Z from before the fix-ups
    s[FV] = 1 if ((value ^ a) & 0x40) else 0
    if ((value & 0x0F) + (value & 0x01)) > 0x05:
        a = (a & 0xF0) | ((a + 0x06) & 0x0F)
    if ((value & 0xF0) + (value & 0x10)) > 0x50:
        return (a + 0x60) & 0xFF, 1, nz
    return a, 0, nz


@jit
def _rd_call(s, rom, fb, addr, draw):
    """A CPU read through the full decode, not inlined (interrupt vectors); state already synced."""
    v = _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0))
    s[LAST_READ] = 1
    return v


@jit
def _loop_byte(s, rom, addr):
    """A byte of a loop ``_timer_wait`` may run: from a ROM page, or from the top page where it is no
    hotspot (Tutankham waits for the timer there; E0's fixed slice holds that page); else -1."""
    v = _rom_byte(s, rom, addr)
    return v if v >= 0 else _top_page_byte(s, rom, addr)


@jit(inline="always")
def _count_before_expiry(timer, shift, setcyc, at):
    """``riot_peek``'s count for a timer read at cycle ``at``; >= 0 is its side-effect-free, pre-expiry
    range (the wait loops' fast-forwards run only there)."""
    return _to_int32(timer - (((at - setcyc) & U32) >> shift) - 1)


@jit
def _timer_wait(s, rom, pc, cyc, budget, branch_cycles, a):
    """Fast-forward of the commonest loop in 2600 games, ``L: LDA/LDX/LDY/BIT INTIM|TIMINT; BNE|BPL|BMI L``,
    or the same with a counter, ``L: INC zp; LDA... INTIM; Bxx L`` (Dark Chambers counts while it waits),
    entered as its branch is taken back to ``pc``. Runs whole iterations while each read falls before the
    timer expires — such reads have no side effect, and nothing else happens in the loop but the counter
    — and would take the branch again. Only the cycle counter, the instruction count, the counter and the
    loaded value change; the last iteration (the exit, or the first read past expiry with its side
    effect) runs in the interpreter. Returns ``k | value << 32 | load << 40 | counted << 42`` for ``k``
    iterations run (``load``: 0 LDA, 1 LDX, 2 LDY, 3 BIT; ``counted``: the loop has the INC)."""
    if s[C_SCHEME] == S_FLAT64K:
        return 0
    op = _loop_byte(s, rom, pc)
    counter = -1
    if op == 0xE6:
        counter = _loop_byte(s, rom, pc + 1)
        if counter < 0x80:
            return 0  # the counter must be RIOT RAM
        pc += 2
        op = _loop_byte(s, rom, pc)
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
    lo = _loop_byte(s, rom, pc + 1)
    hi = _loop_byte(s, rom, pc + 2)
    branch = _loop_byte(s, rom, pc + 3)
    if lo < 0 or hi < 0 or _loop_byte(s, rom, pc + 4) != (0xFB if counter < 0 else 0xF9):
        return 0  # the bytes must come from ROM (no hotspot, no device page) and be the loop itself
    addr = lo | (hi << 8)
    if (addr & 0x1280) != 0x280 or (addr & 4) == 0:
        return 0  # not the timer ($284-$287 and mirrors)
    intim = (addr & 1) == 0  # TIMINT reads 0 until expiry
    before = 0 if counter < 0 else 5  # the INC's cycles, charged before the load's
    period = before + 4 + branch_cycles
    instructions = 2 if counter < 0 else 3
    timer = s[R_TIMER]
    shift = s[R_SHIFT]
    setcyc = s[R_SETCYC]
    k = 0
    value = 0
    while budget >= instructions:
        # a read stamped at the end of the 4-cycle load
        t = _count_before_expiry(timer, shift, setcyc, cyc + before + 3)
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
        budget -= instructions
        k += 1
    if counter >= 0:
        s[RAM0 + (counter & 0x7F)] = (s[RAM0 + (counter & 0x7F)] + k) & 0xFF
    return k | (value << 32) | (load << 40) | ((0 if counter < 0 else 1) << 42)


@jit
def _after_timer_wait(s, rom, pc, cyc, left, branch_cycles, a, x, y, nz):
    """A taken backward branch of -5 or -7 (``_timer_wait``'s loop shapes), entered with ``left`` counting
    this branch: runs what it can and returns the registers, cycles and instructions left after it."""
    w = _timer_wait(s, rom, pc, cyc, left - 1, branch_cycles, a)
    k = w & 0xFFFFFFFF
    if k:
        counted = (w >> 42) & 1
        cyc += k * ((9 if counted else 4) + branch_cycles)
        left -= (3 if counted else 2) * k
        v = (w >> 32) & 0xFF
        load = (w >> 40) & 3
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
    return a, x, y, nz, cyc, left


@jit
def _timer_wait_below(s, rom, pc, cyc, budget, branch_cycles):
    """Fast-forward of ``L: LDA INTIM; BEQ out; CMP #n; BCC L`` (Galaxian's wait: on until the timer reads
    0 or at least n), entered as its BCC is taken back to ``pc``, under ``_timer_wait``'s terms: whole
    iterations while each read falls before the timer expires and the loop would go round again. Returns
    ``k | value << 32 | n << 40`` for ``k`` iterations run (A = value, N/Z from the CMP, C stays clear)."""
    if s[C_SCHEME] == S_FLAT64K or _loop_byte(s, rom, pc) != 0xAD or _loop_byte(s, rom, pc + 3) != 0xF0:
        return 0
    if _loop_byte(s, rom, pc + 5) != 0xC9 or _loop_byte(s, rom, pc + 7) != 0x90 \
            or _loop_byte(s, rom, pc + 8) != 0xF7:
        return 0  # the bytes must come from ROM (no hotspot, no device page) and be the loop itself
    lo = _loop_byte(s, rom, pc + 1)
    hi = _loop_byte(s, rom, pc + 2)
    n = _loop_byte(s, rom, pc + 6)
    addr = lo | (hi << 8)
    if lo < 0 or hi < 0 or n < 0 or (addr & 0x1280) != 0x280 or (addr & 5) != 4:
        return 0  # not INTIM ($284, $286 and mirrors)
    period = 4 + 2 + 2 + branch_cycles
    timer = s[R_TIMER]
    shift = s[R_SHIFT]
    setcyc = s[R_SETCYC]
    k = 0
    value = 0
    while budget >= 4:
        t = _count_before_expiry(timer, shift, setcyc, cyc + 3)
        if t <= 0 or t >= n:
            break  # expired, or the loop ends on this read: the interpreter runs it
        value = t
        cyc += period
        budget -= 4
        k += 1
    return k | (value << 32) | (n << 40)


@jit
def _after_timer_wait_below(s, rom, pc, cyc, left, branch_cycles, a, nz):
    """A BCC taken back by 9 bytes (``_timer_wait_below``'s loop), entered with ``left`` counting this
    branch: returns A, N/Z, the cycles and the instructions left after what it ran."""
    w = _timer_wait_below(s, rom, pc, cyc, left - 1, branch_cycles)
    k = w & 0xFFFFFFFF
    if k:
        v = (w >> 32) & 0xFF
        cyc += k * (8 + branch_cycles)
        left -= 4 * k
        a = v
        nz = (v - ((w >> 40) & 0xFF)) & 0xFF
    return a, nz, cyc, left


@jit
def _signed(v):
    return v - 256 if v & 0x80 else v


@jit(forceinline=True)
def _status(s, nz, c):
    return (0x20 | (0x80 if nz & 0x180 else 0) | (s[FV] << 6) | (s[FB] << 4) | (s[FD] << 3) | (s[FI] << 2)
            | (0 if nz & 0xFF else 2) | c)


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
    # through the device kernel: a call into the bus module would compile the whole decode (and the TIA)
    # into the reset once more
    lo = _device(s, rom, fb, 0xFFFC | _REQ_DRAW)
    hi = _device(s, rom, fb, 0xFFFD | _REQ_DRAW)
    s[PC] = lo | (hi << 8)


# The loop is generated from opcodes.py into its own module, which imports the helpers above.
from .cpu_exec import execute  # noqa: E402  (after the helpers it uses)
