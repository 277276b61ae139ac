"""Compiled hot blocks: a ROM's most executed straight-line stretches of 6502 code as one compiled function.

ROM is immutable, so an instruction fetched from it is known when the code is generated: its opcode, its
operands, and for a fixed address what lives there (RIOT RAM, a TIA or RIOT register, a ROM byte). A block
runs each instruction as the interpreter's case does (``cpu_gen``'s operations, the same cycle counts, bus
values and stop checks), without the fetch and the dispatch, with its addressing decoded: a RAM access is
one load or store, a ROM read a constant, a ROM table read through abs,X or a RAM pointer one load. A write
to a fixed TIA register runs ``cpu._wr`` specialised for that register (its ways of storing without
drawing, in ``_wr``'s order, else the device path), other device writes ``_wr`` itself behind a C call.
Blocks chain: at the end of one, the block at the new program counter runs, until none is there, the frame
stops, or the instruction budget would run out.

Blocks are keyed by ROM image offset (the loop's ``_instruction``): ``pc & mask`` on a cartridge read
straight from its image (2K, 4K, FE), the bank's base plus ``pc & 0xFFF`` in a 4K-bank window (F8, F6, F4,
their Superchip forms, DPC), where a block stops after any access that may switch the bank, and on E0 the
base of the 1K slice mapped at the program counter's segment plus ``pc & 0x3FF`` (a block stays in one
slice and stops once a switch has remapped its segment). Which stretches are hot comes from a counting run of
the interpreter (``count``); the module is generated and compiled once per ROM and cached (``prepare``),
and a console uses it where it is cached (``install``; ``docs/engine.md``, "Compiled hot blocks").
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np

from . import cpu_gen
from . import opcodes as oc
from ._jit import _file_digest, cache_root, source_stamp
from .layout import (BLOCK_COUNTS, BLOCK_TABLE, BLOCK_TABLE_N, C_FAST_HI, C_FAST_LO, FN_BLOCK_STORED,
                     C_SCHEME, FN_BLOCK_WRITE, FN_BLOCKS, FN_EXECUTE)
from .carts import S_E0
from .cpu import _REQ_DRAW, _REQ_WRITE, WINDOW, _flat_mask
from .block_ops import BLANK_STORE_WAY, GRP_UNSEEN_WAY, QUIET_STORE_WAY
from .tia import BLANK_STORE, QUIET_STORE, UNSEEN
from .tia_regs import WSYNC

_HERE = Path(__file__).resolve().parent
CONTROL = frozenset({oc.OPS[oc.OPERATION[op]] for op in range(256) if oc.MODE[op] == oc.REL}
                    | {"JMP", "JSR", "RTS", "RTI"})
LEFT_OUT = frozenset({"BRK", "JAM"})  # left to the interpreter
MAX_BLOCK = 24  # a longer straight stretch is cut, and the rest starts a block of its own

# The key of the program counter ``pc`` (a template indented by ``{i}``): the ROM image offset the loop
# fetches from, or -1.
KEY_FLAT = """{i}key = pc & flat if pc & 0x1000 else -1
"""
KEY_WINDOW = """{i}key = s[C_BASE] + (pc & 0xFFF) if pc & 0x1000 else -1
"""
KEY_SLICES = """{i}key = s[C_BASE + ((pc >> 10) & 3)] + (pc & 0x3FF) if pc & 0x1000 else -1
"""
# Where the code of the block entered at ``start`` comes from, on the bank-switching schemes: a block stops
# after an access that may switch banks once this has changed (the rest came from the bank at entry).
BANK_WINDOW = "s[C_BASE]"
BANK_SLICES = "s[C_BASE + ((start >> 10) & 3)]"  # E0: the slice mapped at the block's segment
SAVE = "s[A] = a; s[X] = x; s[Y] = y; s[PC] = pc; s[FC] = c; s[FNZ] = nz; s[CYC] = cyc; s[DBUS] = bus; s[IR] = op"
LOAD = "a = s[A]; x = s[X]; y = s[Y]; pc = s[PC]; c = s[FC]; nz = s[FNZ]; cyc = s[CYC]; bus = s[DBUS]"


def name(op: int) -> str:
    return oc.OPS[oc.OPERATION[op]]


def size(op: int) -> int:
    return oc.MODE_BYTES[oc.MODE[op]]


def hot_blocks(rom: np.ndarray, count: np.ndarray, arrive: np.ndarray, budget: int, fetchable):
    """The hottest blocks up to ``budget`` instructions: ({ROM offset: [(offset, opcode), ...]}, the share of
    the counted instructions they hold). ``count``/``arrive``: per ROM offset, the instructions executed and
    the arrivals there by a branch, jump, call or return; ``fetchable(offset, start)``: the loop fetches
    the instruction there straight from the image, in the same bank or slice as the block's first."""
    starts = {int(i) for i in np.nonzero(arrive)[0]}
    found, work = [], sorted(starts)
    while work:
        start = work.pop()
        off, body = start, []
        while len(body) < MAX_BLOCK and fetchable(off, start):
            op = int(rom[off])
            if name(op) in LEFT_OUT:
                break
            body.append((off, op))
            off += size(op)
            if name(op) in CONTROL or off in starts:
                break
        else:  # cut for length: what follows starts a block of its own, chained on
            if len(body) == MAX_BLOCK and count[off] and off not in starts:
                starts.add(off)
                work.append(off)
        if body:
            found.append((sum(int(count[o]) for o, _ in body), start, body))
    found.sort(reverse=True)
    chosen, used, covered = {}, 0, 0
    for heat, start, body in found:
        if used + len(body) > budget:
            continue
        chosen[start], used, covered = body, used + len(body), covered + heat
    return chosen, covered / max(1, int(count.sum()))


