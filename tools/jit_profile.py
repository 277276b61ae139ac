"""Where the emulator's compiled time goes, per function: ``python tools/jit_profile.py GAME [SECONDS]``
(``JIT_PROFILE_UNDRAWN=1``: no frame drawn, the search workload; default: frame skip 4, last frame drawn;
``JIT_PROFILE_FRAMESKIP=1``: every frame drawn, the frame-skip-1 wrappers' workload).
``--code FUNCTION`` also writes FUNCTION's disassembly with each instruction's share of the samples
(``annotated.txt`` in the output folder) and prints its hottest 256-byte stretches: where inside the 6502
loop the time goes (``--code execute``), e.g. decode and dispatch against the operations.

Needs ``perf`` (software clock events are enough) and ``objdump``. The frame kernel, the loop, the device
callbacks and, where the ROM has compiled blocks, the blocks (``--code run_blocks``), the loop that runs them
and the C calls they make (``block_ops``) are machine-code objects (numba links every callee into them);
their cached object files still carry the symbols.
The child process steps the game with random actions; its kernel's load address and object file are
saved, ``perf`` samples it, and samples are attributed to the object's functions.
"""
from __future__ import annotations

import bisect
import collections
import glob
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time


def child(game: str, seconds: float, out: str) -> None:
    import numpy as np

    from arcade_lab.engine.env import Env

    e = Env(game, frameskip=int(os.environ.get("JIT_PROFILE_FRAMESKIP", "4")), repeat_action_probability=0.0, seed=0)
    acts = e.action_set()
    for _ in range(20):
        e.act(acts[0])
    c = e.console

    # the frame kernel, the loop, the device callbacks (bus decode + TIA; the undrawn-write one) and the
    # blocks are separate machine-code objects
    objects = _objects(c)
    for tag, nbc, address in objects:
        with open(nbc, "rb") as f:
            obj = pickle.load(f)[0][2][0]  # (name, "object", (object code, bitcode))
        with open(os.path.join(out, f"{tag}.o"), "wb") as f:
            f.write(obj)
        syms = _symbols(os.path.join(out, f"{tag}.o"))
        anchor = next(a for a, _, n in syms if n.startswith("cfunc."))
        with open(os.path.join(out, f"{tag}.base"), "w") as f:
            f.write(str(address - anchor))
    with open(os.path.join(out, "tags"), "w") as f:
        f.write(" ".join(tag for tag, _, _ in objects))
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    n = 0
    undrawn = os.environ.get("JIT_PROFILE_UNDRAWN") == "1"
    from arcade_lab.engine import ale_core
    from arcade_lab.engine.env import _DELTA_FULL
    while time.perf_counter() - t < seconds:
        for _ in range(100):
            a = int(acts[rng.integers(len(acts))])
            if undrawn:   # what a planner's search emulates: no frame drawn
                ale_core.act(c.s, c.rom, c.fb, e.rng, a, ale_core.PLAYER_B_NOOP, _DELTA_FULL, 0, 0)
            else:
                e.act(a)
            if e.game_over():
                e.reset()
        n += 100
    print(f"{game}: {n * e.frames_per_act / (time.perf_counter() - t):.0f} frames/s while sampled", flush=True)


# (tag, cached object file, compiled function) for each machine-code object samples are attributed to
_OBJECTS = (("kernel", "machine._run_frame_c-*.1.nbc", "machine._run_frame_c"),
            ("loop", "machine._execute_c-*.1.nbc", "machine._execute_c"),
            ("blocksloop", "machine.execute_blocks_c-*.1.nbc", "machine.execute_blocks_c"),
            ("stored", "block_ops._stored_c-*.1.nbc", "block_ops._stored_c"),
            ("write", "block_ops._write_c-*.1.nbc", "block_ops._write_c"),
            ("device", "cpu._device_c-*.1.nbc", "cpu._device_c"),
            ("undrawn", "cpu._tia_write_undrawn_c-*.1.nbc", "cpu._tia_write_undrawn_c"))
_BLOCKS_ONLY = ("blocksloop", "stored", "write")  # the loop that runs compiled blocks, and what they call


