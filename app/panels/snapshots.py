"""Save-state dock: the loaded game's slots with thumbnails and times; load, rename, delete, export, import.

The file format and slot folders are :mod:`app.statefile` (Qt-free); this panel only lists and asks.
A damaged file is listed as damaged (never loaded, never a crash)."""
from __future__ import annotations

import re
import time
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QHBoxLayout, QInputDialog, QListWidget, QListWidgetItem,
                               QMessageBox, QPushButton, QVBoxLayout, QWidget)

from ..statefile import SUFFIX, Slots, StateFileError


class SnapshotsPanel(QDockWidget):
    load_requested = Signal(int)      # slot
    error = Signal(str)
    done = Signal(str)                # what an action did, for the status bar

    def __init__(self, slots: Slots, parent=None):
        super().__init__("Save states", parent)
        self.setObjectName("snapshots")
        self.slots = slots
        self.md5: str | None = None
        self.title = ""
        w = QWidget(self)
        lay = QVBoxLayout(w)
        self.list = QListWidget(w)
        self.list.setIconSize(QSize(80, 105))
        self.list.itemActivated.connect(lambda it: self.load_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        lay.addWidget(self.list)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for text, slot in (("Load", self._load), ("Rename…", self._rename), ("Delete", self._delete),
                           ("Export…", self._export), ("Import…", self._import)):
            b = self.buttons[text] = QPushButton(text, w)
            b.clicked.connect(slot)
            row.addWidget(b)
        lay.addLayout(row)
        self.setWidget(w)
        self.list.currentItemChanged.connect(self._enable)
        self._enable()

    def _enable(self, *_) -> None:
        """What acts on one state waits for a state to be chosen (a click that did nothing said nothing)."""
        chosen = self.list.currentItem() is not None
        for text in ("Load", "Rename…", "Delete", "Export…"):
            self.buttons[text].setEnabled(chosen)
            self.buttons[text].setToolTip("" if chosen else "Choose a state in the list first")

    def set_game(self, md5: str | None, title: str = "") -> None:
        self.md5, self.title = md5, title
        self.refresh()

    def refresh(self) -> None:
        self.list.clear()
        if not self.md5:
            return
        for e in self.slots.entries(self.md5):
            if e.state is None:
                item = QListWidgetItem(f"Slot {e.slot}: damaged — {e.error}")
            else:
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.state.created))
                label = f" “{e.state.label}”" if e.state.label else ""
                item = QListWidgetItem(f"Slot {e.slot}{label}\n{when} · frame {e.state.frame}")
                img = QImage.fromData(e.state.png, "PNG")
                if not img.isNull():
                    item.setIcon(QIcon(QPixmap.fromImage(img)))
            item.setData(Qt.ItemDataRole.UserRole, e.slot)
            self.list.addItem(item)
        self._enable()

    def _current(self) -> int | None:
        it = self.list.currentItem()
        return None if it is None else it.data(Qt.ItemDataRole.UserRole)

    def _load(self) -> None:
        slot = self._current()
        if slot is not None:
            self.load_requested.emit(slot)

    def _rename(self) -> None:
        slot = self._current()
        if slot is None or not self.md5:
            return
        text, ok = QInputDialog.getText(self, "Rename state", "Label:")
        if ok:
            self._try(lambda: self.slots.rename(self.md5, slot, text))

    def _delete(self) -> None:
        """Delete the chosen state once the person says so (there is no undo)."""
        slot = self._current()
        if slot is None or not self.md5:
            return
        label = self.list.currentItem().text().split("\n")[0]
        if QMessageBox.question(self, "Delete state", f"Delete {label} of {self.title}? It cannot be undone.",
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                QMessageBox.StandardButton.No) == QMessageBox.StandardButton.Yes:
            self._try(lambda: self.slots.delete(self.md5, slot))

    def _export(self) -> None:
        slot = self._current()
        if slot is None or not self.md5:
            return
        # named for its game, in the home folder (a bare name opened the dialog wherever the app started)
        name = re.sub(r"[^\w]+", "-", self.title).strip("-").lower() or "state"
        path, _ = QFileDialog.getSaveFileName(self, "Export state", str(Path.home() / f"{name}-slot-{slot}{SUFFIX}"),
                                              f"Save states (*{SUFFIX})")
        if path:
            self._try(lambda: self.slots.export(self.md5, slot, path))

    def _import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import state", "", f"Save states (*{SUFFIX});;All files (*)")
        if path:
            def imported():
                slot = self.slots.import_file(path, self.md5, self.title)[1]
                self.done.emit(f"Imported into slot {slot}")   # (over an earlier refusal's message)
            self._try(imported)

    def _try(self, fn) -> None:
        try:
            fn()
        except (StateFileError, OSError) as e:
            self.error.emit(str(e))
        self.refresh()