def may_switch_banks(op: int) -> bool:
    """Whether the instruction's data access can reach the cartridge's space (a bank-switch hotspot): an
    absolute address, indexed or not, or an indirect one (zero page and stack accesses never do)."""
    mode = int(oc.MODE[op])
    if name(op) in CONTROL or (oc.ACCESS[op] == oc.ACC_NONE and mode != oc.IND):
        return False
    return mode in (oc.ABS, oc.ABX, oc.ABY, oc.IND, oc.IZX, oc.IZY)


def _operand(rom: np.ndarray, off: int, op: int) -> int:
    return sum(int(rom[off + j]) << (8 * (j - 1)) for j in range(1, size(op)))


def _read(op: int) -> str:
    return "_any" if op in cpu_gen.INLINED else "_any_cold"


def _fixed(rom: np.ndarray, op: int, w: int, rom_index) -> list[str] | None:
    """An instruction (not a jump) whose addressing the generator can decode, or None: zero page and
    absolute (the address fixed: RIOT RAM, ROM, a device), absolute indexed (a read from a ROM table that
    lies in ROM whatever the index), (zp),Y (the pointer in RIOT RAM). ``rom_index(addr)``: the index in
    ``rom`` of the byte a read at ``addr`` returns when that is immutable ROM, else None."""
    mode, acc, op_name = int(oc.MODE[op]), int(oc.ACCESS[op]), name(op)
    if mode not in (oc.ZP, oc.ABS, oc.ABX, oc.ABY, oc.IZY) or op_name in CONTROL:
        return None
    reads = acc in (oc.ACC_R, oc.ACC_RMW)
    out = [f"cyc += {int(oc.CYCLES[op])}"]
    if mode in (oc.ZP, oc.ABS):
        addr = w & 0xFF if mode == oc.ZP else w
        out += [f"addr = {addr}", f"#bus {w & 0xFF if mode == oc.ZP else w >> 8}"]
        ram = addr & 0x80 if mode == oc.ZP else (addr & 0x1280) == 0x80
        if reads:
            at = rom_index(addr) if mode == oc.ABS and addr & 0x1000 else None
            if ram:
                out.append(f"val = s[RAM0 + {addr & 0x7F}]")
            elif at is not None:
                out.append(f"val = {int(rom[at])}")
            elif addr & 0x1000:
                out.append(f"val, cyc = {_read(op)}(s, rom, fb, flat, addr, draw, cyc, bus)")
            else:
                out.append("val, cyc = _far(s, rom, fb, addr, draw, cyc, bus)")
            out.append("#bus val")
        out += cpu_gen._operation(op_name, op, mode)
        if acc in (oc.ACC_W, oc.ACC_RMW):
            out += [f"s[RAM0 + {addr & 0x7F}] = wval" if ram else "wr = 1", "#bus wval"]
        return out
    if mode == oc.IZY:
        p = w & 0xFF
        out.append(f"#bus {p}")
        if p & 0x80 and p != 0xFF and acc == oc.ACC_R:
            return out + [f"val, cyc = pointer_read(s, rom, fb, flat, {p}, y, draw, cyc)", "#bus val"] + \
                cpu_gen._operation(op_name, op, mode)
        if p & 0x80 and p != 0xFF:
            out += [f"lo = s[RAM0 + {p & 0x7F}]", f"hi = s[RAM0 + {(p + 1) & 0x7F}]"]
        else:
            out += [f"lo, cyc = _zp(s, rom, fb, {p}, draw, cyc, bus)",
                    f"hi, cyc = _zp(s, rom, fb, {p + 1}, draw, cyc, lo)"]
        out += ["#bus hi", "base = lo | (hi << 8)", "addr = (base + y) & 0xFFFF"]
        table = None
    else:
        index = "x" if mode == oc.ABX else "y"
        out += [f"#bus {w >> 8}", f"base = {w}", f"addr = (base + {index}) & 0xFFFF"]
        first, last = (rom_index(w), rom_index(w + 0xFF)) if w & 0x1000 and w + 0xFF <= 0xFFFF else (None, None)
        table = f"np.int64(rom[{first} + {index}])" if first is not None and last == first + 0xFF else None
    if acc == oc.ACC_R:
        out += ["if (base ^ addr) & 0xFF00:", "    cyc += 1"]
    if reads:
        out += [f"val = {table}" if table else f"val, cyc = {_read(op)}(s, rom, fb, flat, addr, draw, cyc, bus)",
                "#bus val"]
    out += cpu_gen._operation(op_name, op, mode)
    if acc in (oc.ACC_W, oc.ACC_RMW):
        out += [b.replace("bus = wval", "#bus wval") for b in cpu_gen._write(mode)]
    return out


