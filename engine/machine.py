"""The compiled console: power-on, system reset, one video frame (ALE ``TIA::update``), input latching.

A frame runs the CPU for up to 25 000 instructions; it ends when the TIA sees the VSYNC-off write (or the
line limit), otherwise it stays partial, is greyed, and continues at the next call (as in ALE).
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from numba import carray

from ._jit import KERNEL_SIG, call_kernel, jit, lazy_cfunc, ptr_i64, ptr_u8
from .cart_bus import cart_cycles_reset, cart_reset
from .carts import S_DPC
from .cpu import _device_c, _tia_write_undrawn_c, cpu_reset, execute
from .cpu_exec import execute_blocks, execute_counting
from .layout import (
    ACC_OBJS, DEFER_CLK, NODRAW, CYC, MT_IDX, MT0, RAM0, C_SCHEME, C_RESETBANK, C_XRAM_SIZE, C_PAGE, D_RNG, EX_STOP,
    T_FRAMESTART, T_STARTDISP, T_STOPDISP, T_LASTUPD, T_TOEOL, T_FP, T_FBCUR, T_PARTIAL, T_GREYED,
    T_YSTART, T_HEIGHT, T_FRAMEHEIGHT, T_COLORLOSS, T_LINESLAST, T_CURLINE, T_HMBLANKS, T_FRAMES,
    T_COLUBK, T_COLUPF, T_COLUP0, T_COLUP1,
    IN_SWCHA, IN_SWITCHES, IN_FIRE, IN_RES, CFG_CTRL, CFG_PLAYER, CFG_SWAPPADDLES,
    EV_J_UP, EV_J_DOWN, EV_J_LEFT, EV_J_RIGHT, EV_J_FIRE, EV_P_FIRE, EV_P_RES, EV_RESET, EV_SELECT,
    EV_DIFF_A, EV_DIFF_B, EV_COLOR, EV_BW, EV_FIRST, EV_LAST, E_GAME, N_STATE, FB_SIZE, FN_RUN_FRAME, FN_SYSTEM_RESET,
    FN_DEVICE, FN_TIA_UNDRAWN, FN_EXECUTE, FN_BLOCKS,
)
from .riot import riot_cycles_reset, riot_reset
from .rng import mt_next, mt_seed
from .tia import MAX_RESISTANCE, flush_coverage, grey_out_frame, tia_cycles_reset, tia_reset, update_frame

SYSTEM_SEED = 4753849
INSTRUCTIONS_PER_FRAME = 25000
CTRL_JOYSTICK = 0
CTRL_PADDLES = 1


def new_state() -> np.ndarray:
    s = np.zeros(N_STATE, dtype=np.int64)
    s[C_PAGE:C_PAGE + 64] = -1  # no directly readable ROM pages until a cartridge maps them
    s[E_GAME] = -1  # no game's rules until an environment names its game (and installs them)
    install_kernels(s)
    return s


def install_kernels(s: np.ndarray) -> None:
    """Point a state at this process's compiled kernels (after creating it, or naming its game)."""
    from .games import _dispatch  # the rules' kernels (imported late: games depend on this module)

    if _execute_c._compiled is None:
        prepare_core_kernels()
    s[FN_RUN_FRAME] = _run_frame_c.address
    s[FN_SYSTEM_RESET] = _system_reset_c.address
    s[FN_DEVICE] = _device_c.address
    s[FN_TIA_UNDRAWN] = _tia_write_undrawn_c.address
    s[FN_EXECUTE] = execute_blocks_c.address if s[FN_BLOCKS] else _execute_c.address  # (blocks.install)
    _dispatch.install_kernels(s)


def new_framebuffers() -> np.ndarray:
    """Two frame buffers (ALE's current/previous) plus a zeroed scratch row the renderer uses."""
    return np.zeros((3, FB_SIZE), dtype=np.uint8)


