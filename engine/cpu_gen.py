"""Writes ``cpu_exec.py``, the 6502 interpreter loop, from the opcode table: ``python -m arcade_lab.engine.cpu_gen``.

Why generated: a loop that decodes an opcode in two steps (addressing group, then operation) pays a
table load and two data-dependent dispatches per instruction; in the profile of that loop decode and
dispatch took about 40 % of its time. One case per opcode — its addressing mode and operation written out
together — needs one indirect jump for the commonest opcodes (see ``ORDER``) and nothing to decode
(docs/engine.md, "The 6502"). Writing 256 such cases by hand
would be 256 chances to get one wrong; here each addressing mode and each operation is written once,
below, and a test checks that ``cpu_exec.py`` is what this module writes.

Every access happens as ``cpu.py``'s helpers describe it (ALE's order and timing, see its docstring).
"""
from __future__ import annotations

import sys
from pathlib import Path

from . import opcodes as oc

TARGET = Path(__file__).resolve().parent / "cpu_exec.py"
_BRANCH = {"BNE": "(nz & 0xFF) != 0", "BEQ": "(nz & 0xFF) == 0", "BPL": "(nz & 0x180) == 0",
           "BMI": "(nz & 0x180) != 0", "BCC": "c == 0", "BCS": "c != 0", "BVC": "s[FV] == 0",
           "BVS": "s[FV] != 0"}
_TIMER_WAIT_BRANCHES = ("BNE", "BPL", "BMI")  # the ones ``_timer_wait`` recognises (back by 5 or 7 bytes)

# The cases' order. LLVM turns the chain of ``op ==`` tests into switches of at most 64 cases each, tried
# one after another: the first 64 cases cost one indirect jump, the next 64 a compare more, and so on.
# MEASURED is every opcode games executed, most frequent first: ``tools/opcode_mix.py`` over all 104 games
# (10 frames each after 100 random steps at frame skip 4), each game weighted equally; the first 64 are
# 97.7 % of the instructions executed, the first 72 98.7 %, the 134 all of them. Counting every game matters:
# LDX abs, LDY abs and CPX zp are rare in most games but 10-15 % of some games' instructions.
MEASURED = (
    0x85, 0xD0, 0xAD, 0xB1, 0xA5, 0x10, 0xA9, 0x88, 0xF0, 0x86, 0xCA, 0xB5, 0xB9, 0xA4, 0xB0, 0x84, 0xAE, 0xEA,
    0x90, 0x29, 0x30, 0x4A, 0xA6, 0x0A, 0xC6, 0x4C, 0xC9, 0xBD, 0xA2, 0xC0, 0xA8, 0xC4, 0x38, 0xC8, 0xAA, 0x95,
    0xE4, 0x8A, 0xA0, 0xE5, 0xAC, 0xE6, 0x60, 0xE0, 0x20, 0xE8, 0x18, 0x08, 0xC5, 0x25, 0xE9, 0x68, 0x98, 0x8D,
    0x65, 0x49, 0x69, 0x24, 0x45, 0x48, 0xD5, 0x05, 0x9A, 0x6C, 0xBE, 0x99, 0x31, 0xB4, 0x2A, 0x2C, 0x11, 0xDD,
    0xBA, 0x75, 0x94, 0xA1, 0xBC, 0xD9, 0x6A, 0x70, 0x09, 0x06, 0x26, 0x8E, 0x50, 0x8C, 0x3D, 0x46, 0xB6, 0x51,
    0xD8, 0x39, 0x7D, 0xF5, 0x15, 0x66, 0xD6, 0x96, 0x79, 0xF6, 0x76, 0xCE, 0xF8, 0xF9, 0x9D, 0x19, 0x59, 0x1D,
    0x91, 0xEC, 0x28, 0x55, 0x5D, 0x36, 0xFD, 0xB8, 0xD1, 0xED, 0x16, 0x2D, 0x00, 0x40, 0x35, 0x4D, 0x56, 0x0D,
    0x6D, 0xC1, 0x6E, 0x1E, 0xCD, 0x71, 0x4E, 0xCC)