def _stored(r: int, way: int) -> str:
    request = f"{r | way << 6} | (wval << 8) | (cyc << 16)"  # (block_ops._stored_c)
    return f"call_state_kernel(STORED_FN, ptr_i64(s.ctypes.data), s.shape[0], {request}) != 0"


_WITHIN = "clock < s[X_LIMIT] and s[AUD_ON] == 0"  # tia.within_line_limit, and no sound being logged


def tia_write(r: int) -> list[str]:
    """A write of ``wval`` to TIA register ``r`` (0-0x3F): ``cpu._wr`` decoded for that register. Its ways of
    storing without the device path are tried in ``_wr``'s order, each under the condition ``_wr`` takes it
    on; where none holds, ``_wr`` itself runs (``WRITE``)."""
    u = int(UNSEEN[r])
    if u == 4:  # HMM0: whether it starts Cosmic Ark's starfield is _wr's to judge
        return WRITE
    deferred = [f"deferred(s, cyc, clock, {r}, wval)"]
    ways = []
    if u == 1:
        ways.append((_WITHIN, deferred + (["cyc = cpu_wsync_cycle(s, cyc)"] if r == WSYNC
                                          else [f"store_unseen(s, {r}, wval)"])))
    elif u == 2:
        ways.append((f"not draw and {_WITHIN}", deferred + [f"store_unseen(s, {r}, wval)"]))
    elif u == 5:
        ways.append((f"{_WITHIN} and unchanged(s, {r}, wval)", deferred))
    elif u == 3:  # (GRPx: stored by grp_unseen)
        ways.append((f"{_WITHIN} and (unchanged(s, {r}, wval) or (not draw and {_stored(r, GRP_UNSEEN_WAY)}))",
                     deferred))
    if QUIET_STORE[r] and u in (0, 5):
        ways.append((f"not draw and {_WITHIN} and {_stored(r, QUIET_STORE_WAY)}",
                     ["s[LAST_READ] = 1", "s[DBUS] = wval"]))
    if BLANK_STORE[r]:
        ways.append((f"draw and {_stored(r, BLANK_STORE_WAY)}",
                     ["s[CYC] = cyc", "s[LAST_READ] = 1", "s[DBUS] = wval"]))
    if not ways:
        return DEVICE_WRITE
    out = ["clock = cyc * 3"]
    for k, (condition, body) in enumerate(ways):
        out += [f"{'if' if k == 0 else 'elif'} {condition}:"] + ["    " + b for b in body]
    # where none of them holds _wr takes the device path, as here (DEVICE_WRITE: its C entry for the frame)
    return out + ["else:"] + ["    " + b for b in DEVICE_WRITE]


