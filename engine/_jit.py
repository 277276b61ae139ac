"""numba set-up shared by every compiled module.

numba's on-disk cache only notices edits to the file that defines a function, not to the functions it
calls in other files (it inlines them), so a stale cache could silently run old emulator code. Our locator
stamps each file's compiled code by that file *and every file of ours it imports*, directly or not: an
edit recompiles the modules that can see it, and nothing else.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
import threading
from pathlib import Path

_ENGINE_DIR = Path(__file__).resolve().parent
_PKG_ROOT = _ENGINE_DIR.parent      # arcade_lab/ in an installation, the repository in a source checkout
_OURS = ("engine", "agents")        # the folders whose functions are compiled
_CACHE_LAYOUT = "v2"                # the folder layout below the cache root


def cache_root() -> Path:
    base = os.environ.get("ARCADE_LAB_CACHE")
    if not base:
        try:
            from platformdirs import user_cache_dir

            base = user_cache_dir("arcade-lab", appauthor=False)
        except Exception:  # platformdirs missing: fall back to a folder beside the package
            base = str(_PKG_ROOT / ".cache")
    return Path(base)


def cache_dir() -> Path:
    """Where our compiled code lives (``arcade-lab doctor`` shows it)."""
    return cache_root() / "numba" / _CACHE_LAYOUT


# -- which files a file's compiled code depends on ------------------------------------------------------
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)"
                     r"|import[ \t]+([\w.]+))", re.M)


@functools.lru_cache(maxsize=None)
def _our_files() -> frozenset[str]:
    return frozenset(p.relative_to(_PKG_ROOT).as_posix() for folder in _OURS for p in (_PKG_ROOT / folder).rglob("*.py"))


def _module_file_of(parts: tuple[str, ...]) -> str | None:
    """The file (relative to the package root) of our module ``parts``, or None."""
    rel = "/".join(parts)
    for cand in (rel + ".py", rel + "/__init__.py"):
        if cand in _our_files():
            return cand
    return None


@functools.lru_cache(maxsize=None)
def _direct_imports(rel: str) -> frozenset[str]:
    """Our modules that the file ``rel`` imports anywhere in it (function-level imports included: a
    superset is safe, a missed one would serve stale code). A text scan, not a parse: it runs at start."""
    here = tuple(rel.split("/")[:-1])
    found = set()
    for frm, names, plain in _IMPORT.findall((_PKG_ROOT / rel).read_text(encoding="utf-8")):
        mod = frm or plain
        if mod.startswith("."):
            dots = len(mod) - len(mod.lstrip("."))
            pkg = here[:len(here) - (dots - 1)] if dots > 1 else here
            parts = pkg + tuple(p for p in mod[dots:].split(".") if p)
        elif mod.startswith("arcade_lab."):
            parts = tuple(mod.split(".")[1:])
        else:
            continue
        # ``from .x import a, b`` depends on the module x, or on submodules a and b where they are modules
        # (``from . import ale_core``); a package's __init__ counts only when names are taken from it
        imported = [n.split()[0] for n in names.strip("() \t\n").split(",") if n.strip()] if frm else []
        subs = [_module_file_of(parts + (n,)) for n in imported]
        found.update(p for p in subs if p is not None)
        if not frm or None in subs:
            target = _module_file_of(parts)
            if target is not None:
                found.add(target)
    found.discard(rel)
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def _closure(rel: str) -> tuple[str, ...]:
    seen = {rel}
    todo = [rel]
    while todo:
        for dep in _direct_imports(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return tuple(sorted(seen))


@functools.lru_cache(maxsize=None)
def _file_digest(rel: str) -> bytes:
    return hashlib.sha256((_PKG_ROOT / rel).read_bytes()).digest()


@functools.lru_cache(maxsize=None)
def _stamp(rel: str) -> str:
    h = hashlib.sha256()
    for dep in _closure(rel):
        h.update(dep.encode())
        h.update(_file_digest(dep))
    return h.hexdigest()


def source_stamp(path: Path) -> str:
    """The stamp of ``path``'s compiled code: its own content and that of everything it imports of ours."""
    return _stamp(path.relative_to(_PKG_ROOT).as_posix())


@functools.lru_cache(maxsize=None)
def sources_digest() -> str:
    """One digest of every compiled module (and what they import): names a set of sources as a whole, for
    the warm mark and for seeding from a shipped cache."""
    h = hashlib.sha1()
    for rel in sorted(_our_files()):
        h.update(rel.encode())
        h.update(_file_digest(rel))
    return h.hexdigest()[:16]


