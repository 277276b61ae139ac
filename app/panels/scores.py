"""Live score distributions: every player's episode scores for the current game, from the store.

Histogram and empirical CDF per player (humans and each agent), refreshed when the store gains an
episode (a QTimer polls ``episodes(since_id=...)``, which reads only new rows). The published tables come
from ``agents/evaluation/references.py`` (the shipped ones and the user's): the human-normalised view names
its reference set (Atari-57 or Nature 2015, selectable), the panel draws the across-games
score-distribution plot (fraction of games whose normalised mean score is at least x), and it can overlay
published marks — random, human, the papers' agents — on a game's histogram and ECDF. Without any table
only raw scores are offered. Under the figures, a line says how many of the game's episodes they leave out
and why (cut short by detaching an agent, abandoned mid-episode, shared in a takeover).
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QComboBox, QDockWidget, QFormLayout, QLabel, QVBoxLayout, QWidget

from .scroll import fixed, scrolled

MARK_COLOURS = {"random": (190, 190, 190), "human": (255, 90, 90)}   # dashed; published agents: gold, dotted
AGENT_MARK = (255, 200, 40)
COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]


def load_tables() -> tuple[dict, str]:
    """(published tables, problem): the shipped and the user's tables; when a user table is bad, the shipped
    ones and what is wrong (a bad table must not stop the panel)."""
    try:
        from arcade_lab.agents.evaluation import references as REF

        try:
            return REF.load_all(), ""
        except REF.ReferenceError as e:
            return REF.load_all(user=False), f"user tables skipped: {e}"
    except Exception as e:
        return {}, f"no published tables: {e}"


def published_marks(tables: dict, game: str, human: str, which: str | None) -> list[tuple[str, float]]:
    """(label, published score) to draw on ``game``: none for ``which`` None; the human set's random and
    human for "human"; those and one table's marks for its name; every table's for "*"."""
    if which is None:
        return []
    ref = tables[human].human_reference().get(game) if human in tables else None
    out = []
    for name, t in tables.items():
        if which in (name, "*") and name != human:
            out += [(f"{c} ({name})", v) for c, v in t.mark_values(game)]
    # last, so that their labels sit lowest, clear of the legend in the top right corner
    return out + ([(f"random ({human})", ref.random), (f"human ({human})", ref.human)] if ref else [])


def normalise(scores: np.ndarray, ref: tuple[float, float] | None, how: str) -> np.ndarray:
    """Raw, random-normalised or human-normalised, exactly as the evaluation toolkit defines them
    (``agents.evaluation.metrics``: s / random, ALE 2013 §4.1.1; (s - random) / (human - random))."""
    if how == "raw" or ref is None:
        return scores
    from arcade_lab.agents.evaluation.metrics import human_normalised, random_normalised

    rnd, hum = ref
    return random_normalised(scores, rnd) if how == "random" else human_normalised(scores, rnd, hum)


LEFT_OUT_WHY = (("detached", "cut short by detaching an agent"),
                ("abandoned", "abandoned mid-episode (a session ended or the app closed)"),
                ("takeover", "shared by a person and an agent (takeover)"))


def left_out_text(counts: dict[str, int]) -> str:
    """One line per reason the figures leave episodes out (``Store.uncounted``); "" when none are."""
    return "\n".join(f"{n} episode{'' if n == 1 else 's'} {why} {'is' if n == 1 else 'are'} not counted"
                     for key, why in LEFT_OUT_WHY if (n := counts.get(key, 0)))


def ecdf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xs = np.sort(x)
    return xs, np.arange(1, len(xs) + 1) / len(xs)


def _narrow(box: QComboBox) -> None:
    """A choice as narrow as the dock: its longest item ("Atari-57 (Agent57 / DQN Zoo) (atari57)") had set
    the dock's least width, and the column it shares had to scroll sideways. The list still opens wide
    enough for every item, and the tooltip holds the whole of the current one."""
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(12)
    box.setToolTip(box.currentText())
    box.currentTextChanged.connect(box.setToolTip)


class ScoresPanel(QDockWidget):
    def __init__(self, window, store=None, poll_ms: int = 1000):
        super().__init__("Scores", window)
        self.setObjectName("scores")
        import pyqtgraph as pg

        self.window = window
        self._store = store
        self.tables, problem = load_tables()
        self.human_sets = {n: t for n, t in self.tables.items() if t.human is not None}
        self.refs: dict = {}
        self.marks: list[tuple[str, float]] = []   # the published marks drawn now, normalised as the view
        self.last_id = 0
        self.game: str | None = None
        self.refreshes = 0
        self.data: dict[str, np.ndarray] = {}
        body = QWidget()
        lay = QVBoxLayout(body)
        form = QFormLayout()
        self.game_label = QLabel("no game")
        form.addRow("Game", self.game_label)
        # the live view of every player, or one evaluation run (arcade-lab eval) with the same figures
        self.source = QComboBox()
        self.source.addItem("all episodes", None)
        self.source.currentIndexChanged.connect(lambda _: self._source_changed())
        form.addRow("Source", self.source)
        self.protocol = QComboBox()
        self.protocol.addItem("all protocols")
        self.protocol.currentIndexChanged.connect(lambda _: self.refresh())
        form.addRow("Protocol", self.protocol)
        self.norm = QComboBox()
        self.norm.addItem("raw scores", "raw")
        if self.human_sets:
            self.norm.addItem("random-normalised", "random")
            self.norm.addItem("human-normalised", "human")
        self.norm.currentIndexChanged.connect(lambda _: self.refresh())
        form.addRow("View", self.norm)
        # which published random/human figures normalise and mark: Nature's own or the later Atari-57 set
        self.human = QComboBox()
        for name, t in self.human_sets.items():
            self.human.addItem(f"{t.title} ({name})", name)
        from arcade_lab.agents.evaluation.references import DEFAULT_HUMAN

        self.human.setCurrentIndex(max(0, self.human.findData(DEFAULT_HUMAN)))   # the reports' default set
        self.human.currentIndexChanged.connect(lambda _: self._human_changed())
        form.addRow("Human reference", self.human)
        self.published = QComboBox()
        self.published.addItem("no published marks", None)
        self.published.addItem("random and human", "human")
        for name, t in self.tables.items():
            if set(t.marks) - set(t.human or ()):
                self.published.addItem(f"random, human and {t.title}", name)
        self.published.addItem("random, human and every table", "*")
        self.published.currentIndexChanged.connect(lambda _: self.refresh())
        form.addRow("Published", self.published)
        for box in (self.source, self.protocol, self.norm, self.human, self.published):
            _narrow(box)
        lay.addLayout(form)
        self.problem = QLabel(problem)
        self.problem.setWordWrap(True)
        self.problem.setVisible(bool(problem))
        lay.addWidget(self.problem)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        # the episodes of the game the figures leave out, and why (hidden when none are)
        self.left_out = QLabel("")
        self.left_out.setObjectName("left_out")
        self.left_out.setWordWrap(True)
        self.left_out.hide()
        lay.addWidget(self.left_out)
        legend = {"offset": (-10, 10), "brush": pg.mkBrush(0, 0, 0, 170)}   # bars stay readable behind it
        self.hist = pg.PlotWidget(title="Histogram")
        self.hist.addLegend(**legend)
        self.cdf = pg.PlotWidget(title="Empirical CDF")
        self.cdf.setYRange(0, 1)
        self.cdf.addLegend(**legend)
        self.across = pg.PlotWidget(title="Games with normalised score ≥ x")
        self.across.setLabel("left", "fraction of games")
        for w in (self.hist, self.cdf, self.across):
            w.setMinimumHeight(150)
            fixed(w)
            lay.addWidget(w)
        if not self.human_sets:
            self.across.hide()
            lay.addWidget(QLabel("No human reference table: raw scores only."))
        self.setWidget(scrolled(body))
        self._human_changed()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(poll_ms)

    def human_set(self) -> str:
        return self.human.currentData() or ""

    def _human_changed(self) -> None:
        """The human-normalised view names its reference set; normalisation and marks follow the choice."""
        name = self.human_set()
        self.refs = self.human_sets[name].human_reference() if name else {}
        i = self.norm.findData("human")
        if i >= 0:
            self.norm.setItemText(i, f"human-normalised ({name})")
        if self.game is not None:
            self.refresh()

    def store(self):
        if self._store is None:
            try:
                from arcade_lab.agents.evaluation.store import Store

                self._store = Store()
            except Exception as e:  # no database: show why, keep polling quietly
                self.summary.setText(f"no score database: {e}")
                self.timer.stop()
                return None
        return self._store

    def run_id(self):
        return self.source.currentData()

    def _refresh_runs(self, st) -> None:
        known = {self.source.itemData(i) for i in range(self.source.count())}
        try:
            runs = st.runs()
        except Exception:
            return
        for r in runs:
            if r["id"] not in known:
                self.source.addItem(f"run {r['name']} ({r['protocol']})", r["id"])

    def open_run(self, name_or_id) -> bool:
        """Show an evaluation run's figures (as `arcade-lab report` does), updating while it runs."""
        st = self.store()
        if st is None:
            return False
        self._refresh_runs(st)
        run = st.run(name_or_id)
        if run is None:
            return False
        self.source.setCurrentIndex(self.source.findData(run["id"]))
        return True

    def _source_changed(self) -> None:
        self._pick_game()
        self.refresh()

    def _pick_game(self) -> None:
        """In a run, show the current game if the run has it, else the run's first game."""
        sess = getattr(self.window, "session", None)
        game = sess.info.id if sess is not None else None
        rid = self.run_id()
        st = self.store()
        if rid is not None and st is not None:
            games = st.run_games(rid)
            if games and game not in games:
                game = games[0]
        self.game = game

    # -- polling --------------------------------------------------------------------------------------------
    def poll(self) -> bool:
        """Refresh when the game changed or the store gained episodes; True when it refreshed."""
        sess = getattr(self.window, "session", None)
        game = sess.info.id if sess is not None else None
        st = self.store()
        if st is None:
            return False
        try:
            new = st.episodes(since_id=self.last_id)
        except Exception as e:
            self.summary.setText(f"cannot read scores: {e}")
            return False
        if new:
            self.last_id = max(int(getattr(r, "id", 0) or 0) for r in new) or self.last_id
            self._refresh_runs(st)
        protos = sorted({r.protocol for r in new} - {self.protocol.itemText(i) for i in range(self.protocol.count())})
        for p in protos:
            self.protocol.addItem(p)
        old = self.game
        if self.run_id() is not None:
            self._pick_game()
        else:
            self.game = game
        if self.game != old or new:
            self.refresh()
            return True
        self._show_left_out(st)   # (episodes left out are never "new": they are not finished)
        return False

    def _show_left_out(self, st) -> None:
        """Say how many episodes of the game the figures leave out, and why."""
        proto = self.protocol.currentText() if self.protocol.currentIndex() > 0 else None
        try:
            counts = st.uncounted(self.game, proto, self.run_id()) if self.game is not None else {}
        except Exception:
            counts = {}
        text = left_out_text(counts)
        if text != self.left_out.text():
            self.left_out.setText(text)
            self.left_out.setVisible(bool(text))

    def refresh(self) -> None:
        st = self.store()
        if st is None or self.game is None:
            return
        import pyqtgraph as pg

        proto = self.protocol.currentText() if self.protocol.currentIndex() > 0 else None
        how = self.norm.currentData() or "raw"
        ref = self.refs.get(self.game)
        try:
            raw = st.scores(self.game, proto, self.run_id())
        except Exception as e:
            self.summary.setText(f"cannot read scores: {e}")
            return
        self.data = {p: normalise(v, ref, how) for p, v in raw.items()}
        self.game_label.setText(self.game + ("" if ref or how == "raw" else " (no reference: raw)"))
        for w in (self.hist, self.cdf):
            w.clear()
        allv = np.concatenate(list(self.data.values())) if self.data else np.zeros(0)
        allv = allv[np.isfinite(allv)]
        lines = []
        top = 0.0
        if allv.size:
            lo, hi = float(allv.min()), float(allv.max())
            if hi == lo:
                lo, hi = lo - 0.5, hi + 0.5
            edges = np.linspace(lo, hi, min(30, max(5, int(np.sqrt(allv.size)) + 1)) + 1)
            for i, (p, v) in enumerate(sorted(self.data.items())):
                v = v[np.isfinite(v)]
                if not v.size:
                    continue
                col = COLOURS[i % len(COLOURS)]
                counts, _ = np.histogram(v, edges)
                frac = counts / v.size  # fractions, so players with many episodes do not drown the rest
                self.hist.plot(edges, frac, stepMode="center", fillLevel=0, name=p,
                               pen=pg.mkPen(col, width=2), brush=(*col, 60))
                xs, ys = ecdf(v)
                self.cdf.plot(np.repeat(xs, 2)[1:], np.repeat(ys, 2)[:-1], name=p, pen=pg.mkPen(col, width=2))
                lines.append(f"{p}: n={v.size}, mean {v.mean():.4g}, median {np.median(v):.4g}")
                top = max(top, float(frac.max()))
        if top:
            # headroom above the tallest bar for the legend's rows, so that it covers no bar
            self.hist.setYRange(0, top * (1.15 + 0.13 * len(lines)), padding=0)
        self._draw_marks(ref, how, allv)
        if self.marks:
            lines.append("published: " + ", ".join(f"{label} {v:.4g}" for label, v in self.marks))
        self.summary.setText("\n".join(lines) if lines else f"no finished episodes of {self.game} yet")
        self._show_left_out(st)
        if self.refs and not self.across.isHidden():
            self._across(st, proto, how if how != "raw" else "human")
        self.refreshes += 1

    def _draw_marks(self, ref, how: str, allv: np.ndarray) -> None:
        """Published figures of the game as labelled vertical lines on the histogram and the ECDF, normalised
        as the view is; the x range is widened so that every mark is in sight."""
        import pyqtgraph as pg
        from PySide6.QtCore import Qt

        marks = published_marks(self.tables, self.game, self.human_set(), self.published.currentData())
        self.marks = [(label, float(normalise(np.array([v]), ref, how)[0])) for label, v in marks]
        self.marks = [(label, v) for label, v in self.marks if np.isfinite(v)]
        xs = [v for _, v in self.marks] + [float(x) for x in allv]
        lo, hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
        step = 0.9 / max(len(self.marks), 1)      # one label height each, so that near marks stay readable
        for i, (label, v) in enumerate(self.marks):
            kind = label.split(" ", 1)[0]
            col = MARK_COLOURS.get(kind, AGENT_MARK)
            style = Qt.PenStyle.DashLine if kind in MARK_COLOURS else Qt.PenStyle.DotLine
            side = 1 if v > (lo + hi) / 2 else 0  # labels of marks on the right open to the left
            for w in (self.hist, self.cdf):
                w.addItem(pg.InfiniteLine(pos=v, angle=90, pen=pg.mkPen(col, width=2, style=style), label=label,
                                          labelOpts={"position": 0.95 - step * i, "color": col,
                                                     "fill": (0, 0, 0, 170), "anchors": [(side, 0.5), (side, 0.5)]}))
        if self.marks:
            pad = (hi - lo) * 0.05 or 1.0
            for w in (self.hist, self.cdf):
                w.setXRange(lo - pad, hi + pad, padding=0)
        else:
            for w in (self.hist, self.cdf):
                w.enableAutoRange(x=True)

    def _across(self, st, proto, how) -> None:
        """Fraction of games (with a reference) whose mean normalised score is >= x, per player."""
        import pyqtgraph as pg

        self.across.clear()
        per: dict[str, list[float]] = {}
        for g, ref in self.refs.items():
            try:
                sc = st.scores(g, proto, self.run_id())
            except Exception:
                continue
            for p, v in sc.items():
                n = normalise(v, ref, how)
                if n.size and np.isfinite(n).any():
                    per.setdefault(p, []).append(float(np.nanmean(n)))
        for i, (p, vals) in enumerate(sorted(per.items())):
            xs = np.sort(vals)
            frac = 1.0 - np.arange(len(xs)) / len(xs)
            self.across.plot(np.repeat(xs, 2)[:-1], np.repeat(frac, 2)[1:], name=p,
                             pen=pg.mkPen(COLOURS[i % len(COLOURS)], width=2))

    def shutdown(self) -> None:
        self.timer.stop()
        if self._store is not None:
            try:
                self._store.close()
            except Exception:
                pass
            self._store = None
