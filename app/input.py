"""Keyboard (and gamepad) to joystick, paddle and console-switch state; remappable, saved in settings."""
from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QAbstractSpinBox, QApplication, QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QKeySequenceEdit, QLabel, QLineEdit, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget)

from .session import InputFrame

# Held controls (pressed while the key is down) and toggles (flip on press).
HELD = ("up", "down", "left", "right", "fire", "reset", "select", "rewind")
TOGGLES = ("color", "difficulty_left", "difficulty_right")
LABELS = {
    "up": "Joystick up", "down": "Joystick down", "left": "Joystick left / paddle left",
    "right": "Joystick right / paddle right", "fire": "Fire button", "reset": "Console RESET (hold)",
    "select": "Console SELECT (hold)", "rewind": "Rewind (hold)", "color": "Colour / black & white", "difficulty_left":
    "Left difficulty A/B", "difficulty_right": "Right difficulty A/B",
}
DEFAULT_KEYS: dict[str, list[str]] = {
    "up": ["Up", "W"], "down": ["Down", "S"], "left": ["Left", "A"], "right": ["Right", "D"],
    "fire": ["Space"], "select": ["F1"], "reset": ["F2"], "color": ["F3"], "difficulty_left": ["F4"],
    "difficulty_right": ["F6"], "rewind": ["Backspace"],
}


def key_code(name: str) -> int:
    seq = QKeySequence.fromString(name)
    if seq.isEmpty():
        return 0
    return seq[0].key().value if hasattr(seq[0], "key") else int(seq[0])


def key_name(code: int) -> str:
    return QKeySequence(code).toString()


class KeyMap:
    """control -> key names, with the reverse lookup used on every key event."""

    def __init__(self, mapping: dict[str, list[str]] | None = None):
        self.mapping = {k: list(v) for k, v in (mapping or DEFAULT_KEYS).items()}
        self._rebuild()

    def _rebuild(self) -> None:
        self.by_code: dict[int, str] = {}
        for control, names in self.mapping.items():
            for n in names:
                c = key_code(n)
                if c:
                    self.by_code[c] = control

    def set(self, control: str, names: list[str]) -> None:
        self.mapping[control] = [n for n in names if n]
        self._rebuild()

    def control_for(self, code: int) -> str | None:
        return self.by_code.get(code)

    def save(self, settings: QSettings) -> None:
        settings.beginGroup("keys")
        for control, names in self.mapping.items():
            settings.setValue(control, ",".join(names))
        settings.endGroup()

    @classmethod
    def load(cls, settings: QSettings) -> "KeyMap":
        mapping = {k: list(v) for k, v in DEFAULT_KEYS.items()}
        settings.beginGroup("keys")
        for control in mapping:
            v = settings.value(control)
            if isinstance(v, str) and v.strip():
                mapping[control] = [p for p in v.split(",") if p]
        settings.endGroup()
        return cls(mapping)