SHIPPED = "jit-cache"  # the folder a wheel (beside the engine) or a frozen bundle ships its cache in


def _sources_mark() -> str:
    return f"sources-{sources_digest()}.mark"  # not a dot file: package data globs skip those


def write_sources_mark(folder: Path | None = None) -> None:
    """Mark a cache as compiled from exactly these sources (``arcade-lab warm`` does, for shipping)."""
    p = Path(folder or CACHE_DIR)
    try:
        p.mkdir(parents=True, exist_ok=True)
        (p / _sources_mark()).touch()
    except OSError:
        pass


def bundled_cache() -> Path | None:
    """The cache a wheel or a frozen bundle ships, warmed (for the generic CPU) from exactly these sources;
    else None. A source checkout where ``make wheel`` left an older one behind gets None too."""

    cands = [_ENGINE_DIR / SHIPPED / "numba" / _CACHE_LAYOUT]
    base = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and base:
        cands.insert(0, Path(base) / SHIPPED / "numba" / _CACHE_LAYOUT)
    for p in cands:
        if (p / _sources_mark()).is_file():
            return p
    return None


def seed_cache(dest: Path, src: Path | None) -> bool:
    """Copy a shipped cache into the user's folder (so it stays writable), once per set of sources: a new
    bundle's kernels replace an older bundle's, and a cache already seeded for these sources is left as
    it is. A copy that fails half-way costs only compilation; numba never loads a file whose stamp is
    not its source's."""
    import shutil

    if src is None:
        return False
    mark = dest / f".seeded-{sources_digest()}"
    if mark.exists():
        return False
    try:
        shutil.copytree(src, dest, dirs_exist_ok=True)
        mark.touch()
        return True
    except OSError:
        return False


# Our compiled code's folder. numba's own setting (NUMBA_CACHE_DIR, numba.config.CACHE_DIR) is left alone:
# the engine is a guest in the user's process, and their own cached functions stay where they put them.
CACHE_DIR: Path = cache_dir()
seed_cache(CACHE_DIR, bundled_cache())


def _import_numba():
    """Import numba without its BLAS probe. When its NumPy implementations load (``numba.np.arraymath``,
    on the first compile or cache load) numba imports ``scipy.linalg.cython_blas`` only to pick how
    ``np.correlate``/``np.convolve`` multiply floats in compiled code (none of ours use them); that import
    costs ~0.25 s, an eighth of the app's start. Here the module loads with the probe failing quietly
    (numba then uses its own loop there); ``np.dot`` and ``np.linalg`` still import SciPy when a function
    using them compiles, and SciPy itself is untouched for everybody else."""

    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        import numba
        return numba

    class _SkipBlasProbe:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name == "scipy.linalg":
                raise ImportError("skipped while numba loads (engine._jit._import_numba)")
            return None

    sys.meta_path.insert(0, _SkipBlasProbe)
    try:
        import numba
        import numba.np.arraymath  # noqa: F401  (the probe runs at its import)
    finally:
        sys.meta_path.remove(_SkipBlasProbe)
    return numba


numba = _import_numba()

from numba import njit  # noqa: E402
from numba.core import caching as _caching  # noqa: E402
from numba.core import compiler as _compiler  # noqa: E402


def _module_file(py_func, py_file: str) -> Path | None:
    """The real source file of one of our compiled functions, or None for anybody else's. In a frozen
    bundle ``co_filename`` may be relative; the module's ``__file__`` is not."""

    mod = sys.modules.get(getattr(py_func, "__module__", "") or "")
    return _our_source(getattr(mod, "__file__", None) or py_file)


@functools.lru_cache(maxsize=None)
def _our_source(cand) -> Path | None:
    # once per file, not per function: ~400 functions in ~130 files are decorated at start-up
    try:
        path = Path(cand).resolve()
        rel = path.relative_to(_PKG_ROOT)
    except (TypeError, ValueError, OSError):
        return None
    return path if rel.parts and rel.parts[0] in _OURS and path.is_file() else None


class PackageCacheLocator(_caching._CacheLocator):
    """Where numba keeps our compiled code: under the cache folder by path *relative to the package*,
    stamped by the file's content and that of the files it imports of ours. numba's own locators name the folder after the absolute source path
    (and, in a frozen app, stamp by the executable), so a cache could never move with an installation —
    this one can: a bundle ships the cache warmed at build time and its first start loads instead of
    compiling for minutes."""

    def __init__(self, py_func, path: Path):
        self._path = path
        self._py_file = str(path)  # numba names it in its "cannot cache" warning
        self._lineno = py_func.__code__.co_firstlineno
        rel = path.parent.relative_to(_PKG_ROOT)
        self._cache_path = os.path.join(CACHE_DIR, *rel.parts)  # read at decoration time

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return source_stamp(self._path)

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        path = _module_file(py_func, py_file)
        if path is None:
            return None
        self = cls(py_func, path)
        if self._cache_path not in _WRITABLE:  # numba's check writes a temporary file: once per folder
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            _WRITABLE.add(self._cache_path)
        return self


