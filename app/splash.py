"""First start: compiling the emulator takes a while, so a splash shows which part is compiling (k of n)
instead of a frozen window. The compiled code is cached; later starts load it in about a second."""
from __future__ import annotations

import threading
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPixmap
from PySide6.QtWidgets import QApplication, QSplashScreen


def _warm(state: dict, game: str = "pong") -> None:
    try:
        state["step"] = "Loading the emulator…"
        from arcade_lab.engine import env as _env
        from arcade_lab.engine import machine

        n = len(machine.core_kernels()) + 1

        def step(k, _n, what):
            state["step"] = f"Compiling {what} ({k + 1} of {n})…"

        machine.prepare_core_kernels(step)
        state["step"] = f"Compiling the game's rules and the environment ({n} of {n})…"
        e = _env.Env(game, repeat_action_probability=0.0, seed=0)
        e.act(0)
        state["step"] = "Opening the window…"
        from . import window as _window  # noqa: F401
        from arcade_lab.engine._jit import mark_cache_warm

        mark_cache_warm()
    except Exception as exc:  # the window will show the real error
        state["error"] = exc
    finally:
        state["done"] = True


def warm_up(app: QApplication, show_after: float = 0.4, game: str = "pong") -> float:
    """Load/compile the engine in a thread; show a splash if it takes longer than ``show_after`` s. With a
    cache known to be complete the loading happens right here: a thread would only add GIL hand-offs with
    the event loop (measured ~0.8 s of a 2 s start)."""
    state = {"done": False, "step": "Starting…"}
    t0 = time.perf_counter()
    from arcade_lab.engine._jit import cache_warm

    if cache_warm():
        _warm(state, game)  # an error is left for the window to show, as on the threaded path
        return time.perf_counter() - t0
    th = threading.Thread(target=_warm, args=(state, game), daemon=True)
    th.start()
    splash = None
    while not state["done"]:
        if splash is None and time.perf_counter() - t0 > show_after:
            pm = QPixmap(520, 200)
            pm.fill(QColor(20, 30, 70))
            splash = QSplashScreen(pm)
            f = QFont(splash.font())
            f.setPointSize(12)
            splash.setFont(f)
            splash.show()
        if splash is not None:
            elapsed = time.perf_counter() - t0
            splash.showMessage(f"Arcade Lab\n\n{state['step']}\nThe first start compiles the emulator "
                               f"for this computer; later starts load it.\n{elapsed:.0f} s",
                               Qt.AlignmentFlag.AlignCenter, QColor(255, 255, 255))
        app.processEvents()
        th.join(0.05)
    if splash is not None:
        splash.close()
    return time.perf_counter() - t0