ORDER = MEASURED + tuple(op for op in range(256) if op not in MEASURED)
# The cases whose reads inline ``cpu._byte`` and ``cpu._any`` (forced): the 72 commonest opcodes, 98.7 % of
# the instructions executed, and ``HEAVY``, those past them that are 2 % or more of some game's instructions
# (Enduro's ADC zp,X; Tetris' STX abs and STY abs; ...). The others read through plain copies
# (``_byte_cold``, ``_any_cold``) that LLVM leaves out of line: forced inline at all ~400 read sites, the
# loop's cold compile took several seconds longer.
HEAVY = (0x75, 0xA1, 0xBC, 0xD9, 0x70, 0x06, 0x8E, 0x8C)
INLINED = frozenset(MEASURED[:72] + HEAVY)
assert len(set(MEASURED)) == 134 and sorted(ORDER) == list(range(256))


def _fetch(dst: str, k: int = 0) -> list[str]:
    """Operand byte ``k`` (0 or 1) into ``dst``, from the operand word ``w`` the fetch read with the opcode."""
    return [f"{dst} = {'w & 0xFF' if k == 0 else 'w >> 8'}", "pc = (pc + 1) & 0xFFFF", f"bus = {dst}"]


def _address(mode: int, reads: bool, cross: bool) -> list[str]:
    """Instruction bytes, effective address ``addr`` and (when ``reads``) operand ``val``."""
    if mode == oc.IMP:
        return []
    if mode in (oc.IMM, oc.REL):
        return _fetch("val")
    idx = {oc.ZPX: "x", oc.ABX: "x", oc.ZPY: "y", oc.ABY: "y", oc.IZY: "y"}.get(mode)
    if mode in (oc.ZP, oc.ZPX, oc.ZPY):
        out = _fetch("addr")
        if idx:
            out.append(f"addr = (addr + {idx}) & 0xFF")
        if reads:
            out += ["val, cyc = _zp(s, rom, fb, addr, draw, cyc, bus)", "bus = val"]
        return out
    if mode in (oc.ABS, oc.ABX, oc.ABY, oc.IND):
        out = _fetch("lo") + _fetch("hi", 1) + ["base = lo | (hi << 8)"]
        if mode == oc.IND:  # JMP ($xxFF) takes the high byte from $xx00
            out += ["lo, cyc = _any(s, rom, fb, flat, base, draw, cyc, bus)",
                    "hi, cyc = _any(s, rom, fb, flat, (base & 0xFF00) | ((base + 1) & 0xFF), draw, cyc, lo)",
                    "bus = hi", "base = lo | (hi << 8)"]
    else:  # (zp,X), (zp),Y: the pointer's high byte comes from ptr+1 unwrapped ($FF -> $0100, the TIA)
        out = _fetch("p")
        if mode == oc.IZX:
            out.append("p = (p + x) & 0xFF")
        out += ["lo, cyc = _zp(s, rom, fb, p, draw, cyc, bus)", "hi, cyc = _zp(s, rom, fb, p + 1, draw, cyc, lo)",
                "bus = hi", "base = lo | (hi << 8)"]
    if idx:
        out.append(f"addr = (base + {idx}) & 0xFFFF")
        if cross:
            out += ["if (base ^ addr) & 0xFF00:", "    cyc += 1"]
    else:
        out.append("addr = base")
    if reads:
        out += ["val, cyc = _any(s, rom, fb, flat, addr, draw, cyc, bus)", "bus = val"]
    return out


def _write(mode: int) -> list[str]:
    """Store ``wval`` at ``addr``: RIOT RAM here, anything else at the loop's one shared write site."""
    ram = "addr & 0x80" if mode in (oc.ZP, oc.ZPX, oc.ZPY) else "(addr & 0x1280) == 0x80"
    return [f"if {ram} and s[C_SCHEME] != S_FLAT64K:", "    s[RAM0 + (addr & 0x7F)] = wval", "else:",
            "    wr = 1", "bus = wval"]


def _adc(operand: str) -> list[str]:
    return ["if s[FD] == 0:", f"    total = a + {operand} + c",
            f"    s[FV] = 1 if (a ^ total) & ({operand} ^ total) & 0x80 else 0",
            "    a = total & 0xFF", "    c = total >> 8", "else:", f"    r = _adc_bcd(s, a, {operand}, c)",
            "    a = r & 0xFF", "    c = r >> 8", "nz = a"]


