"""The Agents dock: pick an agent, attach it to the game in the view, watch it, take over, see what it thinks.

Everything that touches the console goes through the worker thread (``worker.call``); the panel only
reads what the :class:`~app.agent_driver.AgentDriver` publishes, on a timer, so a slow planner never
blocks the GUI. Building an agent can take a while (SARSA samples screens for its background), so it
happens on a helper thread and the panel polls the result.
"""
from __future__ import annotations

import concurrent.futures as cf
import math
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDockWidget, QDoubleSpinBox, QFileDialog, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QMenu, QPushButton, QSizePolicy,
                               QSpinBox, QStackedWidget, QVBoxLayout, QWidget)

from arcade_lab.agents.baselines import RandomAgent

from ..agent_driver import AgentDriver
from .scroll import scrolled

ACTION_SHORT = ["NOOP", "FIRE", "U", "R", "L", "D", "UR", "UL", "DR", "DL",
                "UF", "RF", "LF", "DF", "URF", "ULF", "DRF", "DLF"]
KINDS = ("UCT", "BFS", "SARSA(λ)", "Random", "Const", "Perturb", "External", "Brute")
# agents whose decision period is part of the algorithm, not a choice (ALE 2013's Random: every frame)
OWN_FRAMES_PER_ACTION = {"Random": RandomAgent.frames_per_action}
SCORED_REFUSAL = "a scored human session is running: end it to attach an agent"
SPEED_CHOICES = [("¼× (slow motion)", 0.25), ("½×", 0.5), ("1× real time", 1.0), ("2×", 2.0), ("4×", 4.0),
                 ("as fast as possible", None)]
REAL_TIME = 2   # SPEED_CHOICES' index of 1×


def _spin(lo, hi, val, step=1):
    w = QSpinBox()
    w.setRange(lo, hi)
    w.setSingleStep(step)
    w.setValue(val)
    return w


def _dspin(lo, hi, val, step=0.05, decimals=3):
    w = QDoubleSpinBox()
    w.setDecimals(decimals)
    w.setRange(lo, hi)
    w.setSingleStep(step)
    w.setValue(val)
    return w


class FeatureOverlay(QWidget):
    """Transparent layer over the game view drawing what the agent's features see. Hidden when off, so
    the game view pays nothing for it."""

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.data: dict | None = None
        self.hide()
        view.installEventFilter(self)
        self.setGeometry(view.rect())

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        if obj is self.view and event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.rect())
        return False

    def set_data(self, data) -> None:
        self.data = data
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        d = self.data
        if not d:
            return
        r = self.view.target_rect()
        h = max(1, int(d.get("height", 210)))
        sx, sy = r.width() / 160.0, r.height() / h
        p = QPainter(self)
        if d["kind"] == "tiles":
            from arcade_lab.agents.features import N_TILE_X, N_TILE_Y, TILE_W
            p.setPen(QPen(QColor(255, 255, 0, 200), 1))
            fill = QColor(255, 255, 0, 50)
            for t in np.asarray(d["tiles"]).tolist():
                ty, tx = divmod(int(t), N_TILE_X)
                y0, y1 = math.ceil(ty * h / N_TILE_Y), math.ceil((ty + 1) * h / N_TILE_Y)
                rect = QRectF(r.x() + tx * TILE_W * sx, r.y() + y0 * sy, TILE_W * sx, (y1 - y0) * sy)
                p.fillRect(rect, fill)
                p.drawRect(rect)
        elif d["kind"] == "blobs":
            for k, x0, y0, x1, y1 in d["boxes"]:
                col = QColor.fromHsv((int(k) * 47) % 360, 255, 255) if k >= 0 else QColor(160, 160, 160)
                p.setPen(QPen(col, 2))
                p.drawRect(QRectF(r.x() + x0 * sx, r.y() + y0 * sy, (x1 - x0 + 1) * sx, (y1 - y0 + 1) * sy))
        p.end()