@jit
def system_reset_cycles(s):
    c = s[CYC]
    riot_cycles_reset(s, c)
    tia_cycles_reset(s, c)
    cart_cycles_reset(s, c)
    s[CYC] = 0


@jit
def _system_reset_impl(s, rom, fb, pal):
    system_reset_cycles(s)
    riot_reset(s)
    tia_reset(s, fb, pal)
    cart_reset(s)
    cpu_reset(s, rom, fb)


@jit
def _start_frame(s):
    s[T_FBCUR] ^= 1
    clocks = (s[CYC] * 3 - s[T_FRAMESTART]) % 228
    system_reset_cycles(s)
    start = -clocks
    s[T_FRAMESTART] = start
    s[T_STARTDISP] = start + 228 * s[T_YSTART]
    s[T_STOPDISP] = s[T_STARTDISP] + 228 * s[T_HEIGHT]
    s[T_LASTUPD] = s[T_STARTDISP]
    s[T_TOEOL] = 228
    s[T_FP] = 0
    if s[T_COLORLOSS]:
        odd = s[T_LINESLAST] & 1
        for r in (T_COLUBK, T_COLUPF, T_COLUP0, T_COLUP1):
            s[r] = (s[r] | 1) if odd else (s[r] & 0xFE)
    s[T_GREYED] = 0


@jit
def _run_frame_impl(s, rom, fb, draw):
    if not s[T_PARTIAL]:
        _start_frame(s)
    s[T_PARTIAL] = 1
    s[DEFER_CLK] = -(1 << 40)
    call_kernel(s[FN_EXECUTE], ptr_i64(s.ctypes.data), s.shape[0], ptr_u8(rom.ctypes.data), rom.shape[0],
                ptr_u8(fb.ctypes.data), fb.shape[1], 1 if draw else 0)
    if s[DEFER_CLK] > s[T_LASTUPD]:
        update_frame(s, fb, s[DEFER_CLK], draw)  # as the writes the CPU stored itself would have drawn
    if s[ACC_OBJS]:
        flush_coverage(s)  # nothing pending between calls: snapshots are taken there
    s[T_CURLINE] = (s[CYC] * 3 - s[T_FRAMESTART]) // 228
    if s[T_PARTIAL]:
        if not s[T_GREYED]:
            grey_out_frame(s, fb)
        s[T_GREYED] = 1
        return False
    s[T_LINESLAST] = s[T_CURLINE]
    s[T_FRAMES] += 1
    s[T_GREYED] = 0
    return True


# The 6502 loop is a callback of its own: numba optimises a function again in every library that links
# it, so called directly from the frame kernel (itself linked into its callback) the loop, the biggest
# function by far, would be optimised three times on a first start instead of twice.
@lazy_cfunc(KERNEL_SIG)
def _execute_c(sp, ns, rp, nr, fp, nf, flag):
    return execute(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), INSTRUCTIONS_PER_FRAME, flag != 0)


@lazy_cfunc(KERNEL_SIG)
def execute_blocks_c(sp, ns, rp, nr, fp, nf, flag):
    """The loop with a ROM's compiled blocks (``blocks.py``), compiled only where some ROM has them."""
    return execute_blocks(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), INSTRUCTIONS_PER_FRAME,
                          flag != 0)


@lazy_cfunc(KERNEL_SIG)
def execute_counting_c(sp, ns, rp, nr, fp, nf, flag):
    """The loop counting where instructions run (``blocks.count``)."""
    return execute_counting(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), INSTRUCTIONS_PER_FRAME,
                            flag != 0)


@lazy_cfunc(KERNEL_SIG)
def _run_frame_c(sp, ns, rp, nr, fp, nf, flag):
    return 1 if _run_frame_impl(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), flag != 0) else 0


@lazy_cfunc(KERNEL_SIG)
def _system_reset_c(sp, ns, rp, nr, fp, nf, flag):
    _system_reset_impl(carray(sp, (ns,)), carray(rp, (nr,)), carray(fp, (3, nf)), flag != 0)
    return 0


