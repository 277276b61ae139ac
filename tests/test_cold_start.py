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