class InputState(QObject):
    """What the player holds right now; the emulator thread samples it once per frame."""

    toggled = Signal(str, bool)   # control, new state (for the status bar)
    refused = Signal(str)         # a locked control was pressed (a scored session is running)

    def __init__(self, keymap: KeyMap | None = None):
        super().__init__()
        self.keymap = keymap or KeyMap()
        self._held: set[str] = set()
        self._tapped: set[str] = set()   # pressed since the last frame: a tap shorter than a frame still counts
        self._lock = threading.Lock()
        self.color = True
        self.difficulty = [False, False]  # False = B (ALE's default difficulty 0)
        self.paddle: float | None = None
        # The mouse drives the paddle until the keys move it; then only a click in the game view gives it
        # back, so a pointer crossing the view in passing cannot move the paddle of a game played by keys.
        self.mouse_has_paddle = True
        self.pad_held: set[str] = set()   # controls held on a gamepad
        self.switches_locked = False
        self.rewind_locked = False

    def key_press(self, code: int, auto_repeat: bool = False) -> bool:
        if auto_repeat:
            return self.keymap.control_for(code) is not None
        control = self.keymap.control_for(code)
        if control is None:
            return False
        if control in TOGGLES:
            if self.switches_locked:
                self.refused.emit("switches")
                return True
            if control == "color":
                self.color = not self.color
                self.toggled.emit("color", self.color)
            else:
                i = 0 if control == "difficulty_left" else 1
                self.difficulty[i] = not self.difficulty[i]
                self.toggled.emit(control, self.difficulty[i])
            return True
        if control in ("reset", "select") and self.switches_locked:
            self.refused.emit("reset" if control == "reset" else "switches")
            return True
        if control == "rewind" and self.rewind_locked:
            self.refused.emit("rewind")
            return True
        if control in ("left", "right"):
            self.paddle = None  # keys take the paddle from the mouse
            self.mouse_has_paddle = False
        with self._lock:
            self._held.add(control)
            self._tapped.add(control)
        return True

    def key_release(self, code: int, auto_repeat: bool = False) -> bool:
        if auto_repeat:
            return True
        control = self.keymap.control_for(code)
        if control is None:
            return False
        with self._lock:
            self._held.discard(control)
        return True

    def release_all(self) -> None:
        """Focus left the window: nothing stays pressed."""
        with self._lock:
            self._held.clear()
            self._tapped.clear()
            self.pad_held.clear()

    def snapshot(self) -> InputFrame:
        """The next frame's input: what is held, and what was pressed since the last frame even if it has
        been let go already (one call per emulated frame)."""
        with self._lock:
            h = self._held | self._tapped | self.pad_held
            self._tapped.clear()
        return InputFrame(up="up" in h, down="down" in h, left="left" in h, right="right" in h,
                          fire="fire" in h, reset="reset" in h, select="select" in h, paddle=self.paddle,
                          rewind="rewind" in h)


# widgets that type text, capture keys or move through rows with the arrow keys
KEY_WIDGETS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QKeySequenceEdit, QAbstractItemView)


def wants_keys(widget: QWidget | None) -> bool:
    """True when ``widget`` takes every key itself: it types text, captures keys or is a list (line edits,
    editable combo boxes, spin boxes, key-sequence fields, item views, or a part of one), or it lives in a
    dialog."""
    w = widget
    while w is not None:
        if isinstance(w, (KEY_WIDGETS, QDialog)) or (isinstance(w, QComboBox) and w.isEditable()):
            return True
        if w.isWindow():
            return False
        w = w.parentWidget()
    return False


class KeyFilter(QObject):
    """Application-wide key handling for the game view, ignoring auto-repeat; releases on focus loss.

    Qt delivers a key first to the window, then to the focused widget and up its parents, and an
    application filter sees every stop; so the game takes a key only where no text field, list, dialog,
    key capture, menu or popup has the focus: W/A/S/D, Space or Backspace typed into a search field stay
    text, arrows move through the library's rows.
    """

    def __init__(self, state: InputState, parent=None):
        super().__init__(parent)
        self.state = state

    @staticmethod
    def game_has_keys(receiver) -> bool:
        app = QApplication.instance()
        if app.activeModalWidget() is not None or app.activePopupWidget() is not None:
            return False
        if wants_keys(app.focusWidget()):
            return False
        return not (isinstance(receiver, QWidget) and wants_keys(receiver))

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        t = event.type()
        if t == QEvent.Type.KeyPress:
            if not self.game_has_keys(obj):
                return False
            return self.state.key_press(event.key(), event.isAutoRepeat())
        if t == QEvent.Type.KeyRelease:
            handled = self.state.key_release(event.key(), event.isAutoRepeat())
            return handled and self.game_has_keys(obj)  # a held control is let go either way
        if t in (QEvent.Type.WindowDeactivate, QEvent.Type.FocusOut, QEvent.Type.ApplicationDeactivate):
            self.state.release_all()
        return False


