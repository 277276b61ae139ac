"""Work around a PySide6 6.12.0 reference-count bug: some void QPainter methods (``setPen``, ``drawLine``,
found with a probe) release one reference to ``None`` per call that they never took. Every Python
``paintEvent`` therefore drains ``None``'s count, and after a few minutes of painting at 60 Hz CPython
aborts with "none_dealloc: deallocating None" (seen under X11 with the game view and pyqtgraph plots;
offscreen windows are never exposed, so tests do not paint enough to hit it).

CPython 3.12 made ``None``, ``True`` and ``False`` immortal; on older versions we give them a count so
large that no run can drain it, which is what immortality amounts to. Nothing else changes.
"""
from __future__ import annotations

import ctypes
import sys

_BOOST = 1 << 40   # ~10^12 leaked decrements: decades at thousands of paint calls a second
_done = False


def affected() -> bool:
    try:
        import PySide6
    except Exception:
        return False
    return sys.implementation.name == "cpython" and sys.version_info < (3, 12) and \
        PySide6.__version__.startswith("6.12.")


def guard() -> bool:
    """Apply once when this PySide6 is affected; True when applied."""
    global _done
    if _done or not affected():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _BOOST  # ob_refcnt is the object's first field
    _done = True
    return True
