"""Race mode (for talks): two consoles side by side on the same game, seed and start state — a human
against an agent, or two agents — with live scores and how fast each console runs against the clock.
Each side is its own emulator thread (an EmulatorWorker) so a slow planner on one side never holds back
the other.

The setup dialog chooses who plays each side (a person at the keyboard, or an agent and its search
budget), the seed, and where both consoles start: switched on fresh, or both from the main window's
current state or its current save-state slot."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from .agent_driver import AgentDriver
from .screen import GameView
from .session import InputFrame, PlaySession
from .worker import EmulatorWorker

# who can race: the setup's label, the agent spec, the budget parameter (None: no budget) and its default
PLAYERS = (("Human (keyboard)", "human", None, 0),
           ("UCT", "uct", "simulations", 500),
           ("BFS", "bfs", "frames", 133_000),
           ("Random", "random", None, 0))
BUDGETS = {spec: (param, default) for _, spec, param, default in PLAYERS}
START_FROM = {"power-on": "power-on", "current": "the main window's current state", "slot": "a save state"}


def describe(who: str, params: dict | None) -> str:
    """A side's title: "You", or the agent and its budget."""
    if who == "human":
        return "You"
    param = BUDGETS.get(who, (None, 0))[0]
    budget = (params or {}).get(param) if param else None
    return who.upper() + (f" · {budget:,} {param}" if budget is not None else "")


@dataclass
class RaceSpec:
    """What the setup dialog chose."""
    left: str = "human"
    right: str = "uct"
    params: dict = field(default_factory=dict)   # {"left": {...}, "right": {...}}: agent parameters
    seed: int = 0
    start: str = "power-on"                       # a key of START_FROM
    keep_real_time: bool = True


