"""Library thumbnails rendered from each game's first screens, cached on disk by ROM md5."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QThread, Signal
from PySide6.QtGui import QImage

THUMB_FRAMES = 150   # frames after ALE's reset before the picture is taken
THUMB_VERSION = 1


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("arcade-lab", appauthor=False)) / f"thumbnails-v{THUMB_VERSION}"


def render_rgb(rom_path, frames: int = THUMB_FRAMES) -> np.ndarray:
    """The screen (RGB, H x 160) after the reset choreography and ``frames`` NOOP frames."""
    from arcade_lab.engine.env import Env

    env = Env(rom_path, repeat_action_probability=0.0, seed=0)
    for _ in range(frames):
        env.act(0)
    return env.screen_rgb()


def to_qimage(rgb: np.ndarray) -> QImage:
    h, w, _ = rgb.shape
    doubled = np.ascontiguousarray(np.repeat(rgb, 2, axis=1))
    img = QImage(doubled.data, 2 * w, h, 6 * w, QImage.Format.Format_RGB888)
    return img.copy()


def thumbnail(info) -> QImage | None:
    """Cached thumbnail for a catalog entry, rendered on a miss (None if the ROM cannot run)."""
    path = cache_dir() / f"{info.md5}.png"
    if path.exists():
        img = QImage(str(path))
        if not img.isNull():
            return img
    try:
        img = to_qimage(render_rgb(info.path))
    except Exception:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(str(path))
    return img


class ThumbnailLoader(QThread):
    """Renders thumbnails in the background and hands them out one by one."""

    ready = Signal(str, QImage)   # md5, image

    def __init__(self, infos, parent=None):
        super().__init__(parent)
        self.infos = list(infos)
        self._stop = False

    def stop(self) -> None:
        self._stop = True

    def run(self) -> None:
        for info in self.infos:
            if self._stop:
                return
            img = thumbnail(info)
            if img is not None and not self._stop:
                self.ready.emit(info.md5, img)