def _sbc(operand: str) -> list[str]:
    return ["if s[FD] == 0:", f"    inv = {operand} ^ 0xFF", "    total = a + inv + c",
            "    s[FV] = 1 if (a ^ total) & (inv ^ total) & 0x80 else 0", "    a = total & 0xFF",
            "    c = total >> 8", "else:", f"    r = _sbc_bcd(s, a, {operand}, c)", "    a = r & 0xFF",
            "    c = r >> 8", "nz = a"]


def _stack_pull(dst: str, bus: str) -> list[str]:
    return ["sp = (sp + 1) & 0xFF", f"{dst}, cyc = _zp(s, rom, fb, 0x100 + sp, draw, cyc, {bus})"]


def _operation(name: str, op: int, mode: int) -> list[str]:
    """The operation on ``val``/``addr``; writing operations set ``wval``."""
    cycles = int(oc.CYCLES[op])
    simple = {
        "LDA": ["a = val", "nz = a"], "LDX": ["x = val", "nz = x"], "LDY": ["y = val", "nz = y"],
        "LAX": ["a = val", "x = val", "nz = a"],
        "STA": ["wval = a"], "STX": ["wval = x"], "STY": ["wval = y"], "SAX": ["wval = a & x"],
        "JMP": ["pc = addr"],
        "DEX": ["x = (x - 1) & 0xFF", "nz = x"], "DEY": ["y = (y - 1) & 0xFF", "nz = y"],
        "INX": ["x = (x + 1) & 0xFF", "nz = x"], "INY": ["y = (y + 1) & 0xFF", "nz = y"],
        "AND": ["a &= val", "nz = a"], "ORA": ["a |= val", "nz = a"], "EOR": ["a ^= val", "nz = a"],
        "BIT": ["nz = (a & val) | ((val & 0x80) << 1)", "s[FV] = (val >> 6) & 1"],
        "INC": ["wval = (val + 1) & 0xFF", "nz = wval"], "DEC": ["wval = (val - 1) & 0xFF", "nz = wval"],
        "ASL": ["c = val >> 7", "wval = (val << 1) & 0xFF", "nz = wval"],
        "SLO": ["c = val >> 7", "wval = (val << 1) & 0xFF", "a |= wval", "nz = a"],
        "LSR": ["c = val & 1", "wval = val >> 1", "nz = wval"],
        "SRE": ["c = val & 1", "wval = val >> 1", "a ^= wval", "nz = a"],
        "ROL": ["wval = ((val << 1) | c) & 0xFF", "c = val >> 7", "nz = wval"],
        "RLA": ["wval = ((val << 1) | c) & 0xFF", "c = val >> 7", "a &= wval", "nz = a"],
        "ROR": ["wval = (val >> 1) | (c << 7)", "c = val & 1", "nz = wval"],
        "ASLA": ["c = a >> 7", "a = (a << 1) & 0xFF", "nz = a"],
        "LSRA": ["c = a & 1", "a = a >> 1", "nz = a"],
        "ROLA": ["r = ((a << 1) | c) & 0xFF", "c = a >> 7", "a = r", "nz = a"],
        "RORA": ["r = (a >> 1) | (c << 7)", "c = a & 1", "a = r", "nz = a"],
        "TAX": ["x = a", "nz = x"], "TAY": ["y = a", "nz = y"], "TXA": ["a = x", "nz = a"],
        "TYA": ["a = y", "nz = a"], "TSX": ["x = s[SP]", "nz = x"], "TXS": ["s[SP] = x"],
        "CLC": ["c = 0"], "SEC": ["c = 1"], "CLD": ["s[FD] = 0"], "SED": ["s[FD] = 1"], "CLI": ["s[FI] = 0"],
        "SEI": ["s[FI] = 1"], "CLV": ["s[FV] = 0"], "NOP": [],
        "DCP": ["wval = (val - 1) & 0xFF", "nz = (a - wval) & 0xFF", "c = 1 if a >= wval else 0"],
        "ANC": ["a &= val", "nz = a", "c = a >> 7"],
        "ASR": ["a &= val", "c = a & 1", "a = a >> 1", "nz = a"],
        "ANE": ["a = (a | 0xEE) & x & val", "nz = a"],
        "LXA": ["a = (a | 0xEE) & val", "x = a", "nz = a"],
        "SBX": ["t = (x & a) - val", "x = t & 0xFF", "nz = x", "c = 1 if t >= 0 else 0"],
        "LAS": ["a = s[SP] & val", "x = a", "s[SP] = a", "nz = a"],
        "SHA": ["wval = a & x & (((addr >> 8) & 0xFF) + 1)"],
        "SHS": ["s[SP] = a & x", "wval = a & x & (((addr >> 8) & 0xFF) + 1)"],
        "SHX": ["wval = x & (((addr >> 8) & 0xFF) + 1)"], "SHY": ["wval = y & (((addr >> 8) & 0xFF) + 1)"],
        "JAM": ["s[EXEC] |= EX_FATAL", f"s[JAMMED] = {op + 1}"],
        "ARR": ["a, c, nz = _arr(s, a, val, c)"],
    }
    if name in simple:
        return list(simple[name])
    if name in ("CMP", "CPX", "CPY"):
        r = {"CMP": "a", "CPX": "x", "CPY": "y"}[name]
        return [f"nz = ({r} - val) & 0xFF", f"c = 1 if {r} >= val else 0"]
    if name == "ADC":
        return _adc("val")
    if name == "SBC":
        return _sbc("val")
    if name == "RRA":  # ROR, then ADC of the result
        return ["wval = (val >> 1) | (c << 7)", "c = val & 1"] + _adc("wval")
    if name == "ISB":  # INC, then SBC of the result
        return ["wval = (val + 1) & 0xFF"] + _sbc("wval")
    if name in _BRANCH:
        out = [f"if {_BRANCH[name]}:", "    target = (pc + _signed(val)) & 0xFFFF",
               "    extra = 2 if ((pc ^ target) & 0xFF00) else 1", "    cyc += extra", "    pc = target"]
        if name in _TIMER_WAIT_BRANCHES:
            out += ["    if val == 0xFB or val == 0xF9:",
                    f"        a, x, y, nz, cyc, left = _after_timer_wait(s, rom, pc, cyc, left, {cycles} + extra,"
                    " a, x, y, nz)"]
        elif name == "BCC":  # cpu._timer_wait_below's loop
            out += ["    if val == 0xF7:",
                    f"        a, nz, cyc, left = _after_timer_wait_below(s, rom, pc, cyc, left, {cycles} + extra, a,"
                    " nz)"]
        return out
    if name == "JSR":
        # its bytes come from the operand word when the fetch read them from ROM, else one by one around
        # the stack accesses, as the 6502 reads them
        return (["sp = s[SP]", "if w == _SELF_FETCHED:", "    lo, cyc = _byte_cold(s, rom, fb, flat, pc, draw, cyc, bus)",
                 "else:", "    lo = w & 0xFF", "pc = (pc + 1) & 0xFFFF",
                 "dummy, cyc = _zp(s, rom, fb, 0x100 + sp, draw, cyc, lo)",
                 "cyc = _push(s, rom, fb, 0x100 + sp, pc >> 8, draw, cyc, 1)", "sp = (sp - 1) & 0xFF",
                 "cyc = _push(s, rom, fb, 0x100 + sp, pc & 0xFF, draw, cyc, 0)", "s[SP] = (sp - 1) & 0xFF",
                 "if w == _SELF_FETCHED:", "    hi, cyc = _byte_cold(s, rom, fb, flat, pc, draw, cyc, pc & 0xFF)",
                 "else:", "    hi = w >> 8", "bus = hi", "pc = lo | (hi << 8)"])
    if name in ("RTS", "RTI", "PLA", "PLP"):
        out = ["sp = s[SP]", "dummy, cyc = _zp(s, rom, fb, 0x100 + sp, draw, cyc, bus)"]
        out += _stack_pull("val", "dummy") + ["bus = val"]
        if name == "PLA":
            out += ["a = val", "nz = a"]
        elif name == "RTS":  # RTS reads the last byte of its JSR
            out += _stack_pull("hi", "bus") + [
                "pc = val | (hi << 8)", "dummy, cyc = _byte(s, rom, fb, flat, pc, draw, cyc, hi)", "bus = dummy",
                "pc = (pc + 1) & 0xFFFF"]
        else:
            out += ["nz = (0 if val & 0x02 else 1) | ((val & 0x80) << 1)", "s[FV] = (val >> 6) & 1",
                    "s[FB] = 1  # the 6507's B flag always reads as set", "s[FD] = (val >> 3) & 1",
                    "s[FI] = (val >> 2) & 1", "c = val & 1"]
            if name == "RTI":
                out += _stack_pull("lo", "bus") + _stack_pull("hi", "lo") + ["bus = hi", "pc = lo | (hi << 8)"]
        return out + ["s[SP] = sp"]
    if name in ("PHA", "PHP"):
        value = "a" if name == "PHA" else "_status(s, nz, c) & 0xFF"
        return ["sp = s[SP]", "addr = 0x100 + sp", f"wval = {value}", "s[SP] = (sp - 1) & 0xFF"]
    if name == "BRK":
        return ["sp = s[SP]", "dummy, cyc = _byte(s, rom, fb, flat, pc, draw, cyc, bus)", "pc = (pc + 1) & 0xFFFF",
                "s[FB] = 1", "cyc = _push(s, rom, fb, 0x100 + sp, pc >> 8, draw, cyc, 1)", "sp = (sp - 1) & 0xFF",
                "cyc = _push(s, rom, fb, 0x100 + sp, pc & 0xFF, draw, cyc, 0)", "sp = (sp - 1) & 0xFF",
                "pv = _status(s, nz, c) & 0xFF", "cyc = _push(s, rom, fb, 0x100 + sp, pv, draw, cyc, 0)",
                "s[SP] = (sp - 1) & 0xFF", "s[FI] = 1", "s[CYC] = cyc", "s[DBUS] = pv",
                "lo = _rd_call(s, rom, fb, 0xFFFE, draw)", "hi = _rd_call(s, rom, fb, 0xFFFF, draw)",
                "pc = lo | (hi << 8)", "cyc = s[CYC]", "bus = hi"]
    raise ValueError(f"no code for {name}")