def _generic(op: int, w: int, delta: int) -> list[str]:
    """The interpreter's own case, its operand word a constant."""
    return [f"w = {w}", f"pc = (start + {delta + 1}) & 0xFFFF", f"bus = {op}"] + cpu_gen.loop_case(op)


# The write path (cpu._wr behind block_ops._write_c), then the interpreter's stop check. ``#exit`` and
# ``#continue`` leave the block (_Emitter), ``#bus`` sets the data bus.
WRITE_CALL = ["s[CYC] = cyc",
              "cyc = call_device(WRITE_FN, ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],",
              "                  ptr_u8(fb.ctypes.data), addr | (wval << 16) | drawn)"]
WRITE = WRITE_CALL + ["if s[EXEC] != 0:", "    #exit"]
DEVICE_WRITE = ["s[CYC] = cyc", "s[LAST_READ] = 1",
                "call_device(DEVICE_FN, ptr_i64(s.ctypes.data), ptr_u8(rom.ctypes.data), rom.shape[0],",
                "            ptr_u8(fb.ctypes.data), addr | device_bits | (wval << 24))",
                "cyc = s[CYC]", "if s[EXEC] != 0:", "    #exit"]
APPLY_EXIT = ["if ex:", "    if ex & 0xFFFF:", "        pc = (start + (ex & 0xFFFF) - 1) & 0xFFFF",
              "    op = (ex >> 16) & 0xFF", "    left -= ex >> 24", "    ex = 0"]
_ASSIGNED = re.compile(r"^\s*([\w, ]+?) (?:[-+|&^]?=) ")


class _Emitter:
    """Lines of a block, with the program counter, the opcode, the budget and the data bus written only
    where something reads them (a call, an exit from the block): at most of the block's instructions they
    are dead, and the generated function compiles in time proportional to its statements."""

    def __init__(self):
        self.lines: list[str] = []
        self.pc = self.op = self.bus = None  # pc: its offset from the block's start
        self.left = 0

    def _pending(self) -> list[str]:
        out = [f"pc = (start + {self.pc}) & 0xFFFF"] if self.pc is not None else []
        out += [f"op = {self.op}"] if self.op is not None else []
        out += [f"left -= {self.left}"] if self.left else []
        return out + ([f"bus = {self.bus}"] if self.bus is not None else [])

    def flush(self) -> None:
        self.lines += self._pending()
        self.pc = self.op = self.bus = None
        self.left = 0

    def add(self, lines: list[str]) -> None:
        for line in lines:
            body = line.lstrip()
            pad = line[:len(line) - len(body)]
            if body.startswith("#bus "):
                self.bus = body[5:]
            elif body in ("#exit", "#continue"):  # the state to leave with, packed in ``ex`` (APPLY_EXIT)
                delta = 0 if self.pc is None else self.pc + 1
                self.lines.append(f"{pad}ex = {delta | self.op << 16 | self.left << 24}")
                self.lines += [f"{pad}bus = {self.bus}"] if self.bus is not None else []
                self.lines += [pad + "stop = 1", pad + "break"] if body == "#exit" else [pad + "continue"]
            else:
                assigned = _ASSIGNED.match(line)
                names = {n.strip() for n in assigned.group(1).split(",")} if assigned else set()
                if self.bus is not None and (re.search(r"\bbus\b", body) or self.bus in names):
                    self.lines.append(f"{pad}bus = {self.bus}")
                    if not pad:  # (inside a branch it stays pending for the other way)
                        self.bus = None
                self.lines.append(line)


