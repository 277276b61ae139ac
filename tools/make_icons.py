"""Draw Arcade Lab's icon (a joystick on a TV) at the sizes Linux desktops want: resources/icons/ (the app, the bundle and the desktop entry share them)."""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPen

OUT = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def draw(size: int) -> QImage:
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 64.0
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(QColor("#2b2b2b")))
    p.drawRoundedRect(QRectF(2 * s, 6 * s, 60 * s, 46 * s), 8 * s, 8 * s)        # the TV
    p.setBrush(QBrush(QColor("#1d3a8a")))
    p.drawRoundedRect(QRectF(7 * s, 11 * s, 50 * s, 36 * s), 5 * s, 5 * s)       # the screen
    stripes = ["#e8e84a", "#fcbc74", "#d65c5c", "#b846a2", "#6848c6"]
    for i, c in enumerate(stripes):                                               # a sunset, as in Seaquest
        p.setBrush(QBrush(QColor(c)))
        p.drawRect(QRectF(7 * s, (24 + 2.4 * i) * s, 50 * s, 2.4 * s))
    p.setBrush(QBrush(QColor("#101010")))
    p.drawRoundedRect(QRectF(20 * s, 50 * s, 24 * s, 10 * s), 3 * s, 3 * s)      # joystick base
    p.setPen(QPen(QColor("#101010"), max(1.0, 4 * s), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawLine(QPointF(32 * s, 53 * s), QPointF(38 * s, 38 * s))                  # stick
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(QColor("#d21f1f")))
    p.drawEllipse(QPointF(38.5 * s, 37 * s), 4.5 * s, 4.5 * s)                    # ball top
    p.drawEllipse(QPointF(26 * s, 54 * s), 2.6 * s, 2.6 * s)                       # fire button
    p.end()
    return img


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    OUT.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        draw(size).save(str(OUT / f"arcade-lab-{size}.png"))
    print(f"wrote {len(SIZES)} icons to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
