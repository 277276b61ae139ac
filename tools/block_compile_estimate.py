"""What would compiling a ROM's hot basic blocks save? ``python tools/block_compile_estimate.py GAME [BUDGET]
[--call-writes]``

A measurement, not part of the engine. For a cartridge whose code the loop fetches straight from the ROM
image (2K, 4K, FE, and the 4K-bank schemes F8, F6, F4, their Superchip forms and DPC), it

1. steps the game (frame skip 4, seeded random minimal-set actions) on a copy of the interpreter loop that
   counts, per ROM image offset, the instructions executed and the arrivals by a branch, jump, call or
   return;
2. forms basic blocks from those arrival points (each runs to its first control-flow instruction, the next
   arrival point or 24 instructions, where the next block starts; BRK and the JAMs are left to the
   interpreter) and keeps the hottest until BUDGET instructions (default 150);
3. generates one function holding those blocks straight-line, each instruction the interpreter's own case
   (``cpu_gen._case``) with its opcode and operand bytes as constants, chained: after a block it looks up
   the block at the new program counter (and bank) and runs on, returning to the interpreter where there is
   none; on a bank-switched cartridge a block stops after any access that may have switched the bank;
4. generates a copy of the interpreter loop that, at a ROM address with a block, calls that function (one
   C call, the registers passing through the state array);
5. steps both engines over the same actions, compares RAM, screen and reward after every step, and times
   them in interleaved rounds (best of four).

It prints the blocks' share of the instructions executed, both compile times and the two speeds.
``--call-writes`` compiles the blocks with the write path called rather than inlined at each write. The
blocks are exact by construction (the same case bodies, the same instruction budget and stop checks); what
the engine would still need is everything around them: a cache per ROM MD5, compiling outside the first
start, E0 (read through the page map), and blocks whose fixed addresses are decoded when they are
generated (the write path inlined at every write is most of the compile time).
"""
from __future__ import annotations

import importlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import carray, cfunc

from arcade_lab.engine import cpu_gen
from arcade_lab.engine import opcodes as oc
from arcade_lab.engine._jit import KERNEL_SIG, ptr_i64
from arcade_lab.engine.env import Env
from arcade_lab.engine.cpu import NO_WINDOW, WINDOW, _flat_mask
from arcade_lab.engine.layout import C_FAST_HI, C_FAST_LO, FN_EXECUTE
from arcade_lab.engine.machine import INSTRUCTIONS_PER_FRAME

CONTROL = {oc.OPS[oc.OPERATION[op]] for op in range(256) if oc.MODE[op] == oc.REL} | {"JMP", "JSR", "RTS", "RTI"}
LEFT_OUT = {"BRK", "JAM"}
MAX_BLOCK = 24
# The ROM image offset the loop fetches ``pc`` from directly (``cpu._instruction``), or -1: a 2K/4K image at
# pc & mask, a 4K-bank scheme's window at bank base + (pc & 0xFFF). Blocks, counts and arrivals are keyed by it;
# the generated code tests only the cartridge's own case (a template indented by ``{i}``).
KEYS = {"flat": """{i}key = pc & flat if pc & 0x1000 else -1
""", "window": """{i}key = -1
{i}if pc & 0x1000 and s[C_FAST_LO] <= (pc & 0xFFF) and (pc & 0xFFF) + 2 < s[C_FAST_HI]:
{i}    key = s[C_BASE] + (pc & 0xFFF)
"""}
KEY_IMPORTS = "from arcade_lab.engine.layout import C_BASE, C_FAST_HI, C_FAST_LO\n"
SAVE = "s[A] = a; s[X] = x; s[Y] = y; s[PC] = pc; s[FC] = c; s[FNZ] = nz; s[CYC] = cyc; s[DBUS] = bus; s[IR] = op"
LOAD = "a = s[A]; x = s[X]; y = s[Y]; pc = s[PC]; c = s[FC]; nz = s[FNZ]; cyc = s[CYC]; bus = s[DBUS]"


def _name(op: int) -> str:
    return oc.OPS[oc.OPERATION[op]]


def _size(op: int) -> int:
    return oc.MODE_BYTES[oc.MODE[op]]


