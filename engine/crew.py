"""Helper threads that wait inside compiled code, for kernels that split one call's work between threads.

Handing work to a Python thread pool costs about 60 µs a call on two cores: the helper must take the GIL
to start the kernel while the caller holds it to start its own share. A crew's helpers never come back
to Python between calls: each runs a compiled loop (the caller's ``serve`` kernel) that parks on a
generation counter, runs its share when the counter moves, counts itself done, and parks again. The
caller moves the counter, runs its own share and waits for the count, all in one compiled call.

Parking spins briefly (a step of a vector environment usually follows the last within tens of
microseconds) and then sleeps in the kernel (Linux ``futex``), so idle helpers cost nothing and a busy
machine's other programs get the cores. Where there is no futex (other systems, other processors) the
caller keeps its thread pool (:func:`available`).
"""
from __future__ import annotations

import ctypes
import os
import platform
import sys
import threading
import weakref

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import _element_pointer, _pointer_caller, jit

# ctl: one int64 array per crew, each word on its own cache line (the futex reads a word's low 32 bits)
LINE = 8
C_GEN, C_DONE, C_STOP, C_SLEEPERS, C_LEAD_SLEEPS, C_SYSCALL = (k * LINE for k in range(6))
C_NR, C_HELPERS, C_SPINS = C_SYSCALL + 1, C_SYSCALL + 2, C_SYSCALL + 3  # read-only: on the syscall's line
CTL_SIZE = 6 * LINE
SPINS = 2000  # polls (each with the spin-wait hint, 25-40 ns) before a parked thread sleeps: ~50-80 µs
FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 128, 129
_FUTEX_NR = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}


def _futex_number() -> int | None:
    if not sys.platform.startswith("linux") or sys.byteorder != "little":
        return None
    return _FUTEX_NR.get(platform.machine().lower())


def available() -> bool:
    """Whether crews run here (Linux on x86-64 or ARM64); elsewhere callers use their thread pools."""
    return _futex_number() is not None and os.environ.get("ARCADE_LAB_CREW", "1") != "0"