class RaceSetupDialog(QDialog):
    """Both sides, the seed and the common start. ``slot``: the main window's current save-state slot."""

    def __init__(self, title: str, slot: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Race — {title}")
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.who: dict[str, QComboBox] = {}
        self.budget: dict[str, QSpinBox] = {}
        self.budget_label: dict[str, QLabel] = {}
        for side, default in (("left", "human"), ("right", "uct")):
            box = QGroupBox(f"{side.capitalize()} console")
            form = QFormLayout(box)
            who = QComboBox()
            for label, spec, _, _ in PLAYERS:
                who.addItem(label, spec)
            budget = QSpinBox()
            budget.setRange(1, 10_000_000)
            budget.setSingleStep(50)
            self.who[side], self.budget[side], self.budget_label[side] = who, budget, QLabel("Budget")
            form.addRow("Player", who)
            form.addRow(self.budget_label[side], budget)
            who.currentIndexChanged.connect(lambda _i, s=side: self._who_changed(s))
            who.setCurrentIndex(who.findData(default))
            self._who_changed(side)
            row.addWidget(box)
        lay.addLayout(row)
        form = QFormLayout()
        self.seed = QSpinBox()
        self.seed.setRange(0, 2 ** 31 - 1)
        form.addRow("Seed", self.seed)
        self.start = QComboBox()
        self.start.addItem("Power-on (both consoles switched on fresh)", "power-on")
        self.start.addItem("The game's current state", "current")
        self.start.addItem(f"The save state in slot {slot}", "slot")
        form.addRow("Both start from", self.start)
        self.keep_real_time = QCheckBox("Planners keep real time (search until each decision is due)")
        self.keep_real_time.setChecked(True)
        form.addRow(self.keep_real_time)
        lay.addLayout(form)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start race")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _who_changed(self, side: str) -> None:
        param, default = BUDGETS[self.who[side].currentData()]
        budget = self.budget[side]
        budget.setEnabled(param is not None)
        self.budget_label[side].setText(param.capitalize() if param else "Budget")
        if param is not None:
            budget.setValue(default)

    def spec(self) -> RaceSpec:
        who = {side: c.currentData() for side, c in self.who.items()}
        params = {side: {BUDGETS[w][0]: self.budget[side].value()} for side, w in who.items() if BUDGETS[w][0]}
        return RaceSpec(who["left"], who["right"], params, self.seed.value(), self.start.currentData(),
                        self.keep_real_time.isChecked())

    def accept(self) -> None:
        s = self.spec()
        if s.left == s.right == "human":
            self.error.setText("Only one side can be played from the keyboard: choose an agent for the other.")
            return
        super().accept()


class _NoInput:
    """Input for a side no person plays (the agent driver answers instead)."""

    color = True
    paddle = None

    def snapshot(self) -> InputFrame:
        return InputFrame()


class RaceSide(QWidget):
    """One console: its title, view, score and pace. ``start_state``: a save state both sides load
    before their first frame (None: power-on)."""

    def __init__(self, game, who: str, seed: int, input_state, params: dict | None, parent=None,
                 keep_real_time: bool = True, start_state=None, mode: int | None = None, difficulty: int = 0):
        super().__init__(parent)
        self.who = who
        self.session = PlaySession(game, seed=seed, mode=mode, difficulty=difficulty)
        human = who == "human"
        self.worker = EmulatorWorker(input_state if human else _NoInput(), None, self)
        self.worker.sound_on = False
        self.driver: AgentDriver | None = None
        lay = QVBoxLayout(self)
        self.title = QLabel(describe(who, params))
        f = QFont(self.font())
        f.setPointSize(18)
        f.setBold(True)
        self.title.setFont(f)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.title)
        self.view = GameView(self)
        self.view.set_palette(self.session.palette())
        lay.addWidget(self.view, 1)
        self.score = QLabel("score 0")
        self.score.setFont(f)
        self.score.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.score)
        # game seconds per wall second, measured on the console's own frames: a person's side too
        self.speed = QLabel("")
        self.speed.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.speed)
        self._clock: list[tuple[float, int]] = []
        self.realtime_factor: float | None = None
        self.pace = QLabel("")  # a planner's search per decision and how far its game is behind
        self.pace.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.pace)
        self.worker.frame_ready.connect(self._on_frame, Qt.ConnectionType.QueuedConnection)
        self.worker.set_session(self.session)
        sess = self.session
        if start_state is not None:
            from .statefile import to_session

            self.worker.call(lambda s: to_session(start_state, s) if s is sess else None)
        if not human:
            from arcade_lab.agents.registry import make_agent

            agent = make_agent(who, self.session.env, seed, **(params or {}))
            self.driver = AgentDriver(agent, seed=seed, keep_real_time=keep_real_time)
            drv, w = self.driver, self.worker
            self.worker.call(lambda s: drv.install(w, sess) if s is sess else None)
        self.worker.start()

    def _on_frame(self, _n) -> None:
        frame, _ = self.worker.take_frame()
        if frame is not None:
            self.view.show_frame(frame)

    def refresh(self) -> None:
        s = self.session
        over = " — GAME OVER" if s.game_over else ""
        self.score.setText(f"score {s.score}  lives {s.lives}{over}")
        self._measure_speed()
        d = self.driver
        if d is not None and d.effort_per_decision is not None:
            self.pace.setText(f"{d.effort_per_decision:.0f} {d.search_unit}/decision · "
                              f"{d.frames_behind:.0f} frames behind")

    def _measure_speed(self) -> None:
        now, frames = time.perf_counter(), self.worker.frames_emulated
        self._clock.append((now, frames))
        # one sample at or before the 2 s window's start, so a long decision stays in the average
        while len(self._clock) > 2 and now - self._clock[1][0] >= 2.0:
            self._clock.pop(0)
        t0, f0 = self._clock[0]
        if now - t0 >= 0.5:
            self.realtime_factor = (frames - f0) / self.session.frame_rate / (now - t0)
            slow = " (slower than the console)" if self.realtime_factor < 0.95 else ""
            self.speed.setText(f"frame {self.session.frame_number} · {self.realtime_factor:.2f}× real time{slow}")

    def stop(self) -> None:
        if self.driver is not None:
            self.driver.uninstall()
        self.worker.stop()
        self.worker.wait(10000)
        close = getattr(self.driver.agent, "close", None) if self.driver is not None else None
        if callable(close):   # external agents: their process or connection ends with the race
            close()


