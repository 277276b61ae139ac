"""First use without waiting: importing compiles nothing, a game compiles only its own rules, and code
compiled for the generic CPU (what a wheel or bundle ships) loads on any CPU of the target."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import platform

import pytest

# CPU names the test's processes compile for: old enough that this machine runs their code
x86_only = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 CPU names")


def _child(code: str, cache=None, **env) -> dict:
    """Run ``code`` in a fresh process (its own cache folder, or this run's when ``cache`` is None)."""
    full = dict(os.environ, **env)
    if cache is not None:
        full["ARCADE_LAB_CACHE"] = str(cache)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=1500, env=full)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_importing_every_module_compiles_nothing(tmp_path):
    out = _child("""
        import importlib, json, pkgutil
        from numba.core import event
        rec = event.install_recorder("numba:compile")
        with rec as rec:
            import arcade_lab
            names = []
            for pkg in ("arcade_lab", "arcade_lab.engine", "arcade_lab.agents", "arcade_lab.app"):
                mod = importlib.import_module(pkg)
                for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
                    if info.name.endswith("__main__"):  # programs: importing one runs it
                        continue
                    importlib.import_module(info.name)
                    names.append(info.name)
        print(json.dumps({"modules": len(names), "compiles": len(rec.buffer)}))
    """, tmp_path / "cache")
    assert out["modules"] > 40
    assert out["compiles"] == 0
    assert not list((tmp_path / "cache").rglob("*.nbc"))


def test_a_game_compiles_its_own_rules_and_no_other():
    out = _child("""
        import json
        from arcade_lab.engine.env import Env
        from arcade_lab.engine.games import _dispatch
        env = Env("pong", seed=0)
        env.reset()
        env.act(0)
        done = [_dispatch.GAME_IDS[i] for i, ks in enumerate(_dispatch._KERNELS)
                if any(k is not None and k._compiled is not None for k in ks)]
        print(json.dumps({"compiled": done}))
    """)
    assert out["compiled"] == ["pong"]


# A small compiled function of ours (the Mersenne Twister's seeding) stands for the emulator: compiled in one
# process for the generic CPU, loaded in another that names a different CPU, without compiling.
_LOAD = """
    import json
    import numpy as np
    from arcade_lab.engine import rng
    buf = np.zeros(1 + rng.MT_N, dtype=np.int64)
    rng.mt_seed(buf, 0, 1, 7)
    d = rng.mt_seed
    print(json.dumps({"hits": sum(d._cache_hits.values()), "misses": sum(d._cache_misses.values()),
                      "first": int(buf[1])}))
"""


@x86_only
def test_kernels_compiled_for_the_generic_cpu_load_under_another_cpu_name(tmp_path):
    cache = tmp_path / "shipped"
    built = _child(_LOAD, cache, NUMBA_CPU_NAME="generic", NUMBA_CPU_FEATURES="")
    assert built["misses"] == 1 and built["hits"] == 0       # compiled, for the generic CPU
    loaded = _child(_LOAD, cache, NUMBA_CPU_NAME="nehalem")
    assert loaded["hits"] == 1 and loaded["misses"] == 0     # loaded: nothing compiled for "nehalem"
    assert loaded["first"] == built["first"]
    host = _child(_LOAD, tmp_path / "host", NUMBA_CPU_NAME="nehalem")
    assert host["misses"] == 1                               # the same process with an empty cache compiles


@x86_only
def test_a_cache_for_one_named_cpu_is_not_loaded_under_another(tmp_path):
    """Code compiled for a particular CPU may use its instructions: only generic code is shared."""
    cache = tmp_path / "c"
    _child(_LOAD, cache, NUMBA_CPU_NAME="core2")
    other = _child(_LOAD, cache, NUMBA_CPU_NAME="nehalem")
    assert other["misses"] == 1 and other["hits"] == 0


_ASIDE = """
    import json
    from numba.core import event
    from arcade_lab.engine import machine
    from arcade_lab.engine.games import _dispatch
    kernel = _dispatch._pong_lives
    before = kernel.in_cache()
    helper = machine._compile_aside(kernel, "from arcade_lab.engine.games import _dispatch; "
                                            "_dispatch._pong_lives.address")
    rc = helper.wait() if helper is not None else None
    with event.install_recorder("numba:compile") as rec:
        kernel.address
    again = machine._compile_aside(kernel, "raise SystemExit(1)")
    print(json.dumps({"before": before, "helper": helper is not None, "rc": rc, "after": kernel.in_cache(),
                      "compiles_here": len(rec.buffer), "again": again is not None}))
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a helper process needs a second core")
def test_a_kernel_missing_from_the_cache_compiles_in_a_helper_process_and_loads_here(tmp_path):
    """How the 6502 loop compiles beside the rest on a first start, shown on a small kernel (a game's
    lives callback): the helper fills the cache, this process loads from it and compiles nothing."""
    out = _child(_ASIDE, tmp_path / "cache")
    assert out["before"] is False and out["helper"] is True and out["rc"] == 0
    assert out["after"] is True and out["compiles_here"] == 0
    assert out["again"] is False          # cached now: no helper is started


def test_the_lean_pipeline_compiles_without_ssa_and_computes_the_same():
    from numba import njit

    from arcade_lab.engine._jit import jit

    def mix(n):
        acc = 0
        v = 1
        for k in range(n):
            v = (v * 1103515245 + 12345) & 0xFFFF
            if v & 1:
                acc ^= v
            else:
                acc = (acc + (v >> 3)) & 0xFFFFF
        return acc

    lean = jit(mix, lean=True, cache=False)
    full = njit(mix)
    assert [lean(n) for n in range(0, 400, 7)] == [full(n) for n in range(0, 400, 7)]
    passes = next(iter(lean.overloads.values())).metadata["pipeline_times"]["lean nopython"]
    assert not [p for p in passes if "ssa" in p or "strip_phis" in p]
    assert [p for p in next(iter(full.overloads.values())).metadata["pipeline_times"]["nopython"] if "ssa" in p]