def core_kernels() -> tuple[tuple[str, object], ...]:
    """The emulator's compiled parts, each with what it is (a splash shows them as they compile):
    ``.address`` compiles or loads one. The 6502 loop comes last: :func:`prepare_core_kernels` may be
    compiling it in another process meanwhile."""
    return (("the bus and the TIA", _device_c), ("the TIA's unseen frames", _tia_write_undrawn_c),
            ("the frame loop", _run_frame_c), ("the console's reset", _system_reset_c), ("the 6502", _execute_c))


def prepare_core_kernels(progress=None) -> None:
    """Compile or load the console's kernels; ``progress(k, n, what)`` hears of each before it starts.

    From an empty cache on a machine with a core to spare, the 6502 loop (a third of the emulator's
    compile time, and independent of the rest) compiles in a helper process of this Python while this one
    compiles the others; it then loads the loop from the cache. numba compiles under one lock per process,
    so threads could not do this. Without a helper (one core, a frozen program, a failed start) the loop
    compiles here."""
    parts = core_kernels()
    helper = _compile_aside(_execute_c, f"import {__name__} as m; m._execute_c.address")
    for k, (what, kernel) in enumerate(parts):
        if progress is not None:
            progress(k, len(parts), what)
        if kernel is _execute_c and helper is not None:
            helper.wait()
        kernel.address


def _compile_aside(kernel, code: str):
    """A helper process running ``code`` (which compiles ``kernel`` into the shared cache), or None when
    the kernel is cached already or no second core or separate Python is at hand."""
    if getattr(sys, "frozen", False) or not sys.executable:
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    if cores < 2 or kernel.in_cache():
        return None
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # finds this very package
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None


@jit
def run_frame(s, rom, fb, draw):
    """One ALE ``TIA::update()``. Returns True when the frame finished (else it is partial)."""
    return call_kernel(s[FN_RUN_FRAME], ptr_i64(s.ctypes.data), s.shape[0], ptr_u8(rom.ctypes.data),
                       rom.shape[0], ptr_u8(fb.ctypes.data), fb.shape[1], 1 if draw and s[NODRAW] == 0 else 0) != 0


@jit
def system_reset(s, rom, fb, pal):
    """ALE ``System::reset``: rebase cycles, reset RIOT (timer draw), TIA, cartridge (extra-RAM draws),
    then the CPU (reset vector through the cartridge). RAM is not touched."""
    call_kernel(s[FN_SYSTEM_RESET], ptr_i64(s.ctypes.data), s.shape[0], ptr_u8(rom.ctypes.data),
                rom.shape[0], ptr_u8(fb.ctypes.data), fb.shape[1], 1 if pal else 0)


@jit
def latch_inputs(s):
    """Controllers and switches read the event table (ALE Joystick/Paddles/Switches)."""
    swcha = 0
    for port in range(2):
        player = s[CFG_PLAYER + port]   # jack the controller in this port was built for
        shift = 4 if port == 0 else 0
        if s[CFG_CTRL + port] == CTRL_JOYSTICK:
            bits = 0
            if s[EV_J_UP + player] == 0:
                bits |= 1
            if s[EV_J_DOWN + player] == 0:
                bits |= 2
            if s[EV_J_LEFT + player] == 0:
                bits |= 4
            if s[EV_J_RIGHT + player] == 0:
                bits |= 8
            swcha |= bits << shift
            s[IN_FIRE + port] = 1 if s[EV_J_FIRE + player] == 0 else 0
            s[IN_RES + 2 * port] = MAX_RESISTANCE
            s[IN_RES + 2 * port + 1] = MAX_RESISTANCE
        else:
            # Paddle pair on this jack: paddles 0/1 (left jack) or 2/3 (right jack), optionally swapped.
            first = 2 * player
            if s[CFG_SWAPPADDLES]:
                pin3, pin4, pin5, pin9 = first, first + 1, first, first + 1
            else:
                pin3, pin4, pin5, pin9 = first + 1, first, first + 1, first
            bits = 1 | 2
            if s[EV_P_FIRE + pin3] == 0:
                bits |= 4
            if s[EV_P_FIRE + pin4] == 0:
                bits |= 8
            swcha |= bits << shift
            s[IN_FIRE + port] = 1
            s[IN_RES + 2 * port] = s[EV_P_RES + pin9]
            s[IN_RES + 2 * port + 1] = s[EV_P_RES + pin5]
    s[IN_SWCHA] = swcha
    sw = s[IN_SWITCHES]
    if s[EV_COLOR]:
        sw |= 0x08
    elif s[EV_BW]:
        sw &= ~0x08
    if s[EV_DIFF_A + 1]:
        sw |= 0x80
    elif s[EV_DIFF_B + 1]:
        sw &= ~0x80
    if s[EV_DIFF_A]:
        sw |= 0x40
    elif s[EV_DIFF_B]:
        sw &= ~0x40
    sw = (sw & ~0x02) if s[EV_SELECT] else (sw | 0x02)
    sw = (sw & ~0x01) if s[EV_RESET] else (sw | 0x01)
    s[IN_SWITCHES] = sw & 0xFF