def _case(op: int) -> list[str]:
    name = oc.OPS[oc.OPERATION[op]]
    mode = int(oc.MODE[op])
    acc = int(oc.ACCESS[op])
    reads = acc in (oc.ACC_R, oc.ACC_RMW) and mode not in (oc.IMP, oc.IMM, oc.REL)
    body = [f"cyc += {int(oc.CYCLES[op])}"]
    if name != "JSR":  # JSR fetches its address bytes around its stack accesses
        body += _address(mode, reads, acc == oc.ACC_R)
    body += _operation(name, op, mode)
    if acc in (oc.ACC_W, oc.ACC_RMW):
        body += _write(mode)
    elif name in ("PHA", "PHP"):
        body += _write(oc.ABS)
    if name in ("JSR", "BRK", "JAM"):  # a stack write into the TIA can end the frame, a JAM the CPU
        body.append("wr = 2")
    return body


# The loop's variants (``VARIANTS``): the hook each runs before fetching an instruction. ``key`` is the ROM
# image offset the instruction is fetched from (``blocks.py``), or -1.
# image offset the instruction at ``pc`` would be fetched from: straight from the image (2K, 4K, FE), its 4K
# bank (F8, F6, F4, their Superchip forms, DPC) or the 1K slice mapped at its segment (E0; ``C_BASE + k`` is
# segment k's slice base); -1 outside the cartridge (no block starts where the loop would not fetch from the
# image: ``blocks.hot_blocks``).
_KEY = [
    "        key = -1",
    "        if pc & 0x1000:",
    "            if flat >= 0:",
    "                key = pc & flat",
    "            elif flat == WINDOW:",
    "                key = s[C_BASE] + (pc & 0xFFF)",
    "            else:",
    "                key = s[C_BASE + ((pc >> 10) & 3)] + (pc & 0x3FF)",
]
_SAVE = ["s[A] = a", "s[X] = x", "s[Y] = y", "s[PC] = pc", "s[FC] = c", "s[FNZ] = nz", "s[CYC] = cyc",
         "s[DBUS] = bus", "s[IR] = op"]