def block_lines(rom: np.ndarray, body, rom_index, bank: str | None) -> list[str]:
    """A block's code: each instruction, then (where it may have) its write through the write path, and on a
    bank-switched cartridge, after an access that may have switched the bank, a check that it did not."""
    e = _Emitter()
    start = body[0][0]
    for k, (off, op) in enumerate(body):
        w = _operand(rom, off, op)
        fixed = _fixed(rom, op, w, rom_index)
        case = fixed if fixed is not None else _generic(op, w, off - start)
        if fixed is None:  # the interpreter's case reads and sets them itself
            e.flush()
            e.lines += case
        else:
            e.add(case)
        e.pc = None if name(op) in CONTROL else off - start + size(op)
        e.op, e.left = op, e.left + 1
        if fixed is not None and "wr = 1" in case:  # a zero-page or absolute write decoded to reach a device
            addr = w & 0xFF if oc.MODE[op] == oc.ZP else w
            e.add(tia_write(addr & 0x3F) if (addr & 0x1080) == 0 else WRITE)
        elif any(b.strip().startswith("wr = ") for b in case):
            e.add(["if wr:", "    if wr == 1:"] + ["        " + b for b in WRITE_CALL] +
                  ["    if s[EXEC] != 0:", "        #exit"])
        if bank and k + 1 < len(body) and may_switch_banks(op):  # the rest came from the bank at entry
            e.add([f"if {bank} != bank:", "    #continue"])
    e.flush()
    return e.lines


def blocks_source(rom: np.ndarray, blocks: dict, rom_index, key: str, bank: str | None) -> tuple[list[str], np.ndarray]:
    """``run_blocks(s, rom, fb, flag)`` (``flag`` = draw | budget << 1) as lines of code: runs chained blocks
    from ``s[PC]`` and returns the budget left, or -(left + 1) when a write stopped the CPU. And the block
    table it finds them by (through ``s[BLOCK_TABLE]``): per ROM image offset, the block's length or 0.
    ``rom_index(addr, start)``: the index in ``rom`` of the byte a read at ``addr`` returns in the block at
    ROM offset ``start`` when that is immutable ROM, else None."""
    table = np.zeros(rom.shape[0], np.int64)
    key = key.format(i=" " * 8).rstrip("\n")
    src = [
        "def run_blocks(s, rom, fb, flag):",
        "    draw = (flag & 1) != 0", "    drawn = (1 << 24) if draw else 0", "    left = flag >> 1",
        "    flat = _flat_mask(s, rom)", "    table = ptr_i64(s[BLOCK_TABLE])",
        "    WRITE_FN = s[FN_BLOCK_WRITE]", "    STORED_FN = s[FN_BLOCK_STORED]",
        "    DEVICE_FN = s[FN_DEVICE] if draw else s[FN_TIA_UNDRAWN]  # cpu._wr's device path for the frame",
        f"    device_bits = {_REQ_DRAW | _REQ_WRITE} if draw else 0",
        "    " + LOAD, "    addr = 0", "    wval = 0", "    val = 0", "    w = 0",
        "    op = s[IR]", "    stop = 0", "    ex = 0", "    start = pc", "    bank = 0", "    while True:",
        "        wr = 0"] + ["        " + b for b in APPLY_EXIT] + [key,
        "        n = table[key] if key >= 0 else 0",
        "        if n == 0 or left < n:", "            break",
        "        start = pc", f"        bank = {bank or 's[C_BASE]'}"]
    for i, start in enumerate(sorted(blocks)):
        table[start] = len(blocks[start])
        lines = block_lines(rom, blocks[start], lambda addr, at=start: rom_index(addr, at), bank)
        src.append(f"        {'if' if i == 0 else 'elif'} key == {start}:")
        src += ["            " + b for b in lines]
    src += ["    " + b for b in APPLY_EXIT] + ["    " + SAVE, "    return -(left + 1) if stop else left"]
    return src, table


IMPORTS = [
    "from numba import carray",
    "from arcade_lab.engine._jit import KERNEL_SIG, call_device, call_state_kernel, jit, ptr_i64, ptr_u8",
    "from arcade_lab.engine.cpu import (_SELF_FETCHED, _adc_bcd, _after_timer_wait, _after_timer_wait_below,",
    "    _any, _any_cold, _arr, _byte, _byte_cold, _far, _flat_mask, _push, _rd_call, _sbc_bcd, _signed, _status,",
    "    _wr, _zp)",
    "from arcade_lab.engine.bus import S_FLAT64K",
    "from arcade_lab.engine.layout import (A, C_BASE, C_FAST_HI, C_FAST_LO, C_SCHEME, CYC, DBUS, EXEC, FB, FC, FD, FI,",
    "    FN, FNZ, FV, IR, JAMMED, LAST_READ, PC, RAM0, SP, X, Y, AUD_ON, BLOCK_TABLE, BLOCK_TABLE_N, DEFER_CLK,",
    "    FN_BLOCK_STORED, FN_BLOCK_WRITE, FN_DEVICE, FN_TIA_UNDRAWN, X_LIMIT)",
    "from arcade_lab.engine.block_ops import deferred, pointer_read",
    "from arcade_lab.engine.tia import (cpu_write_clock, cpu_wsync_cycle, grp_unseen, quiet_store, store_unseen,",
    "    stored_in_blank, unchanged)",
]

