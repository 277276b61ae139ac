"""The window of ALE's ``display_screen`` and AtariEnv's ``render_mode="human"`` (pygame-ce, imported
only when a window opens). It shows each act's last frame and keeps the console's pace: an act of N
frames is shown N/60 s (N/50 s on PAL) after the one before. No sound is played."""
from __future__ import annotations

import time

import numpy as np

# ALE's window: each Atari pixel 2 wide and 2 high, so a 160x210 frame shows as 320x420
SCALE = 2


def _keeping_signals(start) -> None:
    """``start()`` (SDL's start-up), leaving the program's SIGTERM and SIGINT handling as it was: SDL takes
    any of the two still at its default for quit events of its own, so ``kill`` (or a cluster's SIGTERM
    before its SIGKILL) would no longer stop the program once a window had opened. Python can only
    reinstate handlers from the main thread; from other threads SDL keeps what it took."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        start()
        return
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    start()
    for sig, handler in kept.items():
        if handler is not None:   # (None: a handler not set from Python, which there is no way to put back)
            signal.signal(sig, handler)


class Window:
    def __init__(self, title: str = "Arcade Lab"):
        import pygame

        self._pg = pygame
        _keeping_signals(pygame.display.init)
        self._title = title
        self._screen = None
        self._due = 0.0
        self.closed = False

    def show(self, rgb: np.ndarray, frames: int = 1, fps: float = 60.0) -> None:
        """Draw an (H, 160, 3) frame, after waiting out the previous act's ``frames`` at ``fps``."""
        if self.closed:
            return
        pg = self._pg
        h, w = rgb.shape[:2]
        if self._screen is None or self._screen.get_size() != (w * SCALE, h * SCALE):
            self._screen = pg.display.set_mode((w * SCALE, h * SCALE))
            pg.display.set_caption(self._title)
        for event in pg.event.get():
            if event.type == pg.QUIT:
                self.close()
                return
        surface = pg.surfarray.make_surface(np.ascontiguousarray(rgb.swapaxes(0, 1)))
        self._screen.blit(pg.transform.scale(surface, (w * SCALE, h * SCALE)), (0, 0))
        now = time.perf_counter()
        if self._due > now:
            time.sleep(self._due - now)
        pg.display.flip()
        self._due = max(now, self._due) + frames / fps

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._pg.display.quit()
