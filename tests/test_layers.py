"""The installed package: one import namespace, layers that hold, and a guest that changes nothing.

These run against the wheel as `pip install` would lay it out (not the editable source mapping), because
that is what a user gets: `arcade_lab/` holding engine, agents, app and resources."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"engine": "arcade_lab.engine", "agents": "arcade_lab.agents", "app": "arcade_lab.app",
          "resources": "arcade_lab.resources", "arcade_lab": "arcade_lab"}


@pytest.fixture
def wheel(built_wheel) -> Path:
    return built_wheel


@pytest.fixture
def unpacked(unpacked_wheel) -> Path:
    return unpacked_wheel


def test_the_wheel_installs_one_top_level_package(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
        assert top == {"arcade_lab"}
        assert "arcade_lab/resources/roms.tsv" in names
        assert "arcade_lab/resources/icons/arcade-lab-256.png" in names
        assert "arcade_lab/engine/games/_dispatch.py" in names
        [ep] = [n for n in names if n.endswith("entry_points.txt")]
        assert "arcade-lab = arcade_lab.cli:main" in z.read(ep).decode()


def test_the_package_list_names_every_package_folder():
    """setuptools is given an explicit list (the folders are mapped, not discovered): a new subpackage
    left off it would be missing from every installation."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {k: v for k, v in cfg["package-dir"].items()} == {v: k for k, v in MAPPED.items()}
    found = set()
    for folder, pkg in MAPPED.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in rel:
                found.add(".".join((pkg, *rel)))
    assert set(cfg["packages"]) == found


def test_import_linter_contracts_hold(unpacked, tmp_path):
    """engine imports neither agents nor app; agents never import app; Qt, pyqtgraph, sounddevice and
    pygame only in app; the tools sit above all three (contracts in pyproject.toml)."""
    exe = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(exe), str(ROOT / "pyproject.toml")], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(unpacked)}, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert re.search(r"Contracts: (\d+) kept, 0 broken", r.stdout)


def _fresh_venv(tmp_path: Path, wheel: Path) -> Path:
    """A new environment with the wheel installed (not editable); the other dependencies are this test
    environment's, reached by a plain path entry, so no editable-install hook of ours comes along."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (site / "deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    return py


def test_a_user_project_with_its_own_engine_agents_app_resources(wheel, tmp_path):
    """The commonest folder names of research code stay the user's: their `agents`, `app`, `engine` and
    `resources` packages import, and so does ours, with the Gymnasium ids, beside them."""
    py = _fresh_venv(tmp_path, wheel)
    project = tmp_path / "project"
    for name in ("agents", "app", "engine", "resources"):
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text(f"OWNER = 'user-{name}'\n")
    code = (
        "import agents, app, engine, resources\n"
        "assert [m.OWNER for m in (agents, app, engine, resources)] == "
        "['user-agents', 'user-app', 'user-engine', 'user-resources']\n"
        "import gymnasium as gym\n"
        "import arcade_lab\n"
        "gym.register_envs(arcade_lab)\n"
        "env = gym.make('ArcadeLab/Pong-v5')\n"
        "obs, info = env.reset(seed=0)\n"
        "obs, r, term, trunc, info = env.step(0)\n"
        "print(obs.shape, arcade_lab.__file__, type(env.unwrapped).__module__)\n")
    r = subprocess.run([str(py), "-c", code], cwd=project, capture_output=True, text=True, timeout=1800,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert r.returncode == 0, r.stderr[-4000:]
    out = r.stdout.strip()
    assert out.startswith("(210, 160, 3) ")
    assert str(tmp_path / "venv") in out and out.endswith(" arcade_lab.engine.gym")


def test_importing_the_package_compiles_nothing_and_sets_nothing(tmp_path):
    """A guest in the user's process: importing registers the ids and loads no compiler; using the engine
    leaves numba's cache setting and the environment as they were, and the user's own cached functions
    go where the user's setting says."""
    user_cache = tmp_path / "users-numba-cache"
    code = (
        "import os, sys\n"
        "import arcade_lab\n"
        "assert 'numba' not in sys.modules, 'import arcade_lab loaded numba'\n"
        "import gymnasium as gym\n"
        "assert 'ArcadeLab/Pong-v5' in gym.registry and 'ArcadeLab/BreakoutNoFrameskip-v4' in gym.registry\n"
        "before = dict(os.environ)\n"
        "env = arcade_lab.Env('pong', repeat_action_probability=0.0, seed=0)\n"
        "env.act(0)\n"
        "import numba\n"
        "assert dict(os.environ) == before, 'the environment changed'\n"
        "assert numba.config.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR\n"
        "@numba.njit(cache=True)\n"
        "def users_own(x):\n"
        "    return x + 1\n"
        "assert users_own(1) == 2\n"
        "print('ok')\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(user_cache)}
    script = tmp_path / "users_program.py"  # numba caches functions of files only
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=1800,
                       env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-4000:]
    assert list(user_cache.rglob("*users_own*.nbi")), "the user's cached function went elsewhere"
    assert not list(user_cache.rglob("*cpu_exec*")), "our kernels landed in the user's numba cache"