class RemapDialog(QDialog):
    """Assign up to two keys to every control."""

    def __init__(self, keymap: KeyMap, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Remap keys")
        self.keymap = keymap
        self.edits: dict[str, tuple[QKeySequenceEdit, QKeySequenceEdit]] = {}
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Click a field and press a key. Each control takes up to two keys.\n"
                             "Delete empties a field; Esc cancels."))
        # the window's own single-key shortcuts (P pauses, F5 saves…): a control given one would do both
        self.reserved = {a.shortcut().toString(): a.text().replace("&", "").rstrip("…")
                         for a in (parent.actions() if parent is not None else ())
                         if not a.shortcut().isEmpty()}
        form = QFormLayout()
        for control in HELD + TOGGLES:
            names = keymap.mapping.get(control, [])
            e1, e2 = QKeySequenceEdit(self), QKeySequenceEdit(self)
            for e in (e1, e2):
                if hasattr(e, "setMaximumSequenceLength"):
                    e.setMaximumSequenceLength(1)
                if hasattr(e, "setClearButtonEnabled"):
                    e.setClearButtonEnabled(True)
                e.installEventFilter(self)
            if names:
                e1.setKeySequence(QKeySequence.fromString(names[0]))
            if len(names) > 1:
                e2.setKeySequence(QKeySequence.fromString(names[1]))
            self.edits[control] = (e1, e2)
            for e in (e1, e2):
                e.keySequenceChanged.connect(self._show_clash)
            form.addRow(LABELS[control].replace("&", "&&"), _pair(e1, e2))  # (a lone & marks a mnemonic)
        lay.addLayout(form)
        self.warning = QLabel("")
        self.warning.setStyleSheet("color: #b00020")
        self.warning.setWordWrap(True)
        lay.addWidget(self.warning)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self._defaults)
        lay.addWidget(buttons)

    def clash(self) -> str:
        """What is wrong with the keys as set: a key given to two controls (the first would take it), or one
        the window's menus use."""
        seen: dict[str, str] = {}
        for control, names in self.result_mapping().items():
            for n in names:
                if seen.get(n, control) != control:
                    return f"{n} is set for both “{LABELS[seen[n]]}” and “{LABELS[control]}”: change one of them."
                if n in self.reserved:
                    return f"{n} is the key of {self.reserved[n]}: give “{LABELS[control]}” another one."
                seen[n] = control
        return ""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        """In a key field Esc cancels the dialog and Delete empties the field: neither is taken as a key."""
        if event.type() == QEvent.Type.KeyPress and isinstance(obj, QKeySequenceEdit):
            if event.key() == Qt.Key.Key_Escape:
                self.reject()
                return True
            if event.key() == Qt.Key.Key_Delete:
                obj.clear()
                return True
        return False

    def _show_clash(self, *_) -> None:
        self.warning.setText(self.clash())

    def accept(self) -> None:
        if self.clash():
            self._show_clash()
            return
        super().accept()

    def _defaults(self) -> None:
        for control, (e1, e2) in self.edits.items():
            names = DEFAULT_KEYS.get(control, [])
            e1.setKeySequence(QKeySequence.fromString(names[0]) if names else QKeySequence())
            e2.setKeySequence(QKeySequence.fromString(names[1]) if len(names) > 1 else QKeySequence())

    def result_mapping(self) -> dict[str, list[str]]:
        out = {}
        for control, (e1, e2) in self.edits.items():
            out[control] = [e.keySequence().toString().split(",")[0] for e in (e1, e2) if not e.keySequence().isEmpty()]
        return out


def _pair(a, b):
    from PySide6.QtWidgets import QHBoxLayout, QWidget

    w = QWidget()
    h = QHBoxLayout(w)
    h.setContentsMargins(0, 0, 0, 0)
    h.addWidget(a)
    h.addWidget(b)
    return w


__all__ = ["InputState", "KeyMap", "KeyFilter", "wants_keys", "RemapDialog", "DEFAULT_KEYS", "key_code", "key_name", "Qt"]
