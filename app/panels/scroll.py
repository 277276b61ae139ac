"""Dock contents inside a scroll area: a dock then asks for almost no height of its own, so the window
fits a laptop screen however many docks share a side (the Scores dock alone wanted 620 px)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QFrame, QGraphicsView, QScrollArea, QWidget


class _WheelScrolls(QObject):
    """The mouse wheel over a figure scrolls the dock: a person rolling down the dock meant that, not a zoom
    of whichever figure passed under the pointer."""

    def __init__(self, area: QScrollArea):
        super().__init__(area)
        self.area = area

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Wheel:
            QApplication.sendEvent(self.area.verticalScrollBar(), event)
            return True
        return False


def scrolled(body: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(body)
    wheel = _WheelScrolls(area)
    for view in body.findChildren(QGraphicsView):
        view.viewport().installEventFilter(wheel)
    return area


def fixed(plot) -> None:
    """A pyqtgraph figure that follows its data only: no panning or zooming by mouse, no context menu,
    so a stray drag never leaves it showing an empty corner with no way back."""
    plot.setMouseEnabled(x=False, y=False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