def _loop_source(**repl: str) -> str:
    """The interpreter loop's source as a module outside the package, uncached (its constants change)."""
    src = cpu_gen.source().replace("from ._jit", "from arcade_lab.engine._jit")
    src = src.replace("from .", "from arcade_lab.engine.")
    src = src.replace("@jit(lean=True)", "@jit(lean=True, cache=False)")
    for old, new in repl.items():
        assert old in src, old
        src = src.replace(old, new, 1)
    return src


_FETCH = "        op, w, cyc = _instruction("
_NUMPY = "import numpy as np\n"


def counting_loop(control: np.ndarray, key: str) -> str:
    np.save(WORK / "control.npy", control)
    return _loop_source(**{
        _NUMPY: _NUMPY + KEY_IMPORTS + f"CONTROL = np.load({str(WORK / 'control.npy')!r})\n",
        "def execute(s, rom, fb, number, draw):": "def execute(s, rom, fb, number, draw, count, arrive):",
        "    op = 0\n    w = 0\n": "    op = 0\n    w = 0\n    jumped = 1\n",
        _FETCH: key.format(i=" " * 8) + "        if key >= 0:\n            count[key] += 1\n            if jumped:\n"
                "                arrive[key] += 1\n" + _FETCH,
        "        if wr:  # a write": "        jumped = CONTROL[op]\n        if wr:  # a write",
    })


def hot_blocks(rom: np.ndarray, count: np.ndarray, arrive: np.ndarray, budget: int, fetchable):
    """{ROM offset: [(offset, opcode), ...]} hottest first up to ``budget`` instructions, and their share.
    ``fetchable(offset)``: the loop would fetch an instruction there straight from the image."""
    starts = {int(i) for i in np.nonzero(arrive)[0]}
    found, work = [], sorted(starts)
    while work:
        start = work.pop()
        off, body = start, []
        while len(body) < MAX_BLOCK and fetchable(off):
            op = int(rom[off])
            if _name(op) in LEFT_OUT:
                break
            body.append((off, op))
            off += _size(op)
            if _name(op) in CONTROL or off in starts:
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


def _may_switch_banks(op: int) -> bool:
    """Whether the instruction's data access can reach the cartridge's space (a bank-switch hotspot):
    an absolute address in it, an indexed absolute one or an indirect one (zero page, stack: never)."""
    mode = int(oc.MODE[op])
    if _name(op) in CONTROL or (oc.ACCESS[op] == oc.ACC_NONE and mode != oc.IND):
        return False
    return mode in (oc.ABS, oc.ABX, oc.ABY, oc.IND, oc.IZX, oc.IZY)


def _block_lines(rom: np.ndarray, body, write: str, banked: bool) -> list[str]:
    lines = []
    for k, (off, op) in enumerate(body):
        w = sum(int(rom[off + j]) << (8 * (j - 1)) for j in range(1, _size(op)))
        case = cpu_gen._case(op)
        if op not in cpu_gen.INLINED:
            case = [b.replace("_byte(", "_byte_cold(").replace("_any(", "_any_cold(") for b in case]
        lines += [f"op = 0x{op:02X}", f"w = {w}", f"pc = (start + {off - body[0][0] + 1}) & 0xFFFF", "bus = op",
                  "wr = 0"] + case
        if any("wr = " in b for b in case):  # the interpreter's stop check after a write that left the loop
            lines += ["if wr:", "    if wr == 1:", f"        cyc = {write}(s, rom, fb, addr, wval, draw, cyc, 1)",
                      "    if s[EXEC] != 0:", f"        left -= {k + 1}", "        " + SAVE,
                      "        return -(left + 1)"]
        if banked and k + 1 < len(body) and _may_switch_banks(op):  # the rest came from the bank at entry
            lines += ["if s[C_BASE] != bank:", f"    left -= {k + 1}", "    continue"]
    return lines + [f"left -= {len(body)}"]


