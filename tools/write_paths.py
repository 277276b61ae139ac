"""Which way each TIA write goes: ``python tools/write_paths.py GAME[,GAME...] [FRAMES]``.

The CPU's write path (``cpu._wr``) stores a TIA write itself where it can (``tia.UNSEEN``: stored inline,
``tia.quiet_store`` on undrawn frames, ``tia.stored_in_blank`` on drawn ones) and otherwise calls the device
path, which draws or checks collisions up to the write first. This tool copies ``engine`` to a temporary
package ``engine_paths`` with a counter per register and way added to ``_wr`` (the source is patched by
exact text: when ``_wr`` changes, the patch stops with the line it no longer finds), runs the interpreter
(``ARCADE_LAB_BLOCKS=0``: blocks inline the same decisions) at frame skip 1 with every frame drawn, then
as many frames undrawn, with seeded random minimal-set actions, and prints the writes a frame each way,
the registers the device path is called for most first. The copy compiles once (~1 min) per engine source.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WRITE_NAMES = ("VSYNC VBLANK WSYNC RSYNC NUSIZ0 NUSIZ1 COLUP0 COLUP1 COLUPF COLUBK CTRLPF REFP0 REFP1 PF0 PF1 "
               "PF2 RESP0 RESP1 RESM0 RESM1 RESBL AUDC0 AUDC1 AUDF0 AUDF1 AUDV0 AUDV1 GRP0 GRP1 ENAM0 ENAM1 "
               "ENABL HMP0 HMP1 HMM0 HMM1 HMBL VDELP0 VDELP1 VDELBL RESMP0 RESMP1 HMOVE HMCLR CXCLR").split()
WAYS = ("drawn: inline", "drawn: in the blank", "drawn: device call",
        "undrawn: inline", "undrawn: quiet_store", "undrawn: device call")
# (a line of cpu._wr, what goes before it, what goes after it): wp_r is the register's counter base, the
# number added to it the way's index in WAYS
PATCHES = (
    ('    """A CPU write (``value`` already a byte); returns the cycle counter (WSYNC stalls the CPU)."""\n',
     "", "    wp_r = (addr & 0x3F) * 8\n"),
    ("                if quiet_store(s, r, value, cyc, clock):\n",
     "", "                    s[WPATHS + wp_r + 4] += 1\n"),
    ("            elif unseen != 3 or grp_unseen(s, r, value):\n",
     "", "                s[WPATHS + wp_r + (0 if draw else 3)] += 1\n"),
    ("    if tia and not draw:\n", "", "        s[WPATHS + wp_r + 5] += 1\n"),
    ("        if tia and BLANK_STORE[addr & 0x3F] and stored_in_blank(s, addr & 0x3F, value, cyc):\n",
     "", "            s[WPATHS + wp_r + 1] += 1\n"),
    ("        _device(s, rom, fb, (addr & 0xFFFF) | (_REQ_DRAW if draw else 0) | _REQ_WRITE | (value << 24))\n",
     "        if tia:\n            s[WPATHS + wp_r + 2] += 1\n", ""),
)


def _patched_tree() -> Path:
    """A folder holding this checkout's engine, counters added, as package ``engine_paths``."""
    src = ROOT / "engine"
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in sorted(src.rglob("*.py")))).hexdigest()[:12]
    tmp = Path(tempfile.gettempdir()) / "arcade-lab-write-paths" / digest
    pkg = tmp / "engine_paths"
    if (pkg / "cpu.py").exists():
        return tmp
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    layout = (pkg / "layout.py").read_text()
    anchor = "N_STATE = len(_names)\n"
    if anchor not in layout:
        raise SystemExit(f"engine/layout.py: {anchor!r} not found")
    (pkg / "layout.py").write_text(layout.replace(anchor, 'WPATHS = _alloc("write_paths", 64 * 8)\n' + anchor))
    cpu = (pkg / "cpu.py").read_text()
    for text, before, after in PATCHES:
        if text not in cpu:
            raise SystemExit(f"engine/cpu.py no longer has: {text.strip()!r}")
        cpu = cpu.replace(text, before + text + after, 1)
    cpu = cpu.replace("from .layout import (", "from .layout import (WPATHS, ", 1)
    (pkg / "cpu.py").write_text(cpu)
    return tmp


def _counts(env_mod, core, game: str, frames: int, drawn: bool) -> np.ndarray:
    from engine_paths.layout import WPATHS

    e = env_mod.Env(game, frameskip=1, repeat_action_probability=0.0, seed=0)
    acts = e.minimal_actions()
    rng = np.random.default_rng(0)
    for _ in range(200):  # past the start
        e.act(int(acts[rng.integers(len(acts))]))
    c = e.console
    c.s[WPATHS:WPATHS + 512] = 0
    for _ in range(frames):
        a = int(acts[rng.integers(len(acts))])
        if drawn:
            e.act(a)
        else:
            core.act(c.s, c.rom, c.fb, e.rng, a, core.PLAYER_B_NOOP, env_mod._DELTA_FULL, 0, 0)
        if e.game_over():
            e.reset()
    return c.s[WPATHS:WPATHS + 512].reshape(64, 8)[:, :6] / frames


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    games = argv[0].split(",")
    frames = int(argv[1]) if len(argv) > 1 else 600
    os.environ["ARCADE_LAB_BLOCKS"] = "0"
    sys.path.insert(0, str(_patched_tree()))
    env_mod = importlib.import_module("engine_paths.env")
    core = importlib.import_module("engine_paths.ale_core")
    regs = importlib.import_module("engine_paths.tia_regs")
    names = {getattr(regs, n): n for n in WRITE_NAMES}
    for game in games:
        drawn = _counts(env_mod, core, game, frames, True)
        undrawn = _counts(env_mod, core, game, frames, False)
        per = np.concatenate([drawn[:, :3], undrawn[:, 3:]], axis=1)
        print(f"{game}: TIA writes a frame ({frames} drawn frames, then {frames} undrawn)")
        print("  " + ", ".join(f"{w} {per[:, k].sum():.0f}" for k, w in enumerate(WAYS)))
        print("  device calls' registers, each way as above:")
        calls = per[:, 2] + per[:, 5]
        for r in np.argsort(-calls)[:8]:
            if calls[r] < 1:
                break
            print(f"  {names.get(int(r), hex(int(r))):<7} " + "  ".join(f"{per[r, k]:5.0f}" for k in range(6)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
