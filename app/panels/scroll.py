"""Dock contents inside a scroll area: a dock then asks for almost no height of its own, so the window
fits a laptop screen however many docks share a side (the Scores dock alone wanted 620 px)."""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scrolled(body: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(body)
    return area