def blocks_source(rom: np.ndarray, blocks: dict, key: str, call_writes: bool, banked: bool) -> str:
    """``run_blocks(s, rom, fb, flag)``: the chained blocks; ``flag`` = draw | budget << 1. Returns the
    budget left, or -(left + 1) when a write stopped the CPU. ``call_writes``: the write path is a call
    (``_wr_call``) instead of inlined at every write that can leave RIOT RAM."""
    lines = ["import numpy as np",
             "from arcade_lab.engine._jit import jit",
             "from arcade_lab.engine.bus import S_FLAT64K",
             "from arcade_lab.engine.cpu import (_SELF_FETCHED, _adc_bcd, _after_timer_wait,",
             "    _after_timer_wait_below, _any, _any_cold, _arr, _byte, _byte_cold, _flat_mask, _push, _rd_call,",
             "    _sbc_bcd, _signed, _status, _wr, _zp)",
             "from arcade_lab.engine.layout import (A, C_SCHEME, CYC, DBUS, EXEC, FB, FC, FD, FI, FN, FNZ, FV, IR,",
             "    JAMMED, LAST_READ, PC, RAM0, SP, X, Y)",
             KEY_IMPORTS.rstrip("\n"),
             f"BLOCK = np.load({str(WORK / 'block.npy')!r})",
             f"LENGTH = np.load({str(WORK / 'length.npy')!r})",
             "", "", "@jit(cache=False)", "def _wr_call(s, rom, fb, addr, value, draw, cyc, last_read):",
             "    return _wr(s, rom, fb, addr, value, draw, cyc, last_read)",
             "", "", "@jit(lean=True, cache=False)", "def run_blocks(s, rom, fb, flag):",
             "    draw = (flag & 1) != 0", "    left = flag >> 1", "    flat = _flat_mask(s, rom)",
             "    " + LOAD, "    addr = 0", "    wval = 0", "    op = s[IR]", "    while True:",
             key.format(i=" " * 8).rstrip("\n"),
             "        bid = BLOCK[key] if key >= 0 else -1",
             "        if bid < 0 or left < LENGTH[bid]:", "            break", "        start = pc",
             "        bank = s[C_BASE]"]
    write = "_wr_call" if call_writes else "_wr"
    for i, start in enumerate(sorted(blocks)):
        lines.append(f"        {'if' if i == 0 else 'elif'} bid == {i}:")
        lines += ["            " + b for b in _block_lines(rom, blocks[start], write, banked)]
    return "\n".join(lines + ["    " + SAVE, "    return left"]) + "\n"


def hooked_loop(blocks_address: int, key: str) -> str:
    """The interpreter loop calling the blocks at a ROM address that has one. (Looking only where control
    flow arrives misses blocks the loop runs into: Breakout 1.21-1.29x instead of 1.49x.)"""
    hook = (key.format(i=" " * 8) + "        if key >= 0:\n"
            "            bid = BLOCK[key]\n"
            "            if bid >= 0 and left >= LENGTH[bid]:\n"
            f"                {SAVE}\n"
            f"                r = call_kernel({blocks_address}, ptr_i64(s.ctypes.data), s.shape[0],\n"
            "                                ptr_u8(rom.ctypes.data), rom.shape[0], ptr_u8(fb.ctypes.data),\n"
            "                                fb.shape[1], (1 if draw else 0) | (left << 1))\n"
            f"                {LOAD}\n"
            "                op = s[IR]\n"
            "                left = -r - 1 if r < 0 else r\n"
            "                if r < 0 or left <= 0:\n"
            "                    break\n"
            "                continue\n")
    return _loop_source(**{
        _NUMPY: _NUMPY + KEY_IMPORTS + "from arcade_lab.engine._jit import call_kernel, ptr_u8\n"
                f"BLOCK = np.load({str(WORK / 'block.npy')!r})\nLENGTH = np.load({str(WORK / 'length.npy')!r})\n",
        "from arcade_lab.engine._jit import jit": "from arcade_lab.engine._jit import jit, ptr_i64",
        _FETCH: hook + _FETCH,
    })


def _module(name: str, source: str):
    (WORK / f"{name}.py").write_text(source)
    return importlib.import_module(name)