_LOAD = ["a = s[A]", "x = s[X]", "y = s[Y]", "pc = s[PC]", "c = s[FC]", "nz = s[FNZ]", "cyc = s[CYC]",
         "bus = s[DBUS]", "op = s[IR]"]
_HOOKS = {
    "execute": ([], []),
    # runs the ROM's compiled blocks (``FN_BLOCKS``) where one starts and the budget holds it all
    "execute_blocks": (["    table = ptr_i64(s[BLOCK_TABLE])"], _KEY + [
        "        if key >= 0:",
        "            n = table[key]",
        "            if n > 0 and left >= n:"] + ["                " + b for b in _SAVE] + [
        "                r = call_kernel(s[FN_BLOCKS], ptr_i64(s.ctypes.data), s.shape[0], ptr_u8(rom.ctypes.data),",
        "                                rom.shape[0], ptr_u8(fb.ctypes.data), fb.shape[1],",
        "                                (1 if draw else 0) | (left << 1))",
        ] + ["                " + b for b in _LOAD] + [
        "                left = -r - 1 if r < 0 else r",
        "                if r < 0 or left <= 0:",
        "                    break",
        "                continue"]),
    # counts, per ROM image offset, the instructions run and the arrivals by a branch, jump, call or return
    "execute_counting": (["    counts = ptr_i64(s[BLOCK_COUNTS])",
                          "    arrived = 1"], _KEY + [
        "        if key >= 0:",
        "            counts[key] += 1",
        "            if arrived:",
        "                counts[s[BLOCK_TABLE_N] + key] += 1"]),
}
# after each instruction's case, where the variant needs it
_AFTER = {"execute_counting": ["        arrived = CONTROL_FLOW[op]"]}
CONTROL_FLOW_NAMES = frozenset({oc.OPS[oc.OPERATION[op]] for op in range(256) if oc.MODE[op] == oc.REL}
                               | {"JMP", "JSR", "RTS", "RTI"})