# -- in the engine: chosen from a counting run, compiled once per ROM (and set of engine sources), cached ------
# Instructions compiled per ROM: the first budget that holds FULL_SHARE of those the counting run executed
# (150 holds 90 % of Pong's, 24 % of Galaxian's; each costs ~10 s of compiling).
BUDGETS = (150, 300)
FULL_SHARE = 0.7
SELECTION_STEPS = 1500  # the counting run: seeded random minimal-set actions at frame skip 4
_LOADED: dict[str, tuple[int, np.ndarray]] = {}  # ROM MD5 -> (run_blocks' C address, its block table)


def enabled() -> bool:
    """Compiled blocks are used where cached unless ``ARCADE_LAB_BLOCKS=0`` (comparisons, debugging)."""
    return os.environ.get("ARCADE_LAB_BLOCKS", "1") != "0"


def folder() -> Path:
    """Where the generated modules and their compiled code live: one folder per version of what they are
    made from (this generator and ``cpu_gen``'s cases) and of what they compile with (``block_ops`` and all
    it imports: the CPU's helpers, the TIA, the layout). numba checks only the module's own file."""
    h = hashlib.sha1(source_stamp(_HERE / "block_ops.py").encode())
    for name in ("engine/blocks.py", "engine/cpu_gen.py"):
        h.update(_file_digest(name))
    return cache_root() / "blocks" / h.hexdigest()[:16]


def _paths(md5: str) -> tuple[Path, Path]:
    return folder() / f"blocks_{md5}.py", folder() / f"blocks_{md5}.npy"


def cached(md5: str) -> bool:
    return all(p.is_file() for p in _paths(md5))


def install(s: np.ndarray, md5: str) -> bool:
    """Point a console's state at its ROM's compiled blocks when they are cached (loading them once per
    process). Returns whether it did."""
    if not enabled():
        return False
    entry = _LOADED.get(md5)
    if entry is None:
        if not cached(md5):
            return False
        try:
            entry = _load(md5)
        except Exception:  # a damaged cache file: the interpreter runs everything, as without blocks
            return False
    address, table = entry
    from . import machine
    from .block_ops import _stored_c, _write_c

    s[FN_BLOCKS] = address
    s[BLOCK_TABLE] = table.ctypes.data
    s[BLOCK_TABLE_N] = table.shape[0]
    s[FN_BLOCK_WRITE] = _write_c.address
    s[FN_BLOCK_STORED] = _stored_c.address
    machine.install_kernels(s)
    return True