def main(argv: list[str]) -> int:
    call_writes = "--call-writes" in argv
    argv = [a for a in argv if a != "--call-writes"]
    game = argv[0] if argv else "pong"
    budget = int(argv[1]) if len(argv) > 1 else 150
    steps = 1500

    def env(kernel: int = 0) -> Env:
        e = Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
        if kernel:
            e.console.s[FN_EXECUTE] = kernel
        return e

    probe = env()
    rom, ps = probe.console.rom, probe.console.s
    flat = int(_flat_mask(ps, rom))
    if flat == NO_WINDOW:
        print(f"{game}: a cartridge read through the page map (E0); this estimate handles 2K, 4K, FE and the "
              "4K-bank schemes")
        return 1
    lo, hi = int(ps[C_FAST_LO]), int(ps[C_FAST_HI])
    key = KEYS["flat" if flat >= 0 else "window"]

    def fetchable(off: int) -> bool:  # as cpu._instruction: all three bytes from the image
        return off <= flat - 3 if flat >= 0 else lo <= (off & 0xFFF) and (off & 0xFFF) + 2 < hi
    actions = probe.action_set()
    plan = np.random.default_rng(0).integers(len(actions), size=2 * steps)

    def play(e: Env, n: int) -> None:
        for a in plan[:n]:
            e.act(actions[a])
            if e.game_over():
                e.reset()

    counted = rom.shape[0]
    count, arrive = np.zeros(counted, np.int64), np.zeros(counted, np.int64)
    counting = _module(f"count_{game}", counting_loop(
        np.array([1 if _name(op) in CONTROL else 0 for op in range(256)], np.int64), key)).execute
    c_count, c_arrive = count.ctypes.data, arrive.ctypes.data

    @cfunc(KERNEL_SIG)
    def counting_c(sp, ns, rp, nr, fp, nf, flag):
        return counting(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), INSTRUCTIONS_PER_FRAME,
                        flag != 0, carray(ptr_i64(c_count), (counted,)), carray(ptr_i64(c_arrive), (counted,)))

    play(env(counting_c.address), steps)
    blocks, share = hot_blocks(rom, count, arrive, budget, fetchable)
    table = np.full(rom.shape[0], -1, np.int64)
    length = np.zeros(max(1, len(blocks)), np.int64)
    for i, start in enumerate(sorted(blocks)):
        table[start], length[i] = i, len(blocks[start])
    np.save(WORK / "block.npy", table)
    np.save(WORK / "length.npy", length)
    print(f"{game}: {len(blocks)} blocks, {int(length.sum())} instructions, "
          f"{100 * share:.1f} % of the instructions executed")

    t = time.perf_counter()
    run_blocks = _module(f"blocks_{game}", blocks_source(rom, blocks, key, call_writes, flat == WINDOW)).run_blocks

    @cfunc(KERNEL_SIG)
    def blocks_c(sp, ns, rp, nr, fp, nf, flag):
        return run_blocks(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), flag)

    address = blocks_c.address
    print(f"blocks compiled in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    hooked = _module(f"hooked_{game}", hooked_loop(address, key)).execute

    @cfunc(KERNEL_SIG)
    def hooked_c(sp, ns, rp, nr, fp, nf, flag):
        return hooked(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), INSTRUCTIONS_PER_FRAME, flag != 0)

    print(f"interpreter with the hook compiled in {time.perf_counter() - t:.1f} s")
    plain, fast = env(), env(hooked_c.address)
    for i, a in enumerate(plan):
        if plain.act(actions[a]) != fast.act(actions[a]) or not np.array_equal(plain.ram(), fast.ram()) \
                or not np.array_equal(plain.screen(), fast.screen()):
            print(f"DIFFERENT at step {i}")
            return 1
        if plain.game_over():
            plain.reset()
            fast.reset()
    print(f"same RAM, screen and rewards for {len(plan)} steps")
    best = {"interpreter": 0.0, "blocks": 0.0}
    for _ in range(4):
        for name, e in (("interpreter", plain), ("blocks", fast)):
            t = time.perf_counter()
            play(e, steps)
            best[name] = max(best[name], 4 * steps / (time.perf_counter() - t))
    print(f"frames/s: interpreter {best['interpreter']:.0f}, with blocks {best['blocks']:.0f} "
          f"({best['blocks'] / best['interpreter']:.2f}x)")
    return 0


if __name__ == "__main__":
    WORK = Path(tempfile.mkdtemp(prefix="block-estimate-"))  # the generated modules, kept for reading
    sys.path.insert(0, str(WORK))
    print(f"generated sources in {WORK}")
    sys.exit(main(sys.argv[1:]))
