"""The game view paints what it was last handed: new pixels, a new colour table, a new frame shape."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
from arcade_lab.app.screen import GameView  # noqa: E402


def _palette(*colours: tuple[int, int, int]) -> np.ndarray:
    pal = np.zeros((256, 3), dtype=np.uint8)
    for i, c in enumerate(colours):
        pal[i] = c
    return pal


def _centre_rgb(view: GameView) -> tuple[int, int, int]:
    img = view.grab().toImage()
    c = img.pixelColor(img.width() // 2, img.height() // 2)
    return c.red(), c.green(), c.blue()


@pytest.fixture
def view(qtbot):
    v = GameView()
    qtbot.addWidget(v)
    v.resize(640, 420)
    v.set_palette(_palette((0, 0, 0), (255, 0, 0), (0, 0, 255)))
    return v


def test_in_place_frame_update_is_painted(view):
    view.show_frame(np.full((210, 160), 1, dtype=np.uint8))
    assert _centre_rgb(view) == (255, 0, 0)
    view.show_frame(np.full((210, 160), 2, dtype=np.uint8))   # same shape: copied into the same buffer
    assert _centre_rgb(view) == (0, 0, 255)


def test_palette_change_is_painted(view):
    view.show_frame(np.full((210, 160), 1, dtype=np.uint8))
    assert _centre_rgb(view) == (255, 0, 0)
    view.set_palette(_palette((0, 0, 0), (0, 255, 0)))
    assert _centre_rgb(view) == (0, 255, 0)


def test_new_frame_shape_is_painted(view):
    view.show_frame(np.full((210, 160), 1, dtype=np.uint8))
    view.show_frame(np.full((250, 160), 2, dtype=np.uint8))
    assert view.frame().shape == (250, 160)
    assert _centre_rgb(view) == (0, 0, 255)
