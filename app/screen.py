"""The game view: the palette-indexed screen painted through a colour table, scaled like a TV.

Default pixel aspect is 2:1 (each of the 160 pixels twice as wide as tall) with integer scaling and
letterboxing; "4:3 TV" stretches to a 4:3 picture. Presentation mode adds a large score box in a column
beside the picture. Over the picture: "PAUSED" in the middle while paused, a banner at the bottom
(``message``), a short-lived notice at the top (``flash``) and a small permanent line in the top-right
corner (``corner``: the state slot, or a scored session's badge). Every text is wrapped and sized to fit the
view, however small.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget


MARGIN = 12  # pixels kept free between any text box and the view's edges
PAD = 6      # inside a box, around its text
WRAP = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
SCORE_COLUMN, SCORE_COLUMN_MIN = 0.24, 110  # presentation mode's score column: share of the view, least px


def fitted_font(base: QFont, text: str, width: int, height: int, start_pt: int, min_pt: int = 6,
                flags=WRAP) -> tuple[QFont, QRect]:
    """``base`` at the largest size from ``start_pt`` down whose ``text`` fits ``width`` x ``height``, and
    that text's box. Each line stays whole while a font at least two thirds of ``start_pt`` fits; then the
    text wraps (when ``flags`` ask for it). Below ``min_pt`` it stops shrinking."""
    width, start_pt = max(1, width), max(min_pt, start_pt)
    one_line = flags & ~Qt.TextFlag.TextWordWrap
    # unwrapped while a font not much smaller than asked for fits; wrapped below that
    for fl, lowest in ((one_line, max(min_pt, start_pt * 2 // 3)), (flags, min_pt)):
        f, pt = QFont(base), start_pt
        while True:
            f.setPointSize(pt)
            box = QFontMetrics(f).boundingRect(QRect(0, 0, width, 1 << 20), fl, text)
            if box.width() <= width and box.height() <= height:
                return f, box
            if pt <= lowest:
                break
            pt = max(lowest, pt - max(1, pt // 8))
    return f, box


def color_table(palette: np.ndarray) -> list[int]:
    return [0xFF000000 | (int(r) << 16) | (int(g) << 8) | int(b) for r, g, b in palette]


class GameView(QWidget):
    """Paints only the latest frame it was handed; never queues frames."""

    mouse_x = Signal(float)      # pointer position across the picture, 0..1 (drives paddles)
    mouse_press = Signal(float)  # a left click, where across the picture

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(320, 210)
        self._frame = np.zeros((210, 160), dtype=np.uint8)
        self._table = color_table(np.zeros((256, 3), dtype=np.uint8))
        self.aspect_tv = False
        self.presentation = False
        self.overlay_lines: list[str] = []
        self.message = ""
        self.notice = ""
        self.corner = ""
        self.pause_label = ""
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self._clear_notice)
        self.frames_painted = 0
        self.setAutoFillBackground(False)

    def set_palette(self, palette: np.ndarray) -> None:
        self._table = color_table(palette)

    def show_frame(self, frame: np.ndarray) -> None:
        """Take a copy of the frame (the emulator keeps writing into its own buffer)."""
        if frame.shape != self._frame.shape:
            self._frame = np.array(frame, dtype=np.uint8, copy=True)
        else:
            np.copyto(self._frame, frame)
        self.update()

    def flash(self, text: str, ms: int = 2500) -> None:
        """Show ``text`` at the top of the picture for ``ms`` milliseconds."""
        self.notice = text
        self._notice_timer.start(ms)
        self.update()

    def _clear_notice(self) -> None:
        self.notice = ""
        self.update()

    def set_paused(self, on: bool) -> None:
        text = "PAUSED" if on else ""
        if text != self.pause_label:
            self.pause_label = text
            self.update()

    def set_corner(self, text: str) -> None:
        if text != self.corner:
            self.corner = text
            self.update()

    def frame(self) -> np.ndarray:
        return self._frame

    def target_rect(self) -> QRect:
        """Where the picture is painted: as large as its area holds, centred in it."""
        return self._fit_picture(self._picture_area())

    def _fit_picture(self, area: QRect) -> QRect:
        h, w = self._frame.shape
        W, H = area.width(), area.height()
        if self.aspect_tv:
            # a 4:3 picture as large as fits
            ph = min(H, int(W * 3 / 4))
            pw = int(ph * 4 / 3)
        else:
            scale = max(1, min(W // (2 * w), H // h))
            pw, ph = 2 * w * scale, h * scale
            # smaller than 1x, or presenting (as large as fits, whole multiples or not): shrink keeping 2:1
            if W < pw or H < ph or self.presentation:
                f = min(W / (2 * w), H / h)
                pw, ph = int(2 * w * f), int(h * f)
        return QRect(area.x() + (W - pw) // 2, area.y() + (H - ph) // 2, pw, ph)

    def _score_column(self) -> int:
        """Presentation mode's score sits in a column left of the picture, never over it (the game's own
        score is often in the picture's top corners): the strip the picture leaves when that is wide
        enough, else a share of the view the picture gives up."""
        if not (self.presentation and self.overlay_lines):
            return 0
        strip = self._fit_picture(self.rect()).x()
        return max(strip, min(self.width() // 2, max(SCORE_COLUMN_MIN, int(self.width() * SCORE_COLUMN))))

    def _picture_area(self) -> QRect:
        column = self._score_column()
        if column == 0 or self._fit_picture(self.rect()).x() >= column:
            return self.rect()
        return QRect(column, 0, self.width() - column, self.height())

    def _across(self, event) -> float | None:
        r = self.target_rect()
        return min(max((event.position().x() - r.x()) / r.width(), 0.0), 1.0) if r.width() > 0 else None

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        x = self._across(event)
        if x is not None:
            self.mouse_x.emit(x)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        x = self._across(event)
        if x is not None and event.button() == Qt.MouseButton.LeftButton:
            self.mouse_press.emit(x)
        super().mousePressEvent(event)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(160 * 2 * 3, 210 * 3)

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(0, 0, 0))
        h, w = self._frame.shape
        # Wrapped afresh on every paint (no copy: the QImage views our array), so the picture always
        # shows the latest pixels, frame shape and colour table.
        image = QImage(self._frame.data, w, h, w, QImage.Format.Format_Indexed8)
        image.setColorTable(self._table)
        p.drawImage(self.target_rect(), image)
        if self.presentation and self.overlay_lines:
            self._paint_overlay(p)
        if self.pause_label:
            self._paint_pause(p)
        if self.notice:
            self._paint_notice(p)
        if self.corner:
            self._paint_corner(p)
        if self.message:
            self._paint_message(p)
        p.end()
        self.frames_painted += 1

    # -- text over the picture: every box is laid out to fit the view, at any window size -------------
    def message_rect(self) -> QRect:
        """The bottom banner (game over, end of session): full width, as tall as its wrapped text."""
        return self._message_layout()[1]

    def _message_layout(self) -> tuple[QFont, QRect, QRect]:
        W, H = self.width(), self.height()
        f, box = fitted_font(self.font(), self.message, W - 2 * MARGIN, H // 3, max(12, H // 30))
        strip = QRect(0, H - box.height() - 2 * PAD, W, box.height() + 2 * PAD)
        return f, strip, strip.adjusted(MARGIN, PAD, -MARGIN, -PAD)

    def _paint_message(self, p: QPainter) -> None:
        f, strip, text = self._message_layout()
        p.setFont(f)
        p.fillRect(strip, QColor(0, 0, 0, 160))
        p.setPen(QColor(255, 230, 120))
        p.drawText(text, WRAP, self.message)

    def overlay_rect(self) -> QRect:
        """Presentation mode's score box (top left, beside the picture): empty when nothing is shown."""
        if not (self.presentation and self.overlay_lines):
            return QRect()
        return self._overlay_layout()[1]

    def _overlay_rows(self) -> list[tuple[str, bool]]:
        """(text, whether it is a value): the title, then each figure's name above its value ("Score 12" →
        "Score", "12"). Read from the back of a hall, the value is what matters."""
        rows = [(self.overlay_lines[0], False)]
        for line in self.overlay_lines[1:]:
            name, _, value = line.rpartition(" ")
            rows += [(name, False), (value, True)] if name and value.lstrip("-").isdigit() else [(line, False)]
        return rows

    def _overlay_layout(self) -> tuple[list[tuple[str, QFont, QRect]], QRect]:
        """Each row's text, font and box, and the whole box: values as large as the column's width allows
        (up to a fifth of the view's height), names and the title smaller."""
        H = self.height()
        width = self._score_column() - 2 * MARGIN - 2 * PAD
        rows = self._overlay_rows()
        values = sum(1 for _, value in rows if value)
        room = H - 2 * MARGIN - 2 * PAD
        small = room // (3 * len(rows))                       # a name's or the title's height at most
        big = min(H // 5, (room - small * (len(rows) - values)) // max(1, values))
        base = QFont(self.font())
        base.setBold(True)
        laid, y, right = [], MARGIN + PAD, 0
        for text, value in rows:
            flags = Qt.AlignmentFlag.AlignLeft | (Qt.TextFlag(0) if value else Qt.TextFlag.TextWordWrap)
            f, box = fitted_font(base, text, width, big if value else small, big if value else small, flags=flags)
            laid.append((text, f, QRect(MARGIN + PAD, y, box.width(), box.height())))
            y += box.height()
            right = max(right, box.width())
        return laid, QRect(MARGIN, MARGIN, right + 2 * PAD, y + PAD - MARGIN)

    def _paint_overlay(self, p: QPainter) -> None:
        laid, outer = self._overlay_layout()
        p.fillRect(outer, QColor(0, 0, 0, 170))
        p.setPen(QColor(255, 255, 255))
        for text, f, box in laid:
            p.setFont(f)
            p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap, text)

    def _paint_pause(self, p: QPainter) -> None:
        base = QFont(self.font())
        base.setBold(True)
        f, _ = fitted_font(base, self.pause_label, self.width() - 2 * MARGIN, self.height() // 2,
                           max(16, self.height() // 14))
        p.setFont(f)
        r = self.rect()
        p.setPen(QColor(0, 0, 0, 200))
        p.drawText(r.translated(3, 3), Qt.AlignmentFlag.AlignCenter, self.pause_label)  # a shadow: any picture
        p.setPen(QColor(255, 255, 255))
        p.drawText(r, Qt.AlignmentFlag.AlignCenter, self.pause_label)

    def _paint_notice(self, p: QPainter) -> None:
        f = QFont(self.font())
        f.setPointSize(max(11, self.height() // 42))
        f.setBold(True)
        p.setFont(f)
        fm = p.fontMetrics()
        flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
        box = fm.boundingRect(QRect(0, 0, max(40, self.width() - 40), self.height()), flags, self.notice)
        r = box.adjusted(-12, -6, 12, 6)
        r.moveCenter(self.rect().center())
        r.moveTop(self._corner_rect().bottom() + 8 if self.corner else 12)  # under the corner line
        p.fillRect(r, QColor(0, 0, 0, 190))
        p.setPen(QColor(255, 255, 255))
        p.drawText(r, flags, self.notice)

    def _corner_font(self) -> QFont:
        f, _ = fitted_font(self.font(), self.corner, self.width() - 8 - 12, self.height() // 8,
                           max(9, self.height() // 60), min_pt=7, flags=Qt.AlignmentFlag.AlignLeft)
        return f

    def _corner_line(self) -> str:
        """The corner text, cut short with an ellipsis when even the smallest font is too wide."""
        fm = QFontMetrics(self._corner_font())
        return fm.elidedText(self.corner, Qt.TextElideMode.ElideRight, max(10, self.width() - 8 - 12))

    def _corner_rect(self) -> QRect:
        fm = QFontMetrics(self._corner_font())
        r = QRect(0, 0, fm.horizontalAdvance(self._corner_line()) + 12, fm.height() + 6)
        r.moveTopRight(self.rect().topRight() + QPoint(-4, 4))
        return r

    def _paint_corner(self, p: QPainter) -> None:
        p.setFont(self._corner_font())
        r = self._corner_rect()
        p.fillRect(r, QColor(0, 0, 0, 150))
        p.setPen(QColor(200, 220, 255))
        p.drawText(r, Qt.AlignmentFlag.AlignCenter, self._corner_line())
