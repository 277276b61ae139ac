"""The game library: every catalogued ROM with its thumbnail, searchable by typing; open files/folders."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QHBoxLayout, QLineEdit, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from arcade_lab.engine import roms


class LibraryPanel(QDockWidget):
    game_chosen = Signal(object)      # a RomInfo
    folder_added = Signal(str)

    def __init__(self, parent=None, settings=None):
        super().__init__("Games", parent)
        self.settings = settings   # remembers the folder the file dialogs last used
        self.setObjectName("library")
        w = QWidget(self)
        lay = QVBoxLayout(w)
        self.search = QLineEdit(w)
        self.search.setPlaceholderText("Search games… (type to filter)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.search.returnPressed.connect(self._open_match)
        self.search.installEventFilter(self)   # Up and Down move the highlight through the matches
        lay.addWidget(self.search)
        self.list = QListWidget(w)
        self.list.setIconSize(QSize(80, 52))
        self.list.setUniformItemSizes(True)
        self.list.itemActivated.connect(self._activated)
        lay.addWidget(self.list)
        row = QHBoxLayout()
        self.open_file = QPushButton("Open ROM…", w)
        self.open_folder = QPushButton("Add folder…", w)
        self.open_file.clicked.connect(self._open_file)
        self.open_folder.clicked.connect(self._open_folder)
        row.addWidget(self.open_file)
        row.addWidget(self.open_folder)
        lay.addLayout(row)
        self.setWidget(w)
        self.infos: list = []
        self.items_by_md5: dict[str, QListWidgetItem] = {}
        self.extra_paths: list[str] = []

    def populate(self, infos) -> None:
        self.list.clear()
        self.items_by_md5.clear()
        self.infos = list(infos)
        # every row as tall as with its thumbnail from the start: rows growing as thumbnails arrive moved
        # the list under a row scrolled into view (the game being played)
        blank = QPixmap(self.list.iconSize())
        blank.fill(Qt.GlobalColor.transparent)
        for info in self.infos:
            label = f"{info.title}\n{info.id}" + ("" if info.supported else "  (no game rules)")
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, info)
            item.setIcon(QIcon(blank))
            item.setToolTip(f"{info.title} — {info.path}\nmd5 {info.md5}, {info.scheme}, {info.rules_label}")
            self.list.addItem(item)
            self.items_by_md5[info.md5] = item
        self._filter(self.search.text())

    def set_thumbnail(self, md5: str, image: QImage) -> None:
        item = self.items_by_md5.get(md5)
        if item is not None:
            item.setIcon(QIcon(QPixmap.fromImage(image)))

    def _filter(self, text: str) -> None:
        t = text.strip().lower()
        for i in range(self.list.count()):
            item = self.list.item(i)
            info = item.data(Qt.ItemDataRole.UserRole)
            hit = not t or t in info.title.lower() or t in info.id.lower() or t == info.md5
            item.setHidden(not hit)

    def _shown(self) -> list[QListWidgetItem]:
        """The rows the search leaves in sight, in order."""
        return [self.list.item(i) for i in range(self.list.count()) if not self.list.item(i).isHidden()]

    def visible_infos(self) -> list:
        return [item.data(Qt.ItemDataRole.UserRole) for item in self._shown()]

    def show_current(self, md5: str) -> None:
        """Highlight the game being played (none when it came from a file outside the list)."""
        item = self.items_by_md5.get(md5)
        self.list.setCurrentItem(item)
        if item is None:
            self.list.clearSelection()
        elif not item.isHidden():
            self.list.scrollToItem(item, QListWidget.ScrollHint.PositionAtCenter)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        if obj is self.search and event.type() == QEvent.Type.KeyPress \
                and event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            self._step_match(1 if event.key() == Qt.Key.Key_Down else -1)
            return True
        return super().eventFilter(obj, event)

    def _step_match(self, step: int) -> None:
        shown = self._shown()
        if not shown:
            return
        cur = self.list.currentItem()
        k = shown.index(cur) + step if cur in shown else (0 if step > 0 else len(shown) - 1)
        self.list.setCurrentItem(shown[max(0, min(len(shown) - 1, k))])
        self.list.scrollToItem(self.list.currentItem())

    def _open_match(self) -> None:
        """Return in the search box plays the highlighted game where the filter shows it, else the first
        game it shows."""
        shown = self._shown()
        if not self.search.text().strip() or not shown:
            return
        item = self.list.currentItem()
        self.game_chosen.emit((item if item in shown else shown[0]).data(Qt.ItemDataRole.UserRole))

    def _activated(self, item: QListWidgetItem) -> None:
        self.game_chosen.emit(item.data(Qt.ItemDataRole.UserRole))

    def _last_dir(self) -> str:
        return str(self.settings.value("library/last_dir", "")) if self.settings is not None else ""

    def _remember_dir(self, folder) -> None:
        if self.settings is not None:
            self.settings.setValue("library/last_dir", str(folder))

    def _open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open an Atari 2600 ROM", self._last_dir(),
                                              "Atari 2600 ROMs (*.bin *.a26 *.rom *.gz);;All files (*)")
        if path:
            self._remember_dir(Path(path).parent)
            self.game_chosen.emit(path)

    def _open_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Add a folder of ROMs", self._last_dir())
        if path:
            self._remember_dir(path)
            self.folder_added.emit(path)


def scan(extra_paths=()) -> tuple[list, list]:
    errors: list = []
    return roms.scan(extra_paths, errors=errors), errors