def _load(md5: str) -> tuple[int, np.ndarray]:
    source, table_path = _paths(md5)
    spec = importlib.util.spec_from_file_location(f"arcade_lab_blocks_{md5}", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache finds a function's module by name when it loads it
    spec.loader.exec_module(module)
    table = np.load(table_path)
    _LOADED[md5] = entry = (module.run_blocks_c.address, table)
    return entry


def count(game, steps: int = SELECTION_STEPS) -> tuple[object, np.ndarray, np.ndarray]:
    """Play ``game`` on the counting loop: (its environment, instructions run and arrivals per ROM offset)."""
    from . import blocks_background, machine
    from .env import Env

    blocks_background.compiling_here(game)  # its console must not start a compile of them
    e = Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
    s, rom = e.console.s, e.console.rom
    counts = np.zeros(2 * rom.shape[0], np.int64)
    s[BLOCK_COUNTS] = counts.ctypes.data
    s[BLOCK_TABLE_N] = rom.shape[0]
    s[FN_EXECUTE] = machine.execute_counting_c.address
    actions = e.action_set()
    for a in np.random.default_rng(0).integers(len(actions), size=steps):
        e.act(actions[a])
        if e.game_over():
            e.reset()
    machine.install_kernels(s)  # (the counters go out of scope with this call)
    s[BLOCK_COUNTS] = 0
    return e, counts[:rom.shape[0]].copy(), counts[rom.shape[0]:].copy()


def _layout(s: np.ndarray, rom: np.ndarray):
    """How the loop fetches ``rom``'s code, for the generator: (the key template, the bank expression or
    None, ``fetchable(offset, start)``, ``rom_index(addr, start)``); None where the loop has no key (a CPU
    test's flat RAM). ``fetchable`` as ``cpu._instruction`` takes all three bytes from the image, within the
    bank or slice of the block's first instruction; ``rom_index``: the image index of the byte a read at
    ``addr`` returns in the block entered at ROM offset ``start``, when that is immutable ROM, else None."""
    flat = int(_flat_mask(s, rom))
    lo, hi = int(s[C_FAST_LO]), int(s[C_FAST_HI])
    if flat >= 0:  # 2K, 4K, FE: the image by address bits
        return (KEY_FLAT, None, lambda off, start: off <= flat - 3,
                lambda addr, start: addr & flat if addr & 0x1000 else None)
    if flat == WINDOW:  # one 4K bank at a time
        def window(addr: int, start: int):
            return (start & ~0xFFF) + (addr & 0xFFF) if addr & 0x1000 and lo <= (addr & 0xFFF) < hi else None

        return (KEY_WINDOW, BANK_WINDOW, lambda off, start: lo <= (off & 0xFFF) and (off & 0xFFF) + 2 < hi,
                window)
    if s[C_SCHEME] != S_E0:
        return None
    # E0: four 1K segments, the first three each showing any of eight slices, the last always slice 7 (whose
    # top page holds the hotspots). A block stays in one slice; only reads from the last segment (below its
    # top page) are known when the code is generated, as the segment a slice runs from is not.
    last = 7 * 1024

    def fetchable(off: int, start: int) -> bool:
        end = off + 2
        return end >> 10 == start >> 10 and not (off >= last and (end & 0x3FF) >= 0x3C0)

    def fixed_slice(addr: int, start: int):
        return last + (addr & 0x3FF) if (addr & 0x1C00) == 0x1C00 and (addr & 0x3FF) < 0x3C0 else None

    return KEY_SLICES, BANK_SLICES, fetchable, fixed_slice


def generate(game, budgets: tuple[int, ...] = BUDGETS) -> tuple[str, np.ndarray, float] | None:
    """The blocks module for ``game``'s ROM: (its text, its block table, the share of the counted
    instructions the blocks hold); None where the loop keys no blocks."""
    e, counts, arrive = count(game)
    s, rom = e.console.s, e.console.rom
    layout = _layout(s, rom)
    if layout is None:
        return None
    key, bank, fetchable, rom_index = layout
    for budget in budgets:
        chosen, share = hot_blocks(rom, counts, arrive, budget, fetchable)
        if share >= FULL_SHARE:
            break
    body, table = blocks_source(rom, chosen, rom_index, key, bank)
    text = "\n".join([f'"""Compiled hot blocks of the ROM {e.console.info.md5} ({e.console.info.id}): GENERATED by',
                      'arcade_lab.engine.blocks, cached per ROM and set of engine sources."""',
                      "import numpy as np"] + IMPORTS + ["", "", "@jit(lean=True)"] + body + [
        "", "", "@cfunc(KERNEL_SIG, cache=True)", "def run_blocks_c(sp, ns, rp, nr, fp, nf, flag):",
        "    return run_blocks(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), flag)", ""])
    return text.replace("from numba import carray", "from numba import carray, cfunc"), table, share


def prepare(game, budgets: tuple[int, ...] = BUDGETS) -> str:
    """Choose, generate and compile ``game``'s blocks into the cache (nothing when they are there already).
    Returns what happened, for the command line: 'cached', 'compiled' or 'not applicable'."""
    from .console import _resolve

    md5 = _resolve(game)[0].md5
    if cached(md5):
        return "cached"
    made = generate(game, budgets)
    if made is None:
        return "not applicable"
    text, table, _share = made
    source, table_path = _paths(md5)
    source.parent.mkdir(parents=True, exist_ok=True)
    np.save(table_path.with_suffix(".tmp.npy"), table)
    tmp = source.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(source)
    table_path.with_suffix(".tmp.npy").replace(table_path)
    _load(md5)  # compiles now, into numba's cache beside the module
    return "compiled"
