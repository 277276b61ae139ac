"""Packaging: the headless self-test the bundle runs, the desktop entry, AppStream metadata, icons, spec."""
from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"


def test_self_test_command_runs_a_game_headless():
    out = subprocess.run([sys.executable, "-m", "arcade_lab", "play", "--self-test", "--frames", "30"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "self-test ok: pong, 30 frames" in out.stdout


def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "arcade_lab", "--version"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.startswith("arcade-lab ")


def test_desktop_entry_and_metainfo_agree():
    desk = configparser.ConfigParser(interpolation=None)
    desk.optionxform = str
    [path] = PKG.glob("*.desktop")
    desk.read(path)
    entry = desk["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Exec"].split()[0] == "arcade-lab"
    assert (ROOT / "resources" / "icons" / f"{entry['Icon']}-256.png").is_file()
    [meta] = PKG.glob("*.metainfo.xml")
    root = ET.parse(meta).getroot()
    assert root.findtext("id") + ".desktop" == path.name
    assert root.find("launchable").text == path.name


def test_icons_in_every_size_are_square_pngs():
    sizes = []
    for p in (ROOT / "resources" / "icons").glob("arcade-lab-*.png"):
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert w == h == int(p.stem.rsplit("-", 1)[1])
        sizes.append(w)
    assert {16, 32, 48, 64, 128, 256} <= set(sizes)


def _evaluate_spec(monkeypatch, site: Path) -> dict:
    """Run the PyInstaller spec with PyInstaller's collectors stood in for by ones that work as its own do
    over the installed package (``make dist`` builds from the wheel installed in an environment of its own,
    laid out as ``site``) — submodules: the package's folder, recursively; data files: the package's
    folder, placed in the bundle relative to the folder that holds the top-level package — and return what
    the spec hands to Analysis, with the filters it passed along."""
    import pkgutil
    import types

    def folder_of(package):
        return site.joinpath(*package.split("."))

    def submodules(package):
        found = [package]
        for m in pkgutil.iter_modules([str(folder_of(package))], package + "."):
            found += submodules(m.name) if m.ispkg else [m.name]
        return found

    seen = {"filters": {}}

    def collect_submodules(package, filter=lambda name: True):
        seen["filters"][package] = filter
        return [n for n in submodules(package) if filter(n)] if package == "arcade_lab" else []

    def collect_data_files(package, excludes=None):
        if package != "arcade_lab.resources":
            return []
        folder = folder_of(package)
        base = site
        return [(str(p), folder.relative_to(base).as_posix()) for p in folder.iterdir()
                if p.is_file() and p.suffix not in (".py", ".pyc")]

    def analysis(scripts, **kw):
        seen.update(kw, scripts=scripts)
        return types.SimpleNamespace(pure=[], scripts=[], binaries=[], datas=[])

    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules, hooks.collect_data_files = collect_submodules, collect_data_files
    hooks.copy_metadata = lambda dist: []
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    spec = PKG / "arcade-lab.spec"
    namespace = {"SPECPATH": str(PKG), "Analysis": analysis, "PYZ": lambda *a, **k: None,
                 "EXE": lambda *a, **k: None, "COLLECT": lambda *a, **k: None}
    exec(compile(spec.read_text(), str(spec), "exec"), namespace)
    seen["namespace"] = namespace
    return seen


def test_spec_collects_what_the_app_imports_lazily(monkeypatch, unpacked_wheel):
    seen = _evaluate_spec(monkeypatch, unpacked_wheel)
    hidden = seen["hiddenimports"]
    for module in ("arcade_lab.app.main", "arcade_lab.app.panels.agents", "arcade_lab.agents.search",
                   "arcade_lab.engine.games.pong", "sounddevice"):
        assert module in hidden, module
    datas = {(Path(src).name, dest) for src, dest in seen["datas"]}
    assert ("roms.tsv", "arcade_lab/resources") in datas


def test_spec_keeps_sources_and_drops_what_is_never_used(monkeypatch, unpacked_wheel):
    seen = _evaluate_spec(monkeypatch, unpacked_wheel)
    assert [Path(s).name for s in seen["scripts"]] == ["launcher.py"] and Path(seen["scripts"][0]).is_file()
    assert seen["module_collection_mode"] == {"arcade_lab": "pyz+py"}  # numba caches compiled code per source
    keep = seen["filters"]["numba"]
    assert keep("numba.core.typing") and not keep("numba.tests.test_x") and not keep("numba.pycc")
    assert {"setuptools", "pkg_resources"} <= set(seen["excludes"])


def test_spec_drops_the_qt_parts_the_app_never_loads(monkeypatch, unpacked_wheel):
    seen = _evaluate_spec(monkeypatch, unpacked_wheel)
    unused = seen["namespace"]["unused_qt_file"]
    plugins = "PySide6/Qt/plugins/"
    for dest in ("PySide6/Qt/translations/qtbase_de.qm", plugins + "platforms/libqeglfs.so",
                 plugins + "platforms/libqvnc.so", plugins + "tls/libqopensslbackend.so",
                 plugins + "networkinformation/libqglib.so", plugins + "platformthemes/libqgtk3.so",
                 plugins + "imageformats/libqtiff.so", plugins + "egldeviceintegrations/libqeglfs-x11-integration.so"):
        assert unused(dest), dest
    for dest in (plugins + "platforms/libqxcb.so", plugins + "platforms/libqwayland.so",
                 plugins + "platforms/libqoffscreen.so", plugins + "imageformats/libqsvg.so",
                 plugins + "iconengines/libqsvgicon.so", plugins + "platformthemes/libqxdgdesktopportal.so",
                 plugins + "xcbglintegrations/libqxcb-glx-integration.so", "PySide6/Qt/lib/libQt6Gui.so.6",
                 "PySide6/QtGui.abi3.so"):
        assert not unused(dest), dest
    excluded = set(seen["excludes"])
    assert {"PySide6.QtNetwork", "pygame.mixer", "pygame.font"} <= excluded
    # pyqtgraph's plot items import these at module level
    assert not {"PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtSvg", "PySide6.QtWidgets"} & excluded


def test_libraries_collected_only_for_dropped_plugins_go_with_them(monkeypatch, unpacked_wheel):
    ns = _evaluate_spec(monkeypatch, unpacked_wheel)["namespace"]
    links = {"gtk3": ["libQt6Gui.so.6", "libcairo.so.2", "libgtk-3.so.0"], "xcb": ["libQt6Gui.so.6"],
             "gui": ["libglib-2.0.so.0"], "cairo": ["libpixman-1.so.0", "libglib-2.0.so.0"],
             "pixman": [], "glib": []}
    monkeypatch.setitem(ns, "elf_needed", lambda src: links[src])
    dropped = [("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "gtk3", "BINARY")]
    kept = [("PySide6/Qt/plugins/platforms/libqxcb.so", "xcb", "BINARY"), ("libQt6Gui.so.6", "gui", "BINARY"),
            ("libcairo.so.2", "cairo", "BINARY"), ("libpixman-1.so.0", "pixman", "BINARY"),
            ("libglib-2.0.so.0", "glib", "BINARY")]
    assert ns["only_needed_by"](dropped, kept) == {"libcairo.so.2", "libpixman-1.so.0"}


def _elf_with_load_segment(path: Path, offset: int, vaddr: int) -> Path:
    """A 64-bit ELF header and one program header: PT_LOAD at ``offset`` in the file, mapped at ``vaddr``."""
    import struct

    header = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 1,
                                                                   64, 0, 0)
    segment = struct.pack("<IIQQQQQQ", 1, 5, offset, vaddr, vaddr, 4096, 4096, 4096)
    path.write_bytes(header + segment)
    return path


def test_misaligned_load_segments_are_detected(monkeypatch, unpacked_wheel, tmp_path):
    misaligned = _evaluate_spec(monkeypatch, unpacked_wheel)["namespace"]["misaligned"]
    assert not misaligned(_elf_with_load_segment(tmp_path / "a.so", 0x2000, 0x5000))
    assert not misaligned(_elf_with_load_segment(tmp_path / "b.so", 0x2010, 0x7010))  # same offset in the page
    assert misaligned(_elf_with_load_segment(tmp_path / "c.so", 0x2e10, 0x7010))


@pytest.mark.skipif(not shutil.which("strip"), reason="binutils' strip is not installed")
def test_stripping_keeps_a_library_as_it_was_where_the_result_would_not_load(monkeypatch, unpacked_wheel, tmp_path):
    import numpy

    ns = _evaluate_spec(monkeypatch, unpacked_wheel)["namespace"]
    lib = next((Path(numpy.__file__).parent / "_core").glob("_multiarray_umath*.so"))
    entries = [("numpy/_core/" + lib.name, str(lib), "EXTENSION"), ("numpy/py.typed", "py.typed", "DATA")]
    [(_, copy, _), data] = ns["stripped"](entries, str(tmp_path / "out"))
    assert Path(copy) == tmp_path / "out" / "numpy" / "_core" / lib.name and not ns["misaligned"](copy)
    assert data == entries[1]  # only binaries are stripped
    monkeypatch.setitem(ns, "misaligned", lambda path: True)  # as strip leaves auditwheel's libraries
    assert ns["stripped"](entries, str(tmp_path / "again"))[0][1] == str(lib)


BUNDLE = ROOT / "dist" / "arcade-lab"
needs_bundle = pytest.mark.skipif(not (BUNDLE / "arcade-lab").exists(), reason="no bundle built (make dist)")


def run_in_bundle(code: str, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``code`` inside the frozen bundle, through the entry its spawned worker processes use (the
    launcher calls multiprocessing.freeze_support): the child reads its preparation data and a Process
    object, whose target here is ``exec``, from a pipe."""
    import io
    import multiprocessing
    from multiprocessing import context, reduction

    proc = multiprocessing.get_context("spawn").Process(target=exec, args=(code,), name="bundle-probe")
    data = io.BytesIO()
    context.set_spawning_popen(object())  # a Process's authentication key pickles only while spawning
    try:
        reduction.dump({"name": proc.name, "authkey": bytes(proc.authkey)}, data)
        reduction.dump(proc, data)
    finally:
        context.set_spawning_popen(None)
    read, write = os.pipe()
    child = subprocess.Popen([str(BUNDLE / "arcade-lab"), "--multiprocessing-fork", f"pipe_handle={read}"],
                             pass_fds=(read,), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    os.close(read)
    with open(write, "wb") as pipe:
        pipe.write(data.getvalue())
    out, err = child.communicate(timeout=timeout)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


@needs_bundle
def test_bundle_imports_every_module_and_what_they_import_when_used(tmp_path):
    """What the spec leaves out must be what nothing imports: every module of the package (their lazy
    imports of pyqtgraph and pygame included) loads in the bundle and computes, without SciPy."""
    code = """
import importlib, pkgutil, arcade_lab
for m in pkgutil.walk_packages(arcade_lab.__path__, "arcade_lab."):
    if not m.name.endswith("__main__"):
        importlib.import_module(m.name)
import numpy as np
from arcade_lab.agents.evaluation import metrics
from PySide6.QtWidgets import QApplication
app = QApplication([])
import pyqtgraph as pg
plot = pg.PlotWidget()
plot.plot([1.0, 3.0, 2.0])
plot.resize(120, 80)
image = plot.grab().toImage()
import pygame
pygame.joystick.init()
print(sum(m.startswith("arcade_lab.") for m in __import__("sys").modules), metrics.iqm(np.arange(40.0).reshape(4, 10)),
      round(metrics.welch([1.0, 2, 3, 4], [2.0, 3, 4, 9])[1], 4), image.width(), pygame.joystick.get_count() >= 0)
"""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "ARCADE_LAB_CACHE": str(tmp_path / "cache")}
    out = run_in_bundle(code, env)
    assert out.returncode == 0, out.stderr[-3000:]
    count, iqm, p, width, pad = out.stdout.split()
    assert int(count) > 150 and float(iqm) == 19.5 and float(p) == 0.3004 and int(width) == 120 and pad == "True"


@needs_bundle
def test_bundle_holds_no_qt_part_the_app_never_loads():
    qt = BUNDLE / "_internal" / "PySide6" / "Qt"
    present = {p.relative_to(qt).as_posix() for p in qt.rglob("*") if p.is_file()}
    assert not [p for p in present if p.startswith(("translations/", "plugins/tls/", "plugins/networkinformation/",
                                                     "plugins/egldeviceintegrations/", "plugins/generic/"))]
    assert not {"lib/libQt6Network.so.6", "plugins/platformthemes/libqgtk3.so", "plugins/platforms/libqeglfs.so"} & present
    assert {"plugins/platforms/libqxcb.so", "plugins/platforms/libqwayland.so", "plugins/platforms/libqoffscreen.so",
            "plugins/imageformats/libqsvg.so"} <= present
    assert not (BUNDLE / "_internal" / "libcairo.so.2").exists()  # the GTK theme's, not Qt's
    assert not [p for p in BUNDLE.rglob("*") if p.is_symlink() and not p.exists()]  # no link left dangling


def _is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def _section_names(path: Path) -> set[str]:
    import struct

    with open(path, "rb") as f:
        head = f.read(64)
        shoff, = struct.unpack_from("<Q", head, 0x28)
        size, count, names_index = struct.unpack_from("<HHH", head, 0x3A)
        f.seek(shoff)
        table = f.read(size * count)
        name_offset, = struct.unpack_from("<Q", table, names_index * size + 24)
        f.seek(name_offset)
        names = f.read(1 << 16)
    return {names[n:names.index(b"\0", n)].decode() for n, in
            (struct.unpack_from("<I", table, i * size) for i in range(count))}


@needs_bundle
def test_bundle_libraries_are_stripped_and_load(monkeypatch, unpacked_wheel):
    misaligned = _evaluate_spec(monkeypatch, unpacked_wheel)["namespace"]["misaligned"]
    llvm = BUNDLE / "_internal" / "llvmlite" / "binding" / "libllvmlite.so"
    assert ".text" in _section_names(llvm) and ".symtab" not in _section_names(llvm)
    libs = [p for p in (BUNDLE / "_internal").rglob("*.so*") if p.is_file() and not p.is_symlink() and _is_elf(p)]
    assert len(libs) > 100 and not [p for p in libs if misaligned(p)]


@pytest.mark.skipif(not (ROOT / "dist" / "arcade-lab" / "arcade-lab").exists(), reason="no bundle built (make dist)")
def test_built_bundle_passes_its_self_test():
    exe = ROOT / "dist" / "arcade-lab" / "arcade-lab"
    # the bundle seeds and uses its own JIT cache; a cache folder chosen for the tests would be a cold one
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_LAB_CACHE"}
    out = subprocess.run([str(exe), "play", "--self-test"], capture_output=True, text=True, timeout=900,
                         env={**env, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and "self-test ok" in out.stdout, out.stderr


@pytest.mark.skipif(not (ROOT / "build" / "pyinstaller" / "arcade-lab" / "Analysis-00.toc").exists(), reason="no bundle built (make dist)")
def test_bundle_start_runs_no_setuptools_hooks():
    """setuptools/pkg_resources in a bundle bring run-time hooks importing them on every start (~0.3 s);
    the spec keeps them (and numba's tests and AOT compiler, their only users) out."""
    toc = (ROOT / "build" / "pyinstaller" / "arcade-lab" / "Analysis-00.toc").read_text()
    assert "pyi_rth_pyside6" in toc  # the analysis lists the run-time hooks it chose
    assert "pyi_rth_pkgres" not in toc and "pyi_rth_setuptools" not in toc
    modules = (ROOT / "build" / "pyinstaller" / "arcade-lab" / "PYZ-00.toc").read_text()
    assert "'numba.core.dispatcher'" in modules
    assert "'numba.tests" not in modules and "'setuptools" not in modules and "'pkg_resources" not in modules


def test_compiled_code_is_cached_by_package_relative_path():
    """The cache folder of our kernels names the package folder, not the absolute install path, and its
    stamp is the content of the file and of what it imports: a cache built in one place is valid where the
    installation moves."""
    from arcade_lab.engine import _jit, cpu

    fn = cpu.execute
    loc = _jit.PackageCacheLocator.from_function(fn.py_func, fn.py_func.__code__.co_filename)
    assert loc is not None
    assert Path(loc.get_cache_path()) == Path(_jit.CACHE_DIR) / "engine"
    source = Path(fn.py_func.__code__.co_filename)  # cpu_exec.py, the generated loop
    assert loc.get_source_stamp() == _jit.source_stamp(source)
    assert type(fn._cache._impl.locator) is _jit.PackageCacheLocator  # numba picked ours
    # anybody else's functions keep numba's own locators
    assert _jit.PackageCacheLocator.from_function(test_version_flag, __file__) is None


def test_a_kernels_stamp_covers_exactly_what_it_imports(monkeypatch):
    """numba inlines callees from other files, so an edit must reach every module that imports the edited
    one, directly or not — and only those: editing a game's rules must not recompile the CPU."""
    from arcade_lab.engine import _jit

    cpu = _jit._closure("engine/cpu.py")
    assert {"engine/cpu_exec.py", "engine/tia.py", "engine/tia_tables.py", "engine/layout.py"} <= set(cpu)
    assert "engine/games/pong.py" not in cpu and "engine/env.py" not in cpu
    assert {"engine/games/pong.py", "engine/cpu.py"} <= set(_jit._closure("engine/ale_core.py"))
    assert "engine/ale_core.py" in _jit._closure("agents/search.py")  # absolute imports count too

    before = {rel: _jit._stamp(rel) for rel in ("engine/cpu.py", "engine/ale_core.py", "engine/riot.py")}
    real = _jit._file_digest

    def edited(rel):
        return b"edited" if rel == "engine/tia_tables.py" else real(rel)

    monkeypatch.setattr(_jit, "_file_digest", edited)
    _jit._stamp.cache_clear()
    try:
        after = {rel: _jit._stamp(rel) for rel in before}
    finally:
        monkeypatch.undo()
        _jit._stamp.cache_clear()
    assert after["engine/cpu.py"] != before["engine/cpu.py"]          # imports tia, which imports the tables
    assert after["engine/ale_core.py"] != before["engine/ale_core.py"]
    assert after["engine/riot.py"] == before["engine/riot.py"]        # never sees the TIA


def test_engine_loads_without_scipy_linalg_and_numba_linear_algebra_still_works():
    """The start-up skips numba's BLAS probe (engine._jit._import_numba): loading the engine must not
    import scipy.linalg, and compiled code using np.dot (other programs' agents) must still work."""
    code = ("import sys, numpy as np, numba\n"
            "import arcade_lab.engine.env\n"
            "assert 'scipy.linalg' not in sys.modules, 'scipy.linalg imported at start-up'\n"
            "f = numba.njit(lambda a, b: (np.dot(a, b), np.convolve(a, b).sum()))\n"
            "print(f(np.arange(3.0), np.ones(3)))\n"
            "import scipy.linalg\n"
            "print(scipy.linalg.solve(np.eye(2), np.ones(2)).sum())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["(3.0,", "9.0)", "2.0"]


def test_bundled_cache_seeds_the_user_cache_once_per_set_of_sources(tmp_path):
    from arcade_lab.engine import _jit

    src = tmp_path / "shipped"
    (src / "engine").mkdir(parents=True)
    (src / "engine" / "x.nbi").write_bytes(b"index")
    dest = tmp_path / "user" / "numba" / "v2"
    assert _jit.seed_cache(dest, src)
    assert (dest / "engine" / "x.nbi").read_bytes() == b"index"
    (dest / "engine" / "x.nbi").write_bytes(b"mine")
    assert not _jit.seed_cache(dest, src)                 # seeded for these sources: never again
    assert (dest / "engine" / "x.nbi").read_bytes() == b"mine"
    for mark in dest.glob(".seeded-*"):                   # a new bundle (other sources) seeds again
        mark.unlink()
    assert _jit.seed_cache(dest, src)
    assert (dest / "engine" / "x.nbi").read_bytes() == b"index"
    assert not _jit.seed_cache(tmp_path / "other", None)  # nothing shipped (not a bundle): nothing done
    assert not (tmp_path / "other").exists()
    assert _jit.bundled_cache() is None                   # this test process is not frozen


def test_warm_loads_every_kernel_the_app_uses(monkeypatch):
    from arcade_lab import warm
    from arcade_lab.agents.registry import FEATURE_SETS
    from arcade_lab.engine import _jit

    specs = [spec for spec, _ in warm.AGENTS]
    # every agent kind with compiled kernels (brute, const and perturb are plain Python)
    assert {f"sarsa:{f}" for f in FEATURE_SETS} | {"uct", "bfs"} <= set(specs)
    marks = []
    monkeypatch.setattr(_jit, "mark_cache_warm", lambda: marks.append("warm"))
    lines = []
    times = warm.warm("pong", agents=True, out=lines.append)
    assert list(times) == ["emulator"] + specs
    assert lines == [f"{part}: {t:.1f} s" for part, t in times.items()]
    assert marks == ["warm"]  # the app's next start skips its splash thread


def test_warm_mark_follows_the_cache_folder_and_the_cpu(tmp_path, monkeypatch):
    """A cache warmed on another CPU (numba keys machine code by CPU name and features) is not warm here:
    the app must keep its splash thread rather than compile in a frozen window."""
    import numba

    from arcade_lab.engine import _jit

    monkeypatch.setattr(_jit, "CACHE_DIR", tmp_path / "cache")
    assert not _jit.cache_warm()  # a new cache folder (new sources, fresh install) starts cold
    _jit.mark_cache_warm()
    assert _jit.cache_warm()
    monkeypatch.setattr(numba.config, "CPU_NAME", "some-other-cpu")
    assert not _jit.cache_warm()