VARIANTS = tuple(_HOOKS)


def loop_case(op: int) -> list[str]:
    """``_case`` as the loop runs it: the uncommon opcodes read through the out-of-line helpers (``INLINED``)."""
    body = _case(op)
    if op not in INLINED:
        body = [b.replace("_byte(", "_byte_cold(").replace("_any(", "_any_cold(") for b in body]
    return body


def source() -> str:
    lines = [
        '"""The 6502 interpreter loop — GENERATED by ``python -m arcade_lab.engine.cpu_gen`` from ``opcodes.py``; edit',
        'that module, not this file (``cpu_gen.py`` says why the loop is generated, ``cpu.py`` how it accesses',
        'the bus)."""',
        "from __future__ import annotations",
        "",
        "import numpy as np",
        "",
        "from ._jit import call_kernel, jit, ptr_i64, ptr_u8",
        "from .bus import S_FLAT64K",
        "from .cpu import (_SELF_FETCHED, ENDS_WITH_READ, _adc_bcd, _after_timer_wait, _after_timer_wait_below, _any,",
        "                  _any_cold, _arr, _byte, _byte_cold, _flat_mask, _instruction, _push, _rd_call, _sbc_bcd,",
        "                  _signed, _status, _wr, _zp, WINDOW)",
        "from .layout import (A, BLOCK_COUNTS, BLOCK_TABLE, BLOCK_TABLE_N, C_BASE, C_SCHEME, CYC,",
        "                     DBUS, EX_FATAL, EXEC, FB, FC, FD, FI, FN, FN_BLOCKS, FNZ, FV, INSTR, IR, JAMMED,",
        "                     LAST_READ, PC, QV_OK, RAM0, SP, X, Y)",
        "from .tia import frame_constants",
        "",
        "# 1 for the opcodes that move the program counter elsewhere (execute_counting's arrivals)",
        "CONTROL_FLOW = np.array([" + ", ".join("1" if oc.OPS[oc.OPERATION[op]] in CONTROL_FLOW_NAMES else "0"
                                            for op in range(256)) + "], dtype=np.int64)",
    ]
    for variant in VARIANTS:
        lines += ["", ""] + _function(variant)
    return "\n".join(lines) + "\n"