class ThoughtPlot(QWidget):
    """Bars per action: UCT/BFS root visits and values, or SARSA Q-values; the chosen action in orange."""

    def __init__(self, parent=None):
        super().__init__(parent)
        import pyqtgraph as pg

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("no decision yet")
        lay.addWidget(self.title)
        self.top = pg.PlotWidget()
        self.bottom = pg.PlotWidget()
        for w in (self.top, self.bottom):
            w.setFixedHeight(170)  # a plot's size hint is large; fixed keeps both in the dock without scrolling
            w.setMouseEnabled(False, False)
            w.hideButtons()
            lay.addWidget(w)
        self.top.setLabel("left", "visits")
        self.bottom.setLabel("left", "value")
        self._bars_top = None
        self._bars_bottom = None
        self.updates = 0

    def _bars(self, plot, old, heights, chosen_idx):
        import pyqtgraph as pg

        if old is not None:
            plot.removeItem(old)
        heights = np.nan_to_num(np.asarray(heights, float), nan=0.0)
        brushes = [pg.mkBrush(255, 150, 0) if i == chosen_idx else pg.mkBrush(90, 140, 220)
                   for i in range(len(heights))]
        item = pg.BarGraphItem(x=np.arange(len(heights)), height=heights, width=0.8, brushes=brushes)
        plot.addItem(item)
        return item

    def _ticks(self, actions):
        ticks = [[(i, ACTION_SHORT[a] if 0 <= a < 18 else str(a)) for i, a in enumerate(actions)]]
        small = self.font()
        small.setPointSize(max(6, small.pointSize() - 2))  # 18 action names must fit under the bars
        for w in (self.top, self.bottom):
            ax = w.getAxis("bottom")
            ax.setTicks(ticks)
            ax.setStyle(tickFont=small)

    def show_thought(self, t: dict) -> None:
        actions = [int(a) for a in t.get("actions", [])]
        if not actions:
            return
        chosen = t.get("chosen", -1)
        idx = actions.index(chosen) if chosen in actions else -1
        name = ACTION_SHORT[chosen] if 0 <= chosen < 18 else str(chosen)
        self._ticks(actions)
        kind = t.get("kind")
        if kind == "plan":
            self.top.setLabel("left", "visits")
            self.bottom.setLabel("left", "value")
            self.bottom.show()
            self._bars_top = self._bars(self.top, self._bars_top, t["visits"], idx)
            self._bars_bottom = self._bars(self.bottom, self._bars_bottom, t["value"], idx)
            self.title.setText(f"decision {t['decision']}: {name}  ({int(np.sum(t['visits']))} root visits, "
                               f"{t['seconds'] * 1000:.0f} ms)")
        elif kind == "q":
            self.top.setLabel("left", "Q")
            self.bottom.hide()
            self._bars_top = self._bars(self.top, self._bars_top, t["q"], idx)
            self.title.setText(f"decision {t['decision']}: {name}  (max Q {np.max(t['q']):.3g})")
        else:
            self.bottom.hide()
            onehot = np.zeros(len(actions))
            if idx >= 0:
                onehot[idx] = 1
            self.top.setLabel("left", "chosen")
            self._bars_top = self._bars(self.top, self._bars_top, onehot, idx)
            self.title.setText(f"decision {t['decision']}: {name}")
        self.updates += 1