@jit
def clear_events(s):
    for k in range(EV_FIRST, EV_LAST):
        s[k] = 0


@jit
def power_on(s, rom, fb, autodetect, pal_prop):
    """Build the console as ALE's Console constructor does. With ``autodetect``, run the 60-frame
    NTSC/PAL detection (frames 30-59 with more than 285 lines count as PAL). Returns 1 for PAL."""
    mt_seed(s, MT_IDX, MT0, SYSTEM_SEED)
    for k in range(128):
        s[RAM0 + k] = mt_next(s, MT_IDX, MT0) & 0xFF
    riot_reset(s)
    if s[C_SCHEME] == S_DPC:  # its RNG starts at 1 when the cartridge is built
        s[D_RNG] = 1
    latch_inputs(s)
    pal = pal_prop
    if autodetect:
        system_reset(s, rom, fb, False)
        count = 0
        for k in range(60):
            run_frame(s, rom, fb, True)
            if k >= 30 and s[T_CURLINE] > 285:
                count += 1
        pal = 1 if count >= 15 else 0
    return pal


def configure(s: np.ndarray, *, scheme_id: int, reset_bank: int, xram: int, ystart: int, height: int,
              hmove_blanks: bool, ctrl_left: str, ctrl_right: str, swap_ports: bool, swap_paddles: bool,
              left_difficulty: str, right_difficulty: str) -> None:
    """Static cartridge/console properties, before power-on."""
    s[C_SCHEME] = scheme_id
    s[C_RESETBANK] = reset_bank
    s[C_XRAM_SIZE] = xram
    s[T_YSTART] = ystart
    s[T_HEIGHT] = height
    s[T_FRAMEHEIGHT] = max(200, height)
    s[T_HMBLANKS] = 1 if hmove_blanks else 0
    jack_types = [CTRL_PADDLES if ctrl_left == "PADDLES" else CTRL_JOYSTICK,
                  CTRL_PADDLES if ctrl_right == "PADDLES" else CTRL_JOYSTICK]
    for port in range(2):
        jack = (1 - port) if swap_ports else port
        s[CFG_PLAYER + port] = jack
        s[CFG_CTRL + port] = jack_types[jack]
    s[CFG_SWAPPADDLES] = 1 if swap_paddles else 0
    sw = 0xFF
    if right_difficulty == "B":
        sw &= ~0x80
    if left_difficulty == "B":
        sw &= ~0x40
    s[IN_SWITCHES] = sw  # television type COLOR (bit 3 set) for every ROM ALE ships


def screen_rows(s: np.ndarray) -> int:
    return int(s[T_FRAMEHEIGHT])


# keep the stop bit name importable for tests that stop the CPU by hand
__all__ = ["EX_STOP", "power_on", "system_reset", "run_frame", "latch_inputs", "configure"]
