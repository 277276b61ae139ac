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


# -- text over the picture fits the view at any size ------------------------------------------------------
SIZES = [(320, 210), (640, 420), (1600, 1000)]   # the view's minimum, a small window, a large one
BANNERS = ["GAME OVER — press RESET (F2) to play again",
           "ALE 2013 beginner session complete: 5 episodes, mean 12.0 — Session ▸ Export… to save it"]


def _pixels(view: GameView) -> np.ndarray:
    from PySide6.QtGui import QImage

    img = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = img.width(), img.height()
    rows = np.frombuffer(img.constBits(), np.uint8).reshape(h, img.bytesPerLine())
    return rows[:, :3 * w].reshape(h, w, 3).copy()   # (the image owns those bytes)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("text", BANNERS)
def test_bottom_banner_wraps_or_shrinks_to_fit(view, size, text):
    view.resize(*size)
    view.message = text
    r = view.message_rect()
    assert view.rect().contains(r) and r.bottom() == view.height() - 1
    px = _pixels(view).astype(int)
    # the banner's text is yellow (255, 230, 120 and its anti-aliased blends over the dark strip)
    yellow = (px[..., 0] > 120) & (px[..., 0] - px[..., 2] > 60) & (px[..., 1] > 0.6 * px[..., 0])
    assert yellow[r.top():].sum() > 50
    assert not yellow[:, :6].any() and not yellow[:, -6:].any(), "the text runs into the view's edges"
    assert not yellow[:r.top()].any()


@pytest.mark.parametrize("tv", [False, True])
@pytest.mark.parametrize("size", SIZES + [(1920, 1080)])
def test_presentation_score_box_fits_with_all_its_text(view, size, tv):
    view.resize(*size)
    view.aspect_tv = tv
    alone = view.target_rect()
    view.presentation = True
    view.overlay_lines = ["Chopper Command", "Score 1234567", "Lives 3"]
    box = view.overlay_rect()
    assert view.rect().contains(box) and box.height() >= view.height() // 6   # large, yet inside
    picture = view.target_rect()
    assert not box.intersects(picture), "the score box covers the game (its own score is in the corners)"
    assert view.rect().contains(picture) and picture.width() >= 0.6 * alone.width()
    view.show_frame(np.ones((210, 160), np.uint8))                         # a red picture: nothing over it
    red = (_pixels(view)[picture.top():picture.bottom() + 1, picture.left():picture.right() + 1]
           == (255, 0, 0)).all(axis=-1)
    assert red.all()
    view.show_frame(np.zeros((210, 160), np.uint8))
    white = (_pixels(view) == 255).all(axis=-1)                              # the text (the picture is black)
    ys, xs = np.nonzero(white)
    assert len(xs) > 50
    assert box.left() < xs.min() and xs.max() < box.right() and box.top() < ys.min() and ys.max() < box.bottom()
    view.presentation = False
    assert view.overlay_rect().isEmpty() and not (_pixels(view) == 255).all(axis=-1).any()


def test_presentation_shows_the_score_large_enough_for_the_back_of_a_hall(view):
    view.resize(1400, 1000)
    view.presentation = True
    view.overlay_lines = ["Breakout", "Score 35", "Lives 3"]
    view.show_frame(np.zeros((210, 160), np.uint8))
    white = (_pixels(view) == 255).all(axis=-1)
    rows = {text: box for text, _, box in view._overlay_layout()[0]}
    assert list(rows) == ["Breakout", "Score", "35", "Lives", "3"]
    score = rows["35"]
    inked = np.nonzero(white[score.top():score.bottom() + 1, score.left():score.right() + 1].any(axis=1))[0]
    assert inked.max() - inked.min() >= view.height() // 10   # the digits themselves, a tenth of the height
    assert rows["Score"].height() < score.height() / 2          # the name smaller than its value


def test_a_long_corner_badge_stays_inside_the_smallest_view(view):
    view.resize(320, 210)
    view.set_corner("SCORED · ALE 2013 beginner · episode 1/5 · 4:59 left")
    assert view.rect().contains(view._corner_rect())