class AgentsPanel(QDockWidget):
    """Choose, attach, watch, take over."""

    def __init__(self, window):
        super().__init__("Agents", window)
        self.setObjectName("agents")
        self.window = window
        self.worker = window.worker
        self.driver: AgentDriver | None = None
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-build")
        self._pending: cf.Future | None = None
        self._pending_opts: dict = {}
        self._last_thought_decision = -1
        self.store = None  # opened on the first finished episode
        body = QWidget()
        lay = QVBoxLayout(body)

        # -- choice and parameters (paper defaults)
        box = QGroupBox("Agent")
        form = QFormLayout(box)
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        form.addRow("Agent", self.kind)
        self.params = QStackedWidget()
        self.uct_sims, self.uct_depth, self.uct_c = _spin(1, 100000, 500), _spin(5, 100000, 300, 5), \
            _dspin(0, 100, 0.1)
        # root-parallel UCT: a decision at the paper's budget takes seconds, and each core cuts it down
        cores = os.cpu_count() or 1
        self.uct_threads = _spin(1, max(1, cores), cores)
        self.uct_threads.setToolTip("Trees searched at once, each with an equal share of the simulations "
                                    "(root-parallel UCT). 1 is the paper's sequential search.")
        self.bfs_frames = _spin(10, 10_000_000, 133_000, 1000)
        self.sarsa_features = QComboBox()
        self.sarsa_features.addItems(["bass", "basic", "disco", "lsh", "ram", "blobprost"])
        self.sarsa_alpha, self.sarsa_lam, self.sarsa_eps = _dspin(0, 10, 0.5), _dspin(0, 1, 0.9), \
            _dspin(0, 1, 0.05, 0.01)
        self.sarsa_weights = QLineEdit()
        self.sarsa_weights.setPlaceholderText("weights file (.npz), optional")
        self.sarsa_learn = QCheckBox("keep learning while it plays")
        self.sarsa_samples = _spin(100, 100_000, 18_000, 1000)
        self.const_action = _spin(0, 17, 0)
        self.perturb_action, self.perturb_keep = _spin(0, 17, 0), _dspin(0, 1, 0.95, 0.01)
        self.params.addWidget(self._form(("Simulations", self.uct_sims), ("Depth (frames)", self.uct_depth),
                                         ("Exploration c", self.uct_c), ("Search threads", self.uct_threads)))
        self.params.addWidget(self._form(("Budget (frames)", self.bfs_frames)))
        browse = QPushButton("…")
        browse.clicked.connect(self._browse_weights)
        wrow = QWidget()
        wl = QHBoxLayout(wrow)
        wl.setContentsMargins(0, 0, 0, 0)
        wl.addWidget(self.sarsa_weights)
        wl.addWidget(browse)
        self.params.addWidget(self._form(("Features", self.sarsa_features), ("α", self.sarsa_alpha),
                                         ("λ", self.sarsa_lam), ("ε", self.sarsa_eps), ("Weights", wrow),
                                         ("Background samples", self.sarsa_samples), ("", self.sarsa_learn)))
        self.params.addWidget(QLabel("Uniform over the action set, every frame."))
        self.params.addWidget(self._form(("Action", self.const_action)))
        self.params.addWidget(self._form(("Action", self.perturb_action), ("Keep probability", self.perturb_keep)))
        # an agent in any language speaking arcade-lab-agent/1 (docs/agent-protocol.md)
        self.ext_spec = QLineEdit()
        self.ext_spec.setPlaceholderText("command (python3 my_agent.py) or tcp:HOST:PORT")
        self.params.addWidget(self._form(("Command", self.ext_spec)))
        self.brute_eps = _dspin(0, 1, 0.005, 0.001)
        self.params.addWidget(self._form(("ε (narrow exploration)", self.brute_eps), (
            "", QLabel("Replays its best trajectory so far; learns every episode while attached."))))
        self.kind.currentIndexChanged.connect(self._show_params)
        self.sarsa_features.currentTextChanged.connect(self._paper_sarsa)
        form.addRow(self.params)
        # planners: search until each decision's frames are due, or to the exact budget above
        self.realtime = QCheckBox("Keep real time")
        self.realtime.setChecked(True)
        self.realtime.setToolTip("Each decision searches until its frames are due (anytime search) and the "
                                 "panel shows how much search that was. Off: the exact budget above, "
                                 "as evaluation runs use, however long it takes.")
        self.realtime.toggled.connect(lambda _on: self._show_budget())
        form.addRow(self.realtime)
        self.fpa = _spin(1, 60, 5)
        self.seed = _spin(0, 2 ** 31 - 1, 0)
        form.addRow("Frames per action", self.fpa)
        form.addRow("Seed", self.seed)
        self._chosen_fpa = self.fpa.value()  # the person's choice, kept while an agent fixes its own
        self._show_params(0)
        self.start_from = QComboBox()
        self.start_from.addItems(["current state", "fresh reset", "save state (current slot)"])
        form.addRow("Start from", self.start_from)
        lay.addWidget(box)

        # -- controls: above the scrolled settings, in sight however short the dock is
        bar = QVBoxLayout()
        row = QHBoxLayout()
        self.attach_btn = QPushButton("Attach")
        self.attach_btn.clicked.connect(self.toggle_attach)
        self.play_btn = QPushButton("Pause")
        self.play_btn.setCheckable(True)
        self.play_btn.toggled.connect(self._play_pause)
        self.step_btn = QPushButton("Step")
        self.step_btn.clicked.connect(self._step)
        for b in (self.attach_btn, self.play_btn, self.step_btn):
            row.addWidget(b)
        bar.addLayout(row)
        row2 = QHBoxLayout()
        self.speed = QComboBox()
        for label, _ in SPEED_CHOICES:
            self.speed.addItem(label)
        self.speed.setCurrentIndex(REAL_TIME)
        self._speed_index = REAL_TIME   # the choice in force (a refused one goes back to it)
        self.speed.currentIndexChanged.connect(self._speed_chosen)
        row2.addWidget(QLabel("Speed"))
        row2.addWidget(self.speed)
        bar.addLayout(row2)
        self.takeover_btn = QPushButton("Take over (Tab)")
        self.takeover_btn.setCheckable(True)
        self.takeover_btn.setEnabled(False)
        self.takeover_btn.toggled.connect(self._takeover)
        row2.addWidget(self.takeover_btn)
        self.overlay_box = QCheckBox("Show the agent's features on the screen")
        self.overlay_box.toggled.connect(self._overlay_toggled)
        lay.addWidget(self.overlay_box)
        self.status = QLabel("no agent attached")
        self.status.setWordWrap(True)
        bar.addWidget(self.status)   # what the agent is doing, in sight with its controls
        self.lag = QLabel("")
        self.lag.setWordWrap(True)
        self.lag.hide()
        bar.addWidget(self.lag)

        # -- what it thinks
        think = QGroupBox("What the agent thinks")
        tl = QVBoxLayout(think)
        self.thought = ThoughtPlot()
        tl.addWidget(self.thought)
        lay.addWidget(think)
        lay.addStretch(1)
        outer = QWidget()
        ol = QVBoxLayout(outer)
        ol.setContentsMargins(6, 6, 6, 0)
        ol.addLayout(bar)
        self.scroll = scrolled(body)
        ol.addWidget(self.scroll, 1)
        self.setWidget(outer)

        self.overlay = FeatureOverlay(window.view)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._poll)
        self.timer.start(100)
        self.worker.session_loaded.connect(self._session_changed, Qt.ConnectionType.QueuedConnection)

    def _show_params(self, i: int) -> None:
        # a stacked widget is as tall as its tallest page; let only the shown page claim space
        for j in range(self.params.count()):
            pol = QSizePolicy.Policy.Preferred if j == i else QSizePolicy.Policy.Ignored
            self.params.widget(j).setSizePolicy(pol, pol)
        self.params.setCurrentIndex(i)
        self.params.adjustSize()
        self.realtime.setVisible(KINDS[i] in ("UCT", "BFS"))
        self._show_budget()
        self._show_decision_period()

    def _show_budget(self) -> None:
        """Keep real time replaces UCT's simulation count; BFS's frame budget stays as its ceiling."""
        self.uct_sims.setEnabled(not self.realtime.isChecked())
        self.uct_sims.setToolTip("searches until each decision is due (Keep real time)" if self.realtime.isChecked()
                                 else "simulations per decision")

    def _show_decision_period(self) -> None:
        """An agent with its own decision period (Random: every frame, as in ALE 2013) shows that one,
        fixed; the others show the person's choice again."""
        own = OWN_FRAMES_PER_ACTION.get(self.kind.currentText())
        if own is None:
            if not self.fpa.isEnabled():
                self.fpa.setValue(self._chosen_fpa)
            self.fpa.setEnabled(True)
            self.fpa.setToolTip("")
            return
        if self.fpa.isEnabled():
            self._chosen_fpa = self.fpa.value()
        self.fpa.setValue(own)
        self.fpa.setEnabled(False)
        self.fpa.setToolTip(f"{self.kind.currentText()} decides every {own} frame{'s' if own > 1 else ''}")

    @staticmethod
    def _form(*rows) -> QWidget:
        w = QWidget()
        f = QFormLayout(w)
        f.setContentsMargins(0, 0, 0, 0)
        for label, widget in rows:
            f.addRow(label, widget) if label else f.addRow(widget)
        return w

    def _paper_sarsa(self, fs: str) -> None:
        from arcade_lab.agents.sarsa import PAPER_CONFIG, PAPER_PARAMS, SarsaConfig

        a, lam = PAPER_PARAMS.get(fs, (0.5, 0.9))
        self.sarsa_alpha.setValue(a)
        self.sarsa_lam.setValue(lam)
        self.sarsa_eps.setValue(PAPER_CONFIG.get(fs, {}).get("epsilon", SarsaConfig.epsilon))  # Blob-PROST: 0.01

    def _browse_weights(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "SARSA weights", "", "Weights (*.npz);;All files (*)")
        if path:
            self.sarsa_weights.setText(path)

    # -- configuration ----------------------------------------------------------------------------------
    def configure(self, kind: str, **values) -> None:
        """Set the panel as a person would (used by tests and the training panel's "attach")."""
        self.kind.setCurrentIndex(KINDS.index(kind))
        widgets = {"sims": self.uct_sims, "depth": self.uct_depth, "c": self.uct_c, "threads": self.uct_threads,
                   "frames": self.bfs_frames,
                   "alpha": self.sarsa_alpha, "lam": self.sarsa_lam, "epsilon": self.sarsa_eps,
                   "samples": self.sarsa_samples, "action": self.const_action if kind == "Const"
                   else self.perturb_action, "keep": self.perturb_keep, "fpa": self.fpa, "seed": self.seed,
                   "brute_epsilon": self.brute_eps}
        for k, v in values.items():
            if k == "features":
                self.sarsa_features.setCurrentText(v)
            elif k == "weights":
                self.sarsa_weights.setText(str(v or ""))
            elif k == "learn":
                self.sarsa_learn.setChecked(bool(v))
            elif k == "fresh":
                self.start_from.setCurrentIndex(1 if v else 0)
            elif k == "realtime":
                self.realtime.setChecked(bool(v))
            elif k == "command":
                self.ext_spec.setText(str(v))
            else:
                widgets[k].setValue(v)

    def spec(self) -> tuple[str, dict]:
        """The registry spec and parameters the panel describes."""
        k = self.kind.currentText()
        if k == "UCT":
            return "uct", {"simulations": self.uct_sims.value(), "depth_frames": self.uct_depth.value(),
                           "exploration": self.uct_c.value(), "workers": self.uct_threads.value()}
        if k == "BFS":
            return "bfs", {"frames": self.bfs_frames.value()}
        if k == "SARSA(λ)":
            return f"sarsa:{self.sarsa_features.currentText()}", {
                "alpha": self.sarsa_alpha.value(), "lam": self.sarsa_lam.value(),
                "epsilon": self.sarsa_eps.value(), "n_samples": self.sarsa_samples.value()}
        if k == "Const":
            return f"const:{self.const_action.value()}", {}
        if k == "Perturb":
            return f"perturb:{self.perturb_action.value()}", {}
        if k == "Brute":
            return "brute", {"epsilon": self.brute_eps.value()}
        if k == "External":
            text = self.ext_spec.text().strip()
            if text.startswith("ext:"):
                return text, {}
            return (f"ext:{text}" if text.startswith("tcp:") else f"ext:cmd:{text}"), {}
        return "random", {}

    # -- attach / detach -----------------------------------------------------------------------------------
    def toggle_attach(self) -> None:
        if self.driver is not None or self._pending is not None:
            self.detach()
        else:
            self.attach()

    def attach(self) -> bool:
        sess = self.window.session
        if sess is None:
            self.status.setText("open a game first")
            return False
        if self.window.locked("agents", "agent attached"):
            self.status.setText(SCORED_REFUSAL)
            return False
        if self._pending is not None:
            return False
        spec, params = self.spec()
        weights = self.sarsa_weights.text().strip() if spec.startswith("sarsa") else ""
        if weights and not Path(weights).is_file():
            self.status.setText(f"weights file not found: {weights}")
            return False
        state = None
        if self.start_from.currentIndex() == 2:
            from ..statefile import StateFileError

            w = self.window
            try:
                state = w.slots.load(sess.info.md5, w.slot, sess.info.title)
            except StateFileError as e:   # empty slot, another ROM, damaged file: say so, attach nothing
                self.status.setText(f"cannot start from slot {w.slot}: {e}")
                return False
        opts = {"spec": spec, "fresh": self.start_from.currentIndex() == 1, "state": state, "fpa": self.fpa.value(),
                "seed": self.seed.value(), "session": sess, "learn": self.sarsa_learn.isChecked(),
                "perturb_keep": self.perturb_keep.value(),
                "realtime": self.realtime.isChecked() and self.kind.currentText() in ("UCT", "BFS")}
        self._pending_opts = opts
        self.status.setText(f"preparing {spec}…")
        self.attach_btn.setText("Cancel")
        self._pending = self._pool.submit(self._build, sess, spec, params, weights, opts)
        return True

    @staticmethod
    def _build(sess, spec, params, weights, opts):
        """Off the GUI thread: build the agent. Feature sets that sample screens play their own copy of
        the game, never the session's console."""
        from arcade_lab.agents.registry import make_agent

        if spec.startswith("sarsa"):
            from arcade_lab import engine

            env = engine.Env(str(sess.info.path or sess.info.id), mode=sess.env.mode, frameskip=opts["fpa"],
                             repeat_action_probability=0.0, seed=opts["seed"])
            if weights:
                params = dict(params, n_samples=min(200, params.get("n_samples", 200)))
            agent = make_agent(spec, env, opts["seed"], **params)
            if weights:
                agent.load(weights)
            agent.learning = bool(opts["learn"])
            return agent
        if spec.startswith("perturb"):
            agent = make_agent(spec, None, opts["seed"])
            if hasattr(agent, "keep"):
                agent.keep = float(opts["perturb_keep"])
            return agent
        return make_agent(spec, sess.env, opts["seed"], **params)

    def _finish_build(self) -> None:
        fut, self._pending = self._pending, None
        self.attach_btn.setText("Attach")
        try:
            agent = fut.result()
        except Exception as e:  # bad parameters or weights: say so, keep the game running
            self.status.setText(f"cannot build the agent: {type(e).__name__}: {e}")
            return
        opts = self._pending_opts
        sess = opts["session"]
        if sess is not self.window.session:
            self.status.setText("the game changed while the agent was being prepared")
            return
        # an agent with its own decision period (Random: every frame, as in the paper) keeps it
        fpa = getattr(agent, "frames_per_action", None) or opts["fpa"]
        driver = AgentDriver(agent, frames_per_action=fpa, store=self._store(), seed=opts["seed"],
                             keep_real_time=opts.get("realtime", False))
        driver.overlay = self.overlay_box.isChecked()
        fresh = opts["fresh"]
        worker = self.worker

        def install(s):
            if s is not sess:
                return
            if fresh:
                s.env.reset()
            elif opts.get("state") is not None:
                from ..statefile import to_session

                to_session(opts["state"], s)
            driver.install(worker, s)
        self.driver = driver
        worker.call(install)
        self.attach_btn.setText("Detach")
        self.takeover_btn.setEnabled(True)
        self.takeover_btn.setChecked(False)
        self.status.setText(f"{driver.name} attached")

    def _store(self):
        if self.store is None:
            try:
                from arcade_lab.agents.evaluation.store import Store

                self.store = Store()
            except Exception as e:  # no database: agents still play, scores are not kept
                self.status.setText(f"scores will not be saved: {e}")
                return None
        return self.store

    def detach(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self.driver is not None:
            self.driver.uninstall()
            close = getattr(self.driver.agent, "close", None)
            if callable(close):   # external agents: end the child process / connection
                if self.window.worker.isRunning():
                    self.window.worker.call(lambda _s: close())
                else:                 # (the window is closing: the emulator thread has stopped)
                    close()
            self.driver = None
        self.overlay.set_data(None)
        self.attach_btn.setText("Attach")
        self.takeover_btn.setChecked(False)
        self.takeover_btn.setEnabled(False)
        self.takeover_btn.setText("Take over (Tab)")
        fast = SPEED_CHOICES[self._speed_index][1]
        if fast is None or fast > 1.0:
            self.speed.setCurrentIndex(REAL_TIME)   # the agent's pace is no pace for a person playing on
        self.status.setText("no agent attached")
        self.lag.setText("")
        self.lag.hide()   # (no blank line under the status while no agent plays)

    def _session_changed(self, sess) -> None:
        if self.driver is not None and self.driver.session is not sess:
            self.detach()
            self.status.setText("agent detached: another game was loaded")

    # -- controls ---------------------------------------------------------------------------------------------
    def _speed_chosen(self, i: int) -> None:
        """Through the window, which refuses (and says so) while a scored session locks the speed."""
        if self.window.set_speed(SPEED_CHOICES[i][1]):
            self._speed_index = i
            return
        self.speed.blockSignals(True)   # back to the speed still in force, without asking again
        self.speed.setCurrentIndex(self._speed_index)
        self.speed.blockSignals(False)

    def _play_pause(self, paused: bool) -> None:
        if paused and self.window.locked("pause", "pause"):   # a scored session runs on: said on the view
            self.play_btn.blockSignals(True)
            self.play_btn.setChecked(False)
            self.play_btn.blockSignals(False)
            return
        self.play_btn.setText("Play" if paused else "Pause")
        self.worker.pause(paused)
        pa = getattr(self.window, "pause_action", None)
        if pa is not None and pa.isChecked() != paused:
            pa.setChecked(paused)

    def _step(self) -> None:
        if self.window.locked("pause", "single-stepping"):
            return
        if not self.play_btn.isChecked():
            self.play_btn.setChecked(True)
        # one decision's worth of frames: what "step" means when watching an agent
        n = self.driver.frames_per_action if self.driver is not None else 1
        if n <= 1:
            self.worker.step_frame()
            return
        worker = self.worker
        left = [n]

        def count(_sess):
            left[0] -= 1
            if left[0] <= 0:
                worker.paused = True  # on the worker thread, between frames: stops exactly here
                worker.hooks.remove(count)
        worker.hooks.append(count)
        worker.pause(False)

    def toggle_takeover(self) -> None:
        if self.driver is not None:
            self.takeover_btn.setChecked(not self.takeover_btn.isChecked())

    def _takeover(self, human: bool) -> None:
        if self.driver is None:
            return
        self.driver.set_agent_control(not human)
        self.takeover_btn.setText("Give back to the agent (Tab)" if human else "Take over (Tab)")
        msg = "You have the controls" if human else f"{self.driver.name} has the controls"
        self.window.statusBar().showMessage(msg, 2000)
        self.window.view.flash(msg)   # on the game, where the player is looking

    def _overlay_toggled(self, on: bool) -> None:
        if self.driver is not None:
            self.driver.overlay = on
        self.overlay.setVisible(on)
        if not on:
            self.overlay.set_data(None)

    # -- polling ------------------------------------------------------------------------------------------------
    def _poll(self) -> None:
        if self._pending is not None and self._pending.done():
            self._finish_build()
        d = self.driver
        if d is None:
            self._clear_stale_refusal()
            return
        while d.errors:
            msg = d.errors.pop(0)
            self.window.statusBar().showMessage(msg, 8000)
            if not d.agent_in_control and self.takeover_btn.isEnabled() and not self.takeover_btn.isChecked():
                self.takeover_btn.setChecked(True)  # the agent failed and handed back control
        if not self.isVisible() and not self.overlay.isVisible():
            return
        thought, overlay = d.latest()
        if thought is not None and thought["decision"] != self._last_thought_decision:
            self._last_thought_decision = thought["decision"]
            self.thought.show_thought(thought)
        if self.overlay.isVisible():
            self.overlay.set_data(overlay)
        who = "agent" if d.agent_in_control else "you"
        # the episode recorded since the agent was attached (the status bar counts the console's)
        self.status.setText(f"{d.name} — {who} in control · recording {d.episode_frames} frames, "
                            f"score {d.episode_score:g} · {d.decisions} decisions, {d.episodes_done} episodes")
        self.lag.setText(self._lag_line(d))
        self.lag.setVisible(bool(self.lag.text()))

    def _lag_line(self, d: AgentDriver) -> str:
        """Real-time factor, frames behind and the search effort per decision (recent mean)."""
        effort = d.effort_per_decision
        search = "" if effort is None else f" · {effort:.0f} {d.search_unit}/decision"
        if self.worker.unthrottled or self.worker.speed != 1.0:
            return f"{d.realtime_factor:.2f}× real time{search}"
        behind = f"{d.frames_behind:.0f} frames behind"
        if d.realtime_factor < 0.97:
            return f"slower than real time: {d.realtime_factor:.2f}×, {behind}{search}"
        return f"real time ({d.realtime_factor:.2f}×), {behind}{search}"

    def _clear_stale_refusal(self) -> None:
        """The refusal to attach during a scored session holds only while that session runs."""
        sess = self.window.session
        if self.status.text() == SCORED_REFUSAL and "agents" not in getattr(sess, "locks", ()):
            self.status.setText("no agent attached")

    def shutdown(self) -> None:
        self.timer.stop()
        self.detach()
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self.store is not None:
            try:
                self.store.close()
            except Exception:
                pass


class AgentUI:
    """Everything the agents feature adds to the main window."""

    def __init__(self, window):
        from .scores import ScoresPanel
        from ..training import TrainingPanel

        self.window = window
        self.agents = AgentsPanel(window)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.agents)
        self.training = TrainingPanel(window, self)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.training)
        self.scores = ScoresPanel(window)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.scores)
        window.tabifyDockWidget(self.agents, self.training)
        window.tabifyDockWidget(self.training, self.scores)
        self.agents.raise_()
        window.resizeDocks([self.agents], [470], Qt.Orientation.Horizontal)
        above = getattr(window, "sessions", None)  # the states/sessions tab group shares the column
        if above is not None:
            window.resizeDocks([above, self.agents], [220, 520], Qt.Orientation.Vertical)
        self.races: list = []
        bar = window.menuBar()
        m = QMenu("A&gents", bar)
        help_ = next((a for a in bar.actions() if a.text() == "&Help"), None)
        bar.insertMenu(help_, m) if help_ is not None else bar.addMenu(m)   # Help stays last
        for dock in (self.agents, self.training, self.scores):
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        self.takeover_action = QAction("Take over / give back (Tab)", window)
        self.takeover_action.setShortcut(QKeySequence(Qt.Key.Key_Tab))
        self.takeover_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.takeover_action.triggered.connect(self.agents.toggle_takeover)
        m.addAction(self.takeover_action)
        window.addAction(self.takeover_action)
        race = QAction("Race mode…", window)
        race.triggered.connect(lambda checked=False: self.setup_race())
        m.addAction(race)

    def setup_race(self):
        """Race mode…: the setup dialog, then the race; None when cancelled or refused (the status bar
        says why: a game the agents cannot play, an empty slot)."""
        from ..race import setup_race

        return setup_race(self.window, self.open_race)

    def open_race(self, left: str = "human", right: str = "uct", **kw):
        from ..race import RaceWindow

        sess = self.window.session
        game = str(sess.info.path or sess.info.id) if sess is not None else "seaquest"
        if sess is not None:   # the player's game setup
            kw = {"mode": sess.env.mode, "difficulty": sess.difficulty, **kw}
        rw = RaceWindow(game, left=left, right=right, input_state=self.window.input, **kw)
        self.races.append(rw)
        rw.closed.connect(lambda: self.races.remove(rw) if rw in self.races else None)
        rw.show()
        return rw

    def shutdown(self) -> None:
        self.agents.shutdown()
        self.training.shutdown()
        self.scores.shutdown()
        for r in list(self.races):
            r.close()
        self.races = []


def install_agent_ui(window) -> AgentUI:
    """Add the Agents, Training and Scores docks, the Agents menu and Tab takeover to ``window``."""
    from ..qt_refcount_guard import guard

    guard()  # PySide6 6.12 drains None's refcount in paint calls; the live plots paint a lot
    return AgentUI(window)
