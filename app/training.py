"""Background SARSA(λ) training with a live learning curve.

Training runs in a separate process (multiprocessing "spawn": no fork of a Qt process, and the GUI keeps
its cores' worth of Python to itself); the child streams episode scores over a Queue that a QTimer drains.
Stop saves the weights; resume starts a new child from them; "attach" hands the weights to the Agents
panel, which plays them in the game view.
"""
from __future__ import annotations

import multiprocessing as mp
import queue
import shutil
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QMessageBox, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from .panels.scroll import fixed, scrolled
from .training_worker import train_main

MOVING_AVERAGE = 10


def weights_dir() -> Path:
    from arcade_lab.agents.evaluation.store import default_path

    return default_path().parent / "weights"


class TrainingProcess:
    """One training child. ``poll()`` returns the messages that arrived since the last call."""

    def __init__(self, cfg: dict):
        ctx = mp.get_context("spawn")
        self.cfg = cfg
        self.q = ctx.Queue()
        self.stop_evt = ctx.Event()
        self.save_evt = ctx.Event()
        self.proc = ctx.Process(target=train_main, args=(cfg, self.q, self.stop_evt, self.save_evt),
                                name="arcade-lab-training", daemon=True)
        self.proc.start()
        self.finished = False

    def poll(self, limit: int = 1000) -> list:
        out = []
        for _ in range(limit):
            try:
                m = self.q.get_nowait()
            except queue.Empty:
                break
            except Exception:  # a half-written message from a killed child
                break
            out.append(m)
            if m[0] == "stopped":
                self.finished = True
        if not self.finished and not self.proc.is_alive() and self.q.empty():
            self.finished = True
            out.append(("error", f"training process ended unexpectedly (exit code {self.proc.exitcode})"))
        return out

    def request_save(self) -> None:
        self.save_evt.set()

    def stop(self) -> None:
        self.stop_evt.set()

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self, grace: float = 3.0) -> None:
        """Stop now: ask, wait ``grace`` seconds (it saves between episodes), then terminate."""
        self.stop_evt.set()
        self.proc.join(grace)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(3.0)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(1.0)
        self.q.cancel_join_thread()  # unread messages must not keep the GUI process from exiting
        self.q.close()


