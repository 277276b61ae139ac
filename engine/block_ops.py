"""What the generated blocks (``blocks.py``) call besides the interpreter's own helpers: the write path and
the TIA's deferred stores behind C calls (inlined at every write site they would take most of a block's
compile time), and the few steps every block repeats, each one statement at its site (the generated
function compiles in time proportional to its statements)."""
from __future__ import annotations

from numba import carray

from ._jit import DEVICE_SIG, STATE_SIG, jit, lazy_cfunc
from .cpu import _any, _wr
from .layout import CYC, DBUS, DEFER_CLK, FB_SIZE, LAST_READ, N_STATE, RAM0
from .tia import cpu_write_clock, grp_unseen, quiet_store, stored_in_blank


@lazy_cfunc(DEVICE_SIG)
def _write_c(sp, rp, nr, fp, request):
    """A write from a compiled block (``blocks.py``; ``request`` = address | value << 16 | draw << 24) at the
    cycle in ``s[CYC]``: ``_wr``, the loop's write path, behind a five-argument C call. Returns the cycle
    counter after it."""
    s = carray(sp, (N_STATE,))
    rom = carray(rp, (nr,))
    fb = carray(fp, (3, FB_SIZE))
    return _wr(s, rom, fb, request & 0xFFFF, (request >> 16) & 0xFF, ((request >> 24) & 1) != 0, s[CYC], 1)


QUIET_STORE_WAY, BLANK_STORE_WAY, GRP_UNSEEN_WAY = 0, 1, 2


@lazy_cfunc(STATE_SIG)
def _stored_c(sp, ns, request):
    """One of the write path's ways of storing a TIA register without drawing up to it, for a compiled
    block's write (``blocks.tia_write``): ``request`` = register | way << 6 | value << 8 | cycle << 16, the
    way ``tia.quiet_store``, ``tia.stored_in_blank`` or ``tia.grp_unseen``. Returns 1 when it stored. A C call:
    inlined at every write site these would take most of a block's compile time."""
    s = carray(sp, (ns,))
    r = request & 0x3F
    way = (request >> 6) & 3
    value = (request >> 8) & 0xFF
    cyc = request >> 16
    if way == QUIET_STORE_WAY:
        return 1 if quiet_store(s, r, value, cyc, cyc * 3) else 0
    if way == BLANK_STORE_WAY:
        return 1 if stored_in_blank(s, r, value, cyc) else 0
    return 1 if grp_unseen(s, r, value) else 0


@jit(forceinline=True)
def deferred(s, cyc, clock, r, value):
    """A TIA write stored without drawing up to it (``cpu._wr``'s deferred stores): the bus, and the clock
    the next access draws up to."""
    s[LAST_READ] = 1
    s[DBUS] = value
    at = cpu_write_clock(s, cyc, clock, r)
    if at > s[DEFER_CLK]:
        s[DEFER_CLK] = at


@jit(forceinline=True)
def pointer_read(s, rom, fb, flat, p, y, draw, cyc):
    """(zp),Y's read with its pointer in RIOT RAM at ``p`` ($80-$FE): (value, cycles), one cycle more when
    the index crosses a page."""
    lo = s[RAM0 + (p & 0x7F)]
    hi = s[RAM0 + ((p + 1) & 0x7F)]
    base = lo | (hi << 8)
    addr = (base + y) & 0xFFFF
    if (base ^ addr) & 0xFF00:
        cyc += 1
    return _any(s, rom, fb, flat, addr, draw, cyc, hi)