def _objects(console) -> list[tuple[str, str, int]]:
    """(tag, cached object file, load address) of each compiled object the console runs: the kernels above
    (those of the blocks only where its ROM has compiled blocks) and the ROM's blocks themselves."""
    from arcade_lab.engine import block_ops, blocks, cpu, machine
    from arcade_lab.engine._jit import cache_dir
    from arcade_lab.engine.layout import FN_BLOCKS

    with_blocks = console.s[FN_BLOCKS] != 0
    modules = {"machine": machine, "cpu": cpu, "block_ops": block_ops}
    found = []
    for tag, pattern, attr in _OBJECTS:
        if tag in _BLOCKS_ONLY and not with_blocks:
            continue
        module, name = attr.split(".")
        found.append((tag, _newest(str(cache_dir() / "engine" / pattern)), getattr(modules[module], name).address))
    if with_blocks:
        pattern = blocks.folder() / "__pycache__" / f"blocks_{console.info.md5}.run_blocks_c-*.1.nbc"
        found.append(("blocks", _newest(str(pattern)), int(console.s[FN_BLOCKS])))
    return found


def _newest(pattern: str) -> str:
    """The newest file matching: a function whose line moved leaves its older object files beside the
    current one."""
    return max(glob.glob(pattern), key=os.path.getmtime)


def _symbols(path: str) -> list[tuple[int, int, str]]:
    out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        p = line.split()
        if " F " in line and len(p) >= 6:
            syms.append((int(p[0], 16), int(p[-2], 16), p[-1]))
    return sorted(syms)


def _short(name: str) -> str:
    name = re.sub(r"B\d+v\d+.*", "", name.replace("cfunc.", "cfunc "))
    parts = re.findall(r"\d+([A-Za-z_]\w*?)(?=\d|$)", name.replace("_ZN", ""))
    return ".".join(parts) or name


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--child":
        child(argv[1], float(argv[2]), argv[3])
        return 0
    code = None
    if "--code" in argv:
        k = argv.index("--code")
        code, argv = argv[k + 1], argv[:k] + argv[k + 2:]
    game = argv[0] if argv else "breakout"
    seconds = float(argv[1]) if len(argv) > 1 else 10.0
    out = tempfile.mkdtemp(prefix="jit-profile-")
    data = os.path.join(out, "perf.data")
    # -D: skip start-up (imports, cache loading) so only steady-state stepping is sampled
    subprocess.run(["perf", "record", "-q", "-D", "4000", "-e", "cpu-clock", "-o", data, sys.executable,
                    __file__, "--child", game, str(seconds), out], check=True)
    ips = [int(x, 16) for x in subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                                              text=True).stdout.split()]
    objects = []
    tags = open(os.path.join(out, "tags")).read().split()  # the objects the child found, in its order
    for tag in tags:
        base = int(open(os.path.join(out, f"{tag}.base")).read())
        syms = _symbols(os.path.join(out, f"{tag}.o"))
        objects.append((base, syms, [a for a, _, _ in syms]))
    shares = collections.Counter()
    for ip in ips:
        for base, syms, starts in objects:
            o = ip - base
            i = bisect.bisect_right(starts, o) - 1
            if i >= 0 and o < syms[i][0] + syms[i][1]:
                shares[_short(syms[i][2])] += 1
                break
        else:
            shares["(outside the compiled kernels: Python, numpy, other kernels)"] += 1
    total = max(1, len(ips))
    for name, n in shares.most_common(15):
        print(f"{100 * n / total:5.1f}%  {name}")
    print(f"({total} samples; files in {out})")
    if code:
        _annotate(out, objects, tags, ips, code, total)
    return 0


def _annotate(out: str, objects, tags: list[str], ips: list[int], name: str, total: int) -> None:
    """Per-instruction shares inside the symbol whose short name ends with ``name`` and holds the most samples
    (a callee linked into several objects runs from the one that calls it)."""
    best = None
    for (base, syms, _), tag in zip(objects, tags):
        for lo, size, sym in syms:
            if _short(sym).endswith(name):
                n = sum(1 for ip in ips if lo <= ip - base < lo + size)
                if best is None or n > best[0]:
                    best = (n, base, tag, lo, size, sym)
    if best is None:
        print(f"no compiled function named {name!r} in {tags}")
        return
    _, base, tag, lo, size, sym = best
    counts = collections.Counter(ip - base for ip in ips if lo <= ip - base < lo + size)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={lo}",
                          f"--stop-address={lo + size}", os.path.join(out, f"{tag}.o")],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in dis.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if m:
            a = int(m.group(1), 16)
            rows.append(f"{100 * counts[a] / total:6.2f}  {a:8x}  {m.group(2)[:100]}")
    with open(os.path.join(out, "annotated.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")
    stretches = collections.Counter()
    for a, n in counts.items():
        stretches[a // 256] += n
    print(f"\n{_short(sym)}: {100 * sum(counts.values()) / total:.1f}% of samples; hottest 256-byte stretches "
          f"(offsets in annotated.txt; samples land just after the instruction that stalled):")
    for k, n in stretches.most_common(12):
        print(f"{100 * n / total:5.1f}%  {k * 256:8x}-{k * 256 + 255:x}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
