"""Race mode (for talks): two consoles side by side on the same game and seed — a human against an agent,
or two agents — with live scores. Each side is its own emulator thread (an EmulatorWorker) so a slow
planner on one side never holds back the other."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from .agent_driver import AgentDriver
from .screen import GameView
from .session import InputFrame, PlaySession
from .worker import EmulatorWorker


class _NoInput:
    """Input for a side no person plays (the agent driver answers instead)."""

    color = True
    paddle = None

    def snapshot(self) -> InputFrame:
        return InputFrame()


class RaceSide(QWidget):
    def __init__(self, game, who: str, seed: int, input_state, params: dict | None, parent=None):
        super().__init__(parent)
        self.who = who
        self.session = PlaySession(game, seed=seed)
        human = who == "human"
        self.worker = EmulatorWorker(input_state if human else _NoInput(), None, self)
        self.worker.sound_on = False
        self.driver: AgentDriver | None = None
        lay = QVBoxLayout(self)
        self.title = QLabel("You" if human else who.upper())
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
        self.worker.frame_ready.connect(self._on_frame, Qt.ConnectionType.QueuedConnection)
        self.worker.set_session(self.session)
        if not human:
            from arcade_lab.agents.registry import make_agent

            agent = make_agent(who, self.session.env, seed, **(params or {}))
            self.driver = AgentDriver(agent, seed=seed)
            drv, w, sess = self.driver, self.worker, self.session
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

    def stop(self) -> None:
        if self.driver is not None:
            self.driver.uninstall()
        self.worker.stop()
        self.worker.wait(10000)


class RaceWindow(QWidget):
    """``left``/``right``: "human" or an agent spec ("uct", "bfs", "random", "sarsa:…" needs weights:
    use the Agents panel for those); ``params``: {"left": {...}, "right": {...}} agent parameters."""

    def __init__(self, game, left: str = "human", right: str = "uct", seed: int = 0, input_state=None,
                 params: dict | None = None):
        super().__init__()
        self.setWindowTitle("Race — Arcade Lab")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        params = params or {}
        if input_state is None and "human" in (left, right):
            raise ValueError("a human side needs the window's input")
        lay = QHBoxLayout(self)
        self.sides = [RaceSide(game, left, seed, input_state, params.get("left"), self),
                      RaceSide(game, right, seed, input_state, params.get("right"), self)]
        for s in self.sides:
            lay.addWidget(s, 1)
        self.resize(1300, 620)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._refresh)
        self.timer.start(100)
        self._closed = False

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