_WRITABLE: set = set()


if PackageCacheLocator not in _caching.CacheImpl._locator_classes:
    _caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)


def _warm_mark() -> str:
    """The marker's name carries what numba keys machine code by (target, CPU, features): a cache warmed
    on another CPU (a bundle built elsewhere) would compile again, so it must not count as warm."""
    import llvmlite.binding as ll

    name = numba.config.CPU_NAME or ll.get_host_cpu_name()
    feats = numba.config.CPU_FEATURES if numba.config.CPU_FEATURES is not None else \
        ll.get_host_cpu_features().flatten()
    key = hashlib.sha1(f"{ll.get_process_triple()}|{name}|{feats}".encode()).hexdigest()[:12]
    return f".warm-{key}-{sources_digest()}"


def cache_warm() -> bool:
    """Whether the emulator's kernels in this cache folder were all compiled once for this CPU (marked by
    the first start's warm-up or ``arcade-lab warm``): the app then skips its splash thread and loads
    directly, knowing no compilation will freeze the window."""
    return (Path(CACHE_DIR) / _warm_mark()).is_file()


def mark_cache_warm() -> None:
    try:
        p = Path(CACHE_DIR)
        p.mkdir(parents=True, exist_ok=True)
        (p / _warm_mark()).touch()
    except OSError:  # a read-only cache only costs the splash thread next time
        pass


# -- code compiled for any CPU of the target ------------------------------------------------------------
# numba keys cached machine code by the CPU's name and features, so a cache warmed on the build machine
# would compile again on a user's. A wheel or bundle therefore ships code compiled for the target's
# generic CPU (``arcade-lab warm --portable``, which runs with NUMBA_CPU_NAME=generic in its own process);
# our functions' caches load it where no code compiled for this very CPU is cached yet.
PORTABLE_CPU = "generic"


class PortableFunctionCache(_caching.FunctionCache):
    """numba's function cache, falling back to code compiled for :data:`PORTABLE_CPU` of the same target."""

    def _load_overload(self, sig, target_context):
        data = super()._load_overload(sig, target_context)
        if data is None and self._enabled:
            key = self._portable_key(sig, target_context.codegen())
            if key is not None:
                data = self._cache_file.load(key)
                if data is not None:
                    data = self._impl.rebuild(target_context, data)
        return data

    def _portable_key(self, sig, codegen):
        """The index key of ``sig``'s code compiled for :data:`PORTABLE_CPU`; None when that is this CPU."""
        triple, cpu, _features = codegen.magic_tuple()
        if cpu == PORTABLE_CPU:
            return None
        sig_, _magic, code = self._index_key(sig, codegen)
        return sig_, (triple, PORTABLE_CPU, ""), code

    def has_overload(self, sig, target_context) -> bool:
        """Whether code for ``sig`` (this CPU's, or the portable one) is cached, found without loading it: a
        loaded copy would stay in memory, and the loader would bind the shared symbols of every later copy
        (the callees numba links into each) to it."""
        if not self._enabled:
            return False
        codegen = target_context.codegen()
        if self._cache_file.load(self._index_key(sig, codegen)) is not None:
            return True
        key = self._portable_key(sig, codegen)
        return key is not None and self._cache_file.load(key) is not None


def portable(compiled):
    """Give one of our dispatchers or C callbacks the portable fallback (before its first compile)."""
    cache = getattr(compiled, "_cache", None)
    if type(cache) is _caching.FunctionCache:
        cache.__class__ = PortableFunctionCache
    return compiled


class _LeanCompiler(_compiler.CompilerBase):
    """numba's nopython pipeline without the passes a big function of integer code does not need and
    pays for in proportion to its size times its number of variables: SSA reconstruction and the phi
    stripping after it, the inlining of closures, and the array-expression rewrites. The 6502 loop (a
    3 500-line function with thousands of blocks) spent about 40 % of its typing and lowering in them.
    Without SSA a variable has one type throughout the function; in the loop every variable's SSA
    versions already share one (int64, or an integer literal), so the code is the same."""

    _SKIPPED = ("InlineClosureLikes", "ReconstructSSA", "PreLowerStripPhis", "NopythonRewrites")

    def define_pipelines(self):
        self.state.flags.enable_ssa = False
        full = _compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm = _compiler.PassManager("lean nopython")
        pm.passes.extend(p for p in full.passes if p[0].__name__ not in self._SKIPPED)
        pm.finalize()
        return [pm]