_DOCS = {
    "execute_blocks": ["    Runs the ROM's compiled blocks where one starts (``blocks.py``): ``execute`` with that one",
                       "    hook."],
    "execute_counting": ["    Counts where instructions run, for choosing a ROM's blocks (``blocks.py``): ``execute`` with",
                         "    that one hook."],
}


def _function(variant: str) -> list[str]:
    prologue, hook = _HOOKS[variant]
    lines = [
        "@jit(lean=True)",
        f"def {variant}(s, rom, fb, number, draw):",
        '    """Run up to ``number`` instructions, stopping early when the TIA ends the frame (EX_STOP) or a',
        "    JAM halts the CPU for good (EX_FATAL). ``draw`` false skips pixel writes (collisions still count).",
        "",
        "    Only A, X, Y, PC, C, N/Z, the data bus and the cycle counter live in locals from one instruction to",
        "    the next: SP, V, D, I and B stay in the state array. ``nz`` holds N and Z together: Z is clear when",
        "    ``nz & 0xFF``, N is set when ``nz & 0x180`` (BIT and PLP set them apart).",
    ] + ([""] + _DOCS[variant] if variant in _DOCS else []) + [
        '    """',
        "    s[EXEC] &= EX_FATAL",
        "    s[QV_OK] = 0  # tia.quiet's verdicts are this call's own: a restore may have come before it",
        "    frame_constants(s)  # the write path's frame-start arithmetic, once per call",
        "    if s[EXEC] != 0 or number <= 0:",
        "        return 0",
        "    a = s[A]",
        "    x = s[X]",
        "    y = s[Y]",
        "    pc = s[PC]",
        "    c = s[FC]",
        "    nz = (1 if s[FNZ] else 0) | (0x100 if s[FN] else 0)",
        "    cyc = s[CYC]",
        "    bus = s[DBUS]",
        "    left = number",
        "    flat = _flat_mask(s, rom)",
        "    op = 0",
        "    w = 0",
    ] + prologue + [
        "    while True:",
    ] + hook + [
        "        op, w, cyc = _instruction(s, rom, fb, flat, pc, draw, cyc, bus)",
        "        pc = (pc + 1) & 0xFFFF",
        "        bus = op",
        "        wr = 0",
    ]
    for k, op in enumerate(ORDER):
        name = oc.OPS[oc.OPERATION[op]]
        lines.append(f"        {'if' if k == 0 else 'elif'} op == 0x{op:02X}:  # {name} {oc.MODE_NAMES[oc.MODE[op]]}")
        lines += ["            " + b for b in loop_case(op)]
    lines += _AFTER.get(variant, []) + [
        "        if wr:  # a write RIOT RAM did not take (1: the one site that inlines the device path), or a",
        "            if wr == 1:  # case that may have stopped the CPU (2): only then can EXEC have changed",
        "                cyc = _wr(s, rom, fb, addr, wval, draw, cyc, 1)",
        "            if s[EXEC] != 0:",
        "                left -= 1",
        "                break",
        "        left -= 1",
        "        if left <= 0:",
        "            break",
        "    s[CYC] = cyc",
        "    s[DBUS] = bus",
        "    s[LAST_READ] = ENDS_WITH_READ[np.uint8(op)]",
        "    s[IR] = op",
        "    s[A] = a",
        "    s[X] = x",
        "    s[Y] = y",
        "    s[PC] = pc",
        "    s[FN] = 1 if nz & 0x180 else 0",
        "    s[FNZ] = 1 if nz & 0xFF else 0",
        "    s[FC] = c",
        "    s[INSTR] += number - left",
        "    return number - left",
    ]
    return lines


def main(argv: list[str]) -> int:
    text = source()
    if argv[:1] == ["--check"]:
        same = TARGET.exists() and TARGET.read_text() == text
        print("cpu_exec.py is current" if same else "cpu_exec.py is stale: run python -m arcade_lab.engine.cpu_gen")
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
