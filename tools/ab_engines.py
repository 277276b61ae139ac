"""Is engine change X faster? ``python tools/ab_engines.py REF GAME[,GAME...] [undrawn|fs4|fs1] [ROUNDS]``

Times this checkout's ``engine`` (B) against another engine tree REF (A: a directory holding an
``engine`` package, or a git revision of this repository) in ONE process, alternating short chunks of
the same seeded random play (A, B, then B, A, ...), so the load spikes of a shared machine land on both
sides alike. Separate runs of ``bench`` differ by 10-25 % on the 2-core dev VM; with the default 16
rounds on an otherwise idle machine repeated readings agree within a few percent (not beside other
work: one Alien reading moved from +13 % to -6 % next to the test suite). ``undrawn`` steps frames nobody sees (the search workload and 3 of 4 frames under frame
skip 4), ``fs4`` calls ``Env.act`` at frame skip 4 (the ``bench`` workload), ``fs1`` at frame skip 1 (every
frame drawn: the frame-skip-1 wrappers' workload). The other tree is imported as
package ``engine_ref`` (the engine's imports are relative) from a fixed folder per REF, so it compiles
once (~5 min) and later runs load it.
"""
from __future__ import annotations

import hashlib
import importlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _reference_tree(ref: str) -> Path:
    """A folder with REF's engine as package ``engine_ref``. The folder's path is fixed per REF (a
    resolved revision, or the source folder's path): the compiled-code cache is per package folder, so the
    reference compiles once, not on every run."""
    src = Path(ref)
    if (src / "engine").is_dir():
        key = "dir-" + hashlib.sha1(str(src.resolve()).encode()).hexdigest()[:12]
    else:
        key = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", ref + "^{commit}"], check=True,
                             capture_output=True, text=True).stdout.strip()[:12]
    tmp = Path(tempfile.gettempdir()) / "arcade-lab-ab-engines" / key
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if (src / "engine").is_dir():
        shutil.copytree(src / "engine", tmp / "engine_ref", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "engine"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        (tmp / "engine").rename(tmp / "engine_ref")
    return tmp


def _setup(package: str, game: str, steps: int, mode: str):
    env_mod = importlib.import_module(package + ".env")
    core = importlib.import_module(package + ".ale_core")
    skip = 1 if mode == "fs1" else 4
    env = env_mod.Env(game, frameskip=skip, repeat_action_probability=0.0, seed=0)
    acts = env.minimal_actions()
    seq = [int(acts[i]) for i in np.random.default_rng(0).integers(0, len(acts), steps * 4 // skip)]
    return env, core, env_mod, seq


def _chunk(env, core, env_mod, seq, mode: str) -> float:
    c = env.console
    env.reset()
    t = time.perf_counter()
    if mode == "undrawn":
        for a in seq:
            core.act(c.s, c.rom, c.fb, env.rng, a, core.PLAYER_B_NOOP, env_mod._DELTA_FULL, 0, 0)
            if env.game_over():
                env.reset()
    else:
        for a in seq:
            env.act(a)
            if env.game_over():
                env.reset()
    return time.perf_counter() - t


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    ref, games = argv[0], argv[1].split(",")
    mode = argv[2] if len(argv) > 2 else "undrawn"
    rounds = int(argv[3]) if len(argv) > 3 else 16
    if mode not in ("undrawn", "fs4", "fs1"):
        print(f"mode must be undrawn, fs4 or fs1, not {mode!r}")
        return 2
    sys.path.insert(0, str(_reference_tree(ref)))
    # Each side's kernels live in that side's own cache folder (each copy of _jit keys it by a hash of its
    # own sources), so this tree is never served a kernel compiled from an earlier state of it.
    importlib.import_module("engine_ref.env")
    importlib.import_module("arcade_lab.engine.env")
    steps = 300
    for game in games:
        sides = {"engine_ref": _setup("engine_ref", game, steps, mode),
                 "engine": _setup("arcade_lab.engine", game, steps, mode)}
        total = dict.fromkeys(sides, 0.0)
        for r in range(-2, rounds):  # two untimed rounds: kernels loaded, caches warm
            for name in (("engine_ref", "engine") if r % 2 == 0 else ("engine", "engine_ref")):
                dt = _chunk(*sides[name], mode)
                if r >= 0:
                    total[name] += dt
        fa, fb = (rounds * steps * 4 / total[k] for k in ("engine_ref", "engine"))
        print(f"{game:<16} ref {fa:8.0f} f/s   this {fb:8.0f} f/s   this/ref {fb / fa:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