def jit(fn=None, lean=False, **kw):
    """``@njit(cache=True, nogil=True)`` — the one decorator for hot code.

    Reference counting is off (``_nrt=False``): hot kernels only index arrays they are handed and never
    allocate, and numba's per-call incref/decref of every array argument otherwise dominates the CPU
    loop (measured: ~200 ns per 6502 instruction with it). Kernels that must allocate
    use ``jit(_nrt=True)``. ``lean``: compile with :class:`_LeanCompiler` (big functions of integer code
    whose variables each keep one type)."""
    opts = dict(cache=True, nogil=True, _nrt=False)
    if lean:
        opts["pipeline_class"] = _LeanCompiler
    opts.update(kw)
    if fn is None:
        return lambda f: portable(njit(**opts)(f))
    return portable(njit(**opts)(fn))


# ---------------------------------------------------------------------------------------------------
# Compilation firewall. numba links the IR of every callee into each caller's module and re-optimises
# the whole closure, so every function that reaches the CPU loop would compile the emulator again
# (~75 times: each game's mode selection, each environment primitive). The heavy kernels are therefore
# compiled once as C callbacks (``cfunc``) and called through a function pointer kept in the state array.
# ---------------------------------------------------------------------------------------------------
from llvmlite import ir as _ir  # noqa: E402
from numba import types as _types  # noqa: E402
from numba.core import cgutils as _cgutils  # noqa: E402
from numba.extending import intrinsic as _intrinsic  # noqa: E402


def _pointer_to(element, name: str, doc: str):
    """An intrinsic ``name(addr)``: the integer ``addr`` as a pointer to ``element`` (for handing an array's
    data to a C callback)."""
    ptr = _types.CPointer(element)

    def typer(typingctx, addr):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(ptr))

        return ptr(addr), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return _intrinsic(typer)


ptr_i64 = _pointer_to(_types.int64, "ptr_i64", "An integer address as ``int64*``.")
ptr_u8 = _pointer_to(_types.uint8, "ptr_u8", "An integer address as ``uint8*``.")


def _pointer_caller(c_sig, name: str, doc: str):
    """An intrinsic ``name(fnaddr, *args)`` calling the C function at the integer address ``fnaddr``, whose
    C signature is ``c_sig`` (a numba signature of ints and pointers)."""

    def codegen(context, builder, signature, args):
        fnty = _ir.FunctionType(context.get_value_type(c_sig.return_type),
                                [context.get_value_type(t) for t in c_sig.args])
        c_args = _cgutils.unpack_tuple(builder, args[1], len(c_sig.args))  # the *args arrive as one tuple
        return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), c_args)

    def typer(typingctx, fnaddr, *args):
        if len(args) != len(c_sig.args):
            return None
        return c_sig.return_type(fnaddr, _types.StarArgTuple.from_types(args)), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return _intrinsic(typer)


class LazyCFunc:
    """A C callback compiled (or loaded from the cache) when its address is first asked for, not when its
    module is imported: importing the engine compiles nothing, and a program that never runs a game, or
    runs one game, never pays for the kernels it does not reach."""

    _lock = threading.RLock()  # one compile at a time: two threads asking for one kernel compile it once

    def __init__(self, sig, fn):
        self.sig, self.py_func, self._compiled = sig, fn, None
        functools.update_wrapper(self, fn)

    def _cfunc(self):
        from numba.core import sigutils
        from numba.core.ccallback import CFunc

        c = CFunc(self.py_func, sigutils.normalize_signature(self.sig), locals={}, options={"nopython": True})
        c.enable_caching()
        return portable(c)

    @property
    def compiled(self):
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    c = self._cfunc()
                    c.compile()
                    self._compiled = c
        return self._compiled

    def in_cache(self) -> bool:
        """Whether asking for ``.address`` would load code from the cache rather than compile."""
        if self._compiled is not None:
            return True
        c = self._cfunc()
        has = getattr(c._cache, "has_overload", None)  # absent when numba's caching is off
        return has is not None and has(c._sig, c._targetdescr.target_context)

    @property
    def address(self) -> int:
        return self.compiled.address