class RaceWindow(QWidget):
    """``left``/``right``: "human" or an agent spec ("uct", "bfs", "random", "sarsa:…" needs weights:
    use the Agents panel for those); ``params``: {"left": {...}, "right": {...}} agent parameters;
    ``keep_real_time``: planners search until each decision is due rather than to their exact budget;
    ``start_state``: the save state both consoles start from (None: power-on), on ``mode``/``difficulty``.

    Restart (Ctrl+R) puts both consoles back to that start with fresh agents; F12 shows only the two
    consoles, full screen (Esc or F12 again to leave); Close (Ctrl+W) stops both emulators."""

    closed = Signal()

    def __init__(self, game, left: str = "human", right: str = "uct", seed: int = 0, input_state=None,
                 params: dict | None = None, keep_real_time: bool = True, start_state=None,
                 mode: int | None = None, difficulty: int = 0, start_label: str = "power-on"):
        super().__init__()
        self.setWindowTitle("Race — Arcade Lab")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        if input_state is None and "human" in (left, right):
            raise ValueError("a human side needs the window's input")
        self._config = {"game": game, "who": {"left": left, "right": right}, "seed": seed,
                        "input_state": input_state, "params": params or {}, "keep_real_time": keep_real_time,
                        "start_state": start_state, "mode": mode, "difficulty": difficulty}
        outer = QVBoxLayout(self)
        self.bar = QWidget(self)
        bar = QHBoxLayout(self.bar)
        bar.setContentsMargins(0, 0, 0, 0)
        self.info = QLabel(f"seed {seed} · both from {start_label}")
        bar.addWidget(self.info, 1)
        self.buttons: dict[str, QPushButton] = {}
        for text, key, fn in (("Restart", "Ctrl+R", self.restart), ("Presentation", "F12", self.toggle_presentation),
                              ("Close", "Ctrl+W", self.close)):
            b = QPushButton(f"{text} ({key})", self.bar)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # the keyboard stays with the game
            b.clicked.connect(lambda _c=False, fn=fn: fn())
            bar.addWidget(b)
            self.buttons[text] = b
            act = QAction(text, self)
            act.setShortcut(QKeySequence(key))
            act.triggered.connect(lambda _c=False, fn=fn: fn())
            self.addAction(act)
        self.leave_action = QAction("Leave presentation", self)
        self.leave_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.leave_action.setEnabled(False)
        self.leave_action.triggered.connect(self.toggle_presentation)
        self.addAction(self.leave_action)
        outer.addWidget(self.bar)
        self.area = QHBoxLayout()
        outer.addLayout(self.area, 1)
        self.sides: list[RaceSide] = []
        self.restarts = 0
        self._closed = False
        self._build_sides()
        self.resize(1300, 660)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._refresh)
        self.timer.start(100)

    def _build_sides(self) -> None:
        c = self._config
        for side in ("left", "right"):
            s = RaceSide(c["game"], c["who"][side], c["seed"], c["input_state"], c["params"].get(side), self,
                         c["keep_real_time"], c["start_state"], c["mode"], c["difficulty"])
            self.area.addWidget(s, 1)
            self.sides.append(s)
        human = [s for s in self.sides if s.who == "human"]
        (human or self.sides)[0].view.setFocus()

    def restart(self) -> None:
        """Both consoles back to the common start, with fresh agents."""
        if self._closed:
            return
        for s in self.sides:
            s.stop()
            self.area.removeWidget(s)
            s.hide()
            s.deleteLater()
        self.sides = []
        self._build_sides()
        self.restarts += 1

    @property
    def presenting(self) -> bool:
        return self.leave_action.isEnabled()

    def toggle_presentation(self) -> None:
        on = not self.presenting
        self.leave_action.setEnabled(on)
        self.bar.setVisible(not on)
        self.showFullScreen() if on else self.showNormal()

    def _refresh(self) -> None:
        for s in self.sides:
            s.refresh()

    def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.timer.stop()
        for s in self.sides:
            s.stop()

    def closeEvent(self, event) -> None:  # noqa: N802
        self.shutdown()
        super().closeEvent(event)
        self.closed.emit()


# -- from the main window ---------------------------------------------------------------------------------
def start_state(window, start: str):
    """The save state both consoles start from: None (power-on), the main window's game as it is now
    (taken on its emulator thread), or its current slot. Raises with a message the player can act on."""
    if start == "power-on":
        return None
    sess = window.session
    if sess is None:
        raise ValueError("open a game first to start from its state")
    if start == "slot":
        return window.slots.load(sess.info.md5, window.slot, sess.info.title)
    import threading

    from .statefile import from_session

    taken, done = [], threading.Event()

    def take(s):
        if s is sess:
            taken.append(from_session(s))
        done.set()

    window.worker.call(take)
    if not done.wait(10.0) or not taken:
        raise RuntimeError("the game did not hand over its state (is an agent deciding?); try again")
    return taken[0]


def setup_race(window, open_race):
    """Ask for the race (RaceSetupDialog) and start it with ``open_race(left, right, **options)``. The
    main window's game is paused while the keyboard plays a race side (where its session allows)."""
    sess = window.session
    if window.locked("agents", "race"):  # its consoles would take the keys while the scored episode ran on
        return None
    dlg = RaceSetupDialog(sess.info.title if sess is not None else "Seaquest", window.slot, window)
    if not dlg.exec():
        return None
    spec = dlg.spec()
    label = {"slot": f"slot {window.slot}"}.get(spec.start, START_FROM[spec.start])
    try:
        rw = open_race(spec.left, spec.right, seed=spec.seed, params=spec.params,
                       keep_real_time=spec.keep_real_time, start_state=start_state(window, spec.start),
                       start_label=label)
    except Exception as e:  # a game the agents cannot play, an empty slot: say so, keep the app
        window.statusBar().showMessage(f"Race mode: {e}", 8000)
        return None
    if (sess is not None and "pause" not in sess.locks and "human" in (spec.left, spec.right)
            and not window.pause_action.isChecked()):
        window.pause_action.setChecked(True)
        window.worker.pause(True)
        rw.closed.connect(lambda: _resume(window, sess))   # the keys come back to the game they left
    return rw


def _resume(window, sess) -> None:
    """After a race the keyboard played: the main window's game goes on where the race paused it, unless
    the person has since paused, resumed or changed it themselves."""
    if window.session is sess and window.pause_action.isChecked():
        window.pause_action.setChecked(False)
        window.worker.pause(False)
