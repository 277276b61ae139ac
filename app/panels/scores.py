"""Live score distributions: every player's episode scores for the current game, from the store.

Histogram and empirical CDF per player (humans and each agent), refreshed when the store gains an
episode (a QTimer polls ``episodes(since_id=...)``, which reads only new rows). Normalised views need a
reference table ``resources/reference_scores.{csv,tsv,json}`` with ``game, random, human`` per game; with
one, the panel also draws the across-games score-distribution plot (fraction of games whose normalised
mean score is at least x). Without one, only raw scores are offered.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QComboBox, QDockWidget, QFormLayout, QLabel, QVBoxLayout, QWidget

from .scroll import scrolled

RESOURCES = Path(__file__).resolve().parent.parent.parent / "resources"
COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]


def load_references(folder: Path = RESOURCES) -> dict[str, tuple[float, float]]:
    """``{game: (random, human)}`` from the first reference table found; {} when there is none or it is
    unreadable (a bad table must not stop the panel)."""
    for name in ("reference_scores.csv", "reference_scores.tsv", "reference_scores.json"):
        p = folder / name
        if not p.is_file():
            continue
        try:
            if p.suffix == ".json":
                raw = json.loads(p.read_text())
                rows = raw.items() if isinstance(raw, dict) else ((r["game"], r) for r in raw)
                return {g: (float(r["random"]), float(r["human"])) for g, r in rows}
            with p.open() as f:
                rd = csv.DictReader((line for line in f if not line.startswith("#")),
                                    delimiter="\t" if p.suffix == ".tsv" else ",")
                return {r["game"]: (float(r["random"]), float(r["human"])) for r in rd}
        except Exception:
            return {}
    return {}


def normalise(scores: np.ndarray, ref: tuple[float, float] | None, how: str) -> np.ndarray:
    """Raw, random-normalised or human-normalised, exactly as the evaluation toolkit defines them
    (``agents.evaluation.metrics``: s / random, ALE 2013 §4.1.1; (s - random) / (human - random))."""
    if how == "raw" or ref is None:
        return scores
    from arcade_lab.agents.evaluation.metrics import human_normalised, random_normalised  # scipy: only when asked

    rnd, hum = ref
    return random_normalised(scores, rnd) if how == "random" else human_normalised(scores, rnd, hum)


def ecdf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xs = np.sort(x)
    return xs, np.arange(1, len(xs) + 1) / len(xs)


class ScoresPanel(QDockWidget):
    def __init__(self, window, store=None, poll_ms: int = 1000):
        super().__init__("Scores", window)
        self.setObjectName("scores")
        import pyqtgraph as pg

        self.window = window
        self._store = store
        self.refs = load_references()
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
        if self.refs:
            self.norm.addItem("random-normalised", "random")
            self.norm.addItem("human-normalised", "human")
        self.norm.currentIndexChanged.connect(lambda _: self.refresh())
        form.addRow("View", self.norm)
        lay.addLayout(form)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.hist = pg.PlotWidget(title="Histogram")
        self.hist.addLegend(offset=(-10, 10))
        self.cdf = pg.PlotWidget(title="Empirical CDF")
        self.cdf.setYRange(0, 1)
        self.cdf.addLegend(offset=(-10, 10))
        self.across = pg.PlotWidget(title="Across games: fraction of games with normalised score ≥ x")
        for w in (self.hist, self.cdf, self.across):
            w.setMinimumHeight(150)
            lay.addWidget(w)
        if not self.refs:
            self.across.hide()
            lay.addWidget(QLabel("No resources/reference_scores table: raw scores only."))
        self.setWidget(scrolled(body))
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(poll_ms)

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
        return False

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
        self.summary.setText("\n".join(lines) if lines else f"no finished episodes of {self.game} yet")
        if self.refs and not self.across.isHidden():
            self._across(st, proto, how if how != "raw" else "human")
        self.refreshes += 1

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