def lazy_cfunc(sig):
    """``@cfunc(sig, cache=True)`` compiled on first use of ``.address`` (see :class:`LazyCFunc`)."""
    return lambda fn: LazyCFunc(sig, fn)


# C signature shared by the firewalled kernels: (state*, n_state, rom*, n_rom, fb*, fb_row, flag) -> int64
KERNEL_SIG = _types.int64(_types.CPointer(_types.int64), _types.int64, _types.CPointer(_types.uint8),
                          _types.int64, _types.CPointer(_types.uint8), _types.int64, _types.int64)
call_kernel = _pointer_caller(KERNEL_SIG, "call_kernel", "Call a ``KERNEL_SIG`` C callback at ``fnaddr``.")

# State-only kernels: (state*, n_state, arg) -> int64
STATE_SIG = _types.int64(_types.CPointer(_types.int64), _types.int64, _types.int64)
call_state_kernel = _pointer_caller(STATE_SIG, "call_state_kernel", "Call a ``STATE_SIG`` C callback at ``fnaddr``.")

# A game's mode selection: (state*, n_state, rom*, n_rom, fb*, fb_row, rng*, n_rng, mode) -> int64
MODE_SIG = _types.int64(_types.CPointer(_types.int64), _types.int64, _types.CPointer(_types.uint8), _types.int64,
                        _types.CPointer(_types.uint8), _types.int64, _types.CPointer(_types.int64), _types.int64,
                        _types.int64)
call_mode_kernel = _pointer_caller(MODE_SIG, "call_mode_kernel", "Call a ``MODE_SIG`` C callback at ``fnaddr``.")

def _element_pointer(context, builder, signature, args):
    """The address of ``array[index]`` for an intrinsic called as ``f(array, index)``."""
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    i = context.cast(builder, args[1], signature.args[1], _types.intp)
    return _cgutils.get_item_pointer(context, builder, aryty, ary, [i])


@_intrinsic
def load_u32(typingctx, data, index):
    """The four bytes ``data[index:index + 4]`` of a uint8 array as one little-endian integer, in one
    unaligned load (no bounds check: the caller keeps ``index + 3`` inside the array). The 6502 loop reads
    an instruction's opcode and operand bytes from ROM this way."""
    if not (isinstance(data, _types.Array) and data.dtype == _types.uint8 and isinstance(index, _types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        word = builder.load(builder.bitcast(ptr, _ir.IntType(32).as_pointer()), align=1)
        if sys.byteorder != "little":
            word = builder.bswap(word)
        return builder.zext(word, _ir.IntType(64))

    return _types.int64(data, index), codegen


@_intrinsic
def store_kept(typingctx, data, index, value):
    """``data[index] = value`` as a store the compiler keeps as written: never merged into vector stores
    (no bounds check). A drawing loop of a few 32-bit stores a span, vectorised, made every device call
    that draws load and spill its vector constants first: Crossbow, whose drawn frames write the TIA ~1 750
    times, stepped 1.11x as fast at frame skip 1 with the TIA's drawing loops stored this way."""
    if not (isinstance(data, _types.Array) and isinstance(data.dtype, _types.Integer)
            and isinstance(index, _types.Integer) and isinstance(value, _types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        v = context.cast(builder, args[2], signature.args[2], signature.args[0].dtype)
        # an atomic store (relaxed: a plain store on x86-64 and ARM64) is one the vectorisers leave alone
        builder.store_atomic(v, ptr, "monotonic", context.get_abi_sizeof(v.type))
        return context.get_dummy_value()

    return _types.none(data, index, value), codegen


# Device accesses from the CPU loop: (state*, rom*, n_rom, fb*, request) -> int64. A call from the loop with
# numba's own convention passes every array as its exploded struct (26 words pushed per TIA write, a
# quarter of the loop's time in Pong); this one passes five.
DEVICE_SIG = _types.int64(_types.CPointer(_types.int64), _types.CPointer(_types.uint8), _types.int64,
                          _types.CPointer(_types.uint8), _types.int64)
call_device = _pointer_caller(DEVICE_SIG, "call_device", "Call a ``DEVICE_SIG`` C callback at ``fnaddr``.")


@_intrinsic
def fetch_add(typingctx, counters, index):
    """``counters[index] += 1`` as one atomic step; returns the old value. Threads of one parallel loop take
    work items from a shared counter this way (numba has no atomics of its own)."""
    if not (isinstance(counters, _types.Array) and counters.dtype == _types.int64
            and isinstance(index, _types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        return builder.atomic_rmw("add", ptr, context.get_constant(_types.int64, 1), "monotonic")

    return _types.int64(counters, index), codegen