@intrinsic
def atomic_load(typingctx, words, index):
    """``words[index]`` read with acquire ordering (what another thread stored before its release is seen)."""
    if not (isinstance(words, types.Array) and words.dtype == types.int64 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        value = builder.load_atomic(ptr, "acquire", 8)
        return value

    return types.int64(words, index), codegen


@intrinsic
def atomic_add(typingctx, words, index, delta):
    """``words[index] += delta`` as one sequentially consistent step; returns the old value."""
    if not (isinstance(words, types.Array) and words.dtype == types.int64 and isinstance(index, types.Integer)
            and isinstance(delta, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature, args)
        d = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", ptr, d, "seq_cst")

    return types.int64(words, index, delta), codegen


_ARCH = platform.machine().lower()


@intrinsic
def spin_pause(typingctx):
    """The processor's spin-wait hint (x86 ``pause``, ARM ``yield``): a polling loop leaves the core's other
    hardware thread its share and burns less power."""
    def codegen(context, builder, signature, args):
        module = builder.module
        if _ARCH in ("x86_64", "amd64"):
            fn = cgutils.get_or_insert_function(module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause")
            builder.call(fn, [])
        elif _ARCH in ("aarch64", "arm64"):
            hint = ir.FunctionType(ir.VoidType(), [ir.IntType(32)])
            builder.call(cgutils.get_or_insert_function(module, hint, "llvm.aarch64.hint"),
                         [ir.Constant(ir.IntType(32), 1)])  # 1: YIELD
        return context.get_dummy_value()

    return types.none(), codegen


_SYSCALL_SIG = types.int64(types.int64, types.int64, types.int64, types.int64, types.int64, types.int64)
_call_syscall = _pointer_caller(_SYSCALL_SIG, "_call_syscall", "libc ``syscall(n, a, b, c, d, e)`` at an address.")


@jit
def _futex(ctl, slot, op, value):
    _call_syscall(ctl[C_SYSCALL], ctl[C_NR], ctl.ctypes.data + slot * 8, op, value & 0xFFFFFFFF, 0, 0)


@jit
def _await_change(ctl, slot, seen, sleepers):
    """Wait until ``ctl[slot]`` is no longer ``seen``; returns its new value. ``sleepers``: the word that
    counts threads asleep on this slot (whoever changes it wakes them when there are any)."""
    for _ in range(ctl[C_SPINS]):
        v = atomic_load(ctl, slot)
        if v != seen:
            return v
        spin_pause()
    while True:
        atomic_add(ctl, sleepers, 1)
        v = atomic_load(ctl, slot)
        if v == seen:  # the futex sleeps only while the word still holds ``seen``: no wake-up is lost
            _futex(ctl, slot, FUTEX_WAIT_PRIVATE, seen)
        atomic_add(ctl, sleepers, -1)
        v = atomic_load(ctl, slot)
        if v != seen:
            return v


@jit
def _bump(ctl, slot, sleepers):
    """Move ``ctl[slot]`` on by one and wake whoever sleeps on it."""
    atomic_add(ctl, slot, 1)
    if atomic_load(ctl, sleepers) > 0:
        _futex(ctl, slot, FUTEX_WAKE_PRIVATE, 0x7FFFFFFF)


@jit
def park(ctl, seen):
    """A helper's wait for the next call: returns the new generation, or -1 when the crew is stopping."""
    gen = _await_change(ctl, C_GEN, seen, C_SLEEPERS)
    return -1 if atomic_load(ctl, C_STOP) != 0 else gen


@jit
def done(ctl):
    """A helper's share of this call is finished."""
    _bump(ctl, C_DONE, C_LEAD_SLEEPS)


@jit
def start(ctl):
    """The caller's side, before its own share: set the helpers going. Returns the count that means all
    of them are done (pass it to :func:`join`)."""
    target = atomic_load(ctl, C_DONE) + ctl[C_HELPERS]
    _bump(ctl, C_GEN, C_SLEEPERS)
    return target


@jit
def join(ctl, target):
    """The caller's side, after its own share: wait until every helper has counted itself done."""
    d = atomic_load(ctl, C_DONE)
    while d < target:
        d = _await_change(ctl, C_DONE, d, C_LEAD_SLEEPS)


def _syscall_address() -> int:
    return ctypes.cast(ctypes.CDLL(None).syscall, ctypes.c_void_p).value


class Crew:
    """``helpers`` threads each running ``serve(t, ctl, *args)`` (t = 1..helpers), a compiled loop of the
    form ``gen = 0; while (gen := park(ctl, gen)) >= 0: <share t>; done(ctl)``. The caller's compiled
    entry does ``target = start(ctl); <share 0>; join(ctl, target)``.

    The threads stop with :meth:`stop`, when the crew is garbage collected, or at exit. A forked child
    has none of its parent's threads: :meth:`ready` starts its own."""

    def __init__(self, serve, helpers: int, args: tuple):
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64)
        self.ctl[C_SYSCALL] = _syscall_address()
        self.ctl[C_NR] = _futex_number()
        self.ctl[C_HELPERS] = helpers
        self.ctl[C_SPINS] = SPINS
        self._serve, self._helpers, self._args = serve, helpers, args
        self._threads: list[threading.Thread] = []
        self._pid = None
        self._finalizer = None

    def ready(self) -> np.ndarray:
        """The control words, with the helpers running in this process."""
        if self._pid != os.getpid():
            self._launch()
        return self.ctl

    def _launch(self) -> None:
        ctl = self.ctl
        ctl[C_GEN] = ctl[C_DONE] = ctl[C_STOP] = ctl[C_SLEEPERS] = ctl[C_LEAD_SLEEPS] = 0
        self._threads = [threading.Thread(target=self._serve, args=(t, ctl, *self._args), daemon=True,
                                          name=f"arcade-lab-crew-{t}") for t in range(1, self._helpers + 1)]
        for th in self._threads:
            th.start()
        self._pid = os.getpid()
        self._finalizer = weakref.finalize(self, _stop, ctl, self._threads)

    def stop(self) -> None:
        if self._finalizer is not None and self._pid == os.getpid():
            self._finalizer()
        self._pid = None


def _stop(ctl: np.ndarray, threads: list[threading.Thread]) -> None:
    ctl[C_STOP] = 1
    _bump(ctl, C_GEN, C_SLEEPERS)
    for th in threads:
        th.join()