class TrainingPanel(QDockWidget):
    def __init__(self, window, ui=None):
        super().__init__("Training", window)
        self.setObjectName("training")
        import pyqtgraph as pg

        self.window = window
        self.ui = ui
        self.proc: TrainingProcess | None = None
        self.episodes: list[int] = []
        self.scores: list[float] = []
        self.weights_path: Path | None = None
        self._attach_when_saved = False
        self._attach_when_loaded = False
        self._stopping = False
        body = QWidget()
        lay = QVBoxLayout(body)
        form = QFormLayout()
        self.game = QLineEdit()
        self.game.setPlaceholderText("game id (empty: the game in the view)")
        form.addRow("Game", self.game)
        self.features = QComboBox()
        self.features.addItems(["bass", "basic", "disco", "lsh", "ram", "blobprost"])
        form.addRow("Features", self.features)
        self.max_frames = QSpinBox()
        self.max_frames.setRange(100, 1_000_000)
        self.max_frames.setSingleStep(1000)
        self.max_frames.setValue(18_000)
        form.addRow("Frames per episode (cap)", self.max_frames)
        self.samples = QSpinBox()
        self.samples.setRange(100, 100_000)
        self.samples.setSingleStep(1000)
        self.samples.setValue(18_000)
        form.addRow("Background samples", self.samples)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2 ** 31 - 1)
        form.addRow("Seed", self.seed)
        lay.addLayout(form)
        row = QHBoxLayout()
        self.start_btn = QPushButton("Start")
        self.start_btn.clicked.connect(lambda: self._start_clicked())
        self.stop_btn = QPushButton("Stop")
        self.stop_btn.clicked.connect(self.stop)
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.clicked.connect(lambda: self._start_clicked(resume=True))
        for b in (self.start_btn, self.stop_btn, self.resume_btn):
            row.addWidget(b)
        lay.addLayout(row)
        row2 = QHBoxLayout()
        self.save_btn = QPushButton("Save weights…")
        self.save_btn.clicked.connect(self.save_as)
        self.attach_btn = QPushButton("Attach trained agent")
        self.attach_btn.clicked.connect(self.attach_trained)
        row2.addWidget(self.save_btn)
        row2.addWidget(self.attach_btn)
        lay.addLayout(row2)
        self.status = QLabel("idle")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.plot = pg.PlotWidget(title="Learning curve")
        self.plot.setLabel("bottom", "episode")
        self.plot.setLabel("left", "score")
        self.plot.addLegend(offset=(5, 5))
        self.curve = self.plot.plot([], [], pen=None, symbol="o", symbolSize=4, symbolBrush=(90, 140, 220),
                                    name="episode score")
        self.avg = self.plot.plot([], [], pen=pg.mkPen((255, 150, 0), width=2),
                                  name=f"moving average ({MOVING_AVERAGE})")
        self.plot.setMinimumHeight(200)
        fixed(self.plot)
        lay.addWidget(self.plot)
        lay.addStretch(1)
        self.setWidget(scrolled(body))
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(200)
        self._buttons()

    # -- control ------------------------------------------------------------------------------------------
    def _game(self) -> str | None:
        g = self.game.text().strip()
        if g:
            return g
        sess = self.window.session
        return sess.info.id if sess is not None else None

    def configure(self, **kw) -> None:
        for k, v in kw.items():
            {"game": lambda v: self.game.setText(v), "features": self.features.setCurrentText,
             "max_frames": self.max_frames.setValue, "samples": self.samples.setValue,
             "seed": self.seed.setValue}[k](v)

    def _start_clicked(self, resume: bool = False) -> None:
        """Start or Resume: not during a scored session (a second process would share the machine with
        it); Start over weights this game and feature set already have only once the person says so."""
        if self.window.locked("agents", "training"):
            return
        game = self._game()
        if game and not resume:
            old = self._weights_file(game, self.features.currentText())
            if old.is_file() and QMessageBox.question(
                    self, "Start training",
                    f"{old.name} already holds trained weights. Start over and replace them?\n"
                    "(Resume continues training them.)",
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                    QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
                return
        self.start(resume=resume)

    @staticmethod
    def _weights_file(game: str, features: str) -> Path:
        """Where a training of ``game`` with ``features`` keeps its weights."""
        return weights_dir() / f"{Path(game).stem}-sarsa-{features}.npz"

    def start(self, resume: bool = False) -> bool:
        if self.proc is not None:
            return False
        game = self._game()
        if not game:
            self.status.setText("choose a game (type its id, or open it in the view)")
            return False
        fs = self.features.currentText()
        try:
            d = weights_dir()
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            self.status.setText(f"cannot write weights: {e}")
            return False
        out = self._weights_file(game, fs)
        weights_in = None
        if resume:
            if self.weights_path is None or not self.weights_path.is_file():
                self.status.setText("nothing to resume: start a training first")
                return False
            weights_in = str(self.weights_path)
        else:
            self.episodes, self.scores = [], []
            self._redraw()
        from arcade_lab.agents.sarsa import PAPER_PARAMS

        alpha, lam = PAPER_PARAMS[fs]
        cfg = {"game": game, "features": fs, "params": {"alpha": alpha, "lam": lam},
               "max_frames": self.max_frames.value(), "n_samples": self.samples.value(),
               "seed": self.seed.value(), "weights_in": weights_in, "weights_out": str(out),
               "first_episode": self.episodes[-1] if (resume and self.episodes) else 0}
        try:
            self.proc = TrainingProcess(cfg)
        except Exception as e:
            self.status.setText(f"cannot start training: {e}")
            return False
        self.weights_path = out
        self.train_game, self.train_features = game, fs
        self._stopping = False
        self.status.setText(f"starting SARSA-{fs.upper()} on {game}…")
        self._buttons()
        return True

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()
            self._stopping = True
            self.status.setText("stopping after this episode (saving weights)…")
            self._buttons()

    def save_as(self) -> None:
        if self.weights_path is None:
            self.status.setText("nothing trained yet")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save weights", str(self.weights_path), "Weights (*.npz)")
        if path:
            self.save_copy(path)

    def save_copy(self, path) -> bool:
        """Copy the latest saved weights (a running training saves them first, then copy by hand again)."""
        if self.proc is not None:
            self.proc.request_save()
        try:
            shutil.copyfile(self.weights_path, path)
        except OSError as e:
            self.status.setText(f"cannot save: {e}")
            return False
        self.status.setText(f"weights saved to {path}")
        return True

    def attach_trained(self) -> None:
        if self.weights_path is None:
            self.status.setText("nothing trained yet")
            return
        if self.proc is not None:
            self._attach_when_saved = True
            self.proc.request_save()
            self.status.setText("saving weights to attach them…")
        else:
            self._attach_now()

    def _attach_now(self) -> None:
        sess = self.window.session
        game = self.train_game
        if sess is None or (sess.info.id != game and sess.info.path != game):
            self._attach_when_loaded = True
            self.window.open_game(game)
            return
        if self.ui is None:
            return
        ap = self.ui.agents
        if ap.driver is not None:
            ap.detach()
        ap.configure("SARSA(λ)", features=self.train_features, weights=str(self.weights_path))
        if ap.attach():
            ap.raise_()

    def _buttons(self) -> None:
        running = self.proc is not None
        self.start_btn.setEnabled(not running)
        self.resume_btn.setEnabled(not running and self.weights_path is not None)
        self.stop_btn.setEnabled(running and not self._stopping)

    # -- streaming ----------------------------------------------------------------------------------------
    def poll(self) -> None:
        if self._attach_when_loaded:
            sess = self.window.session
            if sess is not None and self.train_game in (sess.info.id, sess.info.path):
                self._attach_when_loaded = False
                self._attach_now()
        if self.proc is None:
            return
        msgs = self.proc.poll()
        got = False
        for m in msgs:
            kind = m[0]
            if kind == "episode":
                self.episodes.append(int(m[1]))
                self.scores.append(float(m[2]))
                got = True
                self.status.setText(f"episode {m[1]}: score {m[2]:g} ({m[3]} frames)")
            elif kind == "status":
                self.status.setText(m[1])
            elif kind == "saved":
                self.weights_path = Path(m[1])
                if self._attach_when_saved:
                    self._attach_when_saved = False
                    self._attach_now()
            elif kind == "error":
                self.status.setText("training failed: " + m[1].split("\n")[0])
            elif kind == "stopped":
                pass
        if got:
            self._redraw()
        if self.proc.finished:
            self.proc.kill(0.5)
            self.proc = None
            self._stopping = False
            if not self.status.text().startswith("training failed"):
                self.status.setText(f"stopped after {len(self.episodes)} episodes; weights in {self.weights_path}")
            self._buttons()

    def _redraw(self) -> None:
        x = np.asarray(self.episodes, float)
        y = np.asarray(self.scores, float)
        self.curve.setData(x, y)
        if len(y):
            k = min(MOVING_AVERAGE, len(y))
            ma = np.convolve(y, np.ones(k) / k, mode="valid")
            self.avg.setData(x[k - 1:], ma)
        else:
            self.avg.setData([], [])

    def shutdown(self) -> None:
        self.timer.stop()
        if self.proc is not None:
            self.proc.kill(3.0)
            self.proc = None
