"""Human baseline sessions: the "New session" dialog, and a dock with sessions, their episodes (✔ when a
replay confirmed the score), a leaderboard per game and protocol, export, verify and replay. Its "Show"
choice switches the list to agent episodes (``arcade-lab run --store``, ``eval``, the Agents dock),
grouped by agent and game, which replay the same way — with the agent's thoughts when they were kept."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QSlider, QComboBox, QDialog, QDialogButtonBox, QDockWidget, QFormLayout, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from arcade_lab.agents.evaluation.presets import PRESETS


class NewSessionDialog(QDialog):
    """Player (name, notes), game, mode, difficulty and protocol preset."""

    def __init__(self, players: list[dict], games: list, current_game: str | None, parent=None,
                 preset: str | None = None):
        super().__init__(parent)
        self.setWindowTitle("New session")
        form = QFormLayout(self)
        self.player = QComboBox(self)
        self.player.setEditable(True)
        for p in players:
            if p["kind"] == "human":
                self.player.addItem(p["name"].split(":", 1)[1], p.get("notes", ""))
        self.player.setEditText(self.player.currentText() or "player1")
        self.notes = QLineEdit(self)
        self.notes.setPlaceholderText("experience, setup, anything worth keeping with the scores")
        self.player.currentIndexChanged.connect(lambda i: self.notes.setText(self.player.itemData(i) or ""))
        self.game = QComboBox(self)
        self.infos = [g for g in games if getattr(g, "supported", True)]
        for g in self.infos:
            self.game.addItem(f"{g.title} ({g.id})", g.id)
        if current_game:
            i = self.game.findData(current_game)
            self.game.setCurrentIndex(max(i, 0))
        self.mode = QComboBox(self)
        self.difficulty = QComboBox(self)
        self.game.currentIndexChanged.connect(self._game_changed)
        self.preset = QComboBox(self)
        for key, p in PRESETS.items():
            self.preset.addItem(p.title, key)
        if preset in PRESETS:   # the protocol chosen last time
            self.preset.setCurrentIndex(self.preset.findData(preset))
        self.about = QLabel(self)
        self.about.setWordWrap(True)
        self.preset.currentIndexChanged.connect(self._preset_changed)
        form.addRow("Player", self.player)
        form.addRow("Notes", self.notes)
        form.addRow("Game", self.game)
        form.addRow("Mode", self.mode)
        form.addRow("Difficulty", self.difficulty)
        form.addRow("Protocol", self.preset)
        form.addRow(self.about)
        bb = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        form.addRow(bb)
        self._game_changed()
        self._preset_changed()

    def _game_changed(self) -> None:
        from arcade_lab.engine import games

        self.mode.clear()
        self.difficulty.clear()
        reg = games.get(self.game.currentData()) if self.game.currentData() else None
        g = reg[1] if reg else None
        for m in (g.modes if g else [0]):
            self.mode.addItem(str(m), m)
        if g:
            self.mode.setCurrentIndex(max(0, self.mode.findData(g.default_mode)))
        for d in (g.difficulties if g else [0]):
            self.difficulty.addItem(str(d), d)

    def _preset_changed(self) -> None:
        p = PRESETS[self.preset.currentData()]
        locks = ", ".join(p.locks) if p.locks else "nothing"
        count = f"{p.episodes} episodes" if p.episodes else "Episodes until you end the session"
        self.about.setText(f"{count}; the first starts when you press OK.\n{p.source}.\n"
                           f"Locked while it runs: {locks}.")

    def values(self) -> dict:
        return {"player": self.player.currentText().strip() or "player1", "notes": self.notes.text(),
                "game": self.game.currentData(), "mode": self.mode.currentData(),
                "difficulty": self.difficulty.currentData(), "preset": self.preset.currentData()}


class SessionsPanel(QDockWidget):
    export_requested = Signal(int)        # session id
    verify_requested = Signal(int)        # session id
    export_episodes_requested = Signal(list)   # agent episode ids
    verify_episodes_requested = Signal(list)   # agent episode ids
    replay_requested = Signal(int)        # episode id
    seek_requested = Signal(int)          # decision index in the episode being replayed
    hint = Signal(str)                    # a button needs a selection first: the status bar says which

    def __init__(self, store, parent=None):
        super().__init__("Sessions", parent)
        self.setObjectName("sessions")
        self.store = store
        w = QWidget(self)
        lay = QVBoxLayout(w)
        show_row = QHBoxLayout()
        self.show_choice = QComboBox(w)
        self.show_choice.addItem("Human sessions", "human")
        self.show_choice.addItem("Agent episodes", "agent")
        self.show_choice.setToolTip("Agent episodes: those stored by arcade-lab run --store, arcade-lab eval and "
                                    "the Agents dock; \"thoughts\" marks the ones that kept what the agent weighed "
                                    "at each decision")
        self.show_choice.currentIndexChanged.connect(lambda _i: self.refresh())
        show_row.addWidget(QLabel("Show", w))
        show_row.addWidget(self.show_choice, 1)
        lay.addLayout(show_row)
        self.tree = QTreeWidget(w)
        self.tree.setHeaderLabels(["Session / episode", "Score", "Frames", "✔", "When"])
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the label takes what the figures leave
        for col in range(1, 5):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.tree, 2)   # the sessions and their episodes get most of the dock's height
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for text, fn in (("Export…", self._export), ("Verify", self._verify), ("Replay", self._replay),
                         ("Refresh", self.refresh)):
            b = QPushButton(text, w)
            b.clicked.connect(fn)
            row.addWidget(b)
            self.buttons[text] = b
        lay.addLayout(row)
        # what the last Verify found, on a wrapped line of its own (the status bar's figures leave a long
        # message no room)
        self.result = QLabel("", w)
        self.result.setObjectName("verify_result")
        self.result.setWordWrap(True)
        self.result.hide()
        lay.addWidget(self.result)
        # seek bar of the episode being replayed: follows the replay, dragging it jumps (exactly); shown
        # during a replay only, its height otherwise the lists' (the dock shares the column)
        self.seek_row = QWidget(w)
        seek_row = QHBoxLayout(self.seek_row)
        seek_row.setContentsMargins(0, 0, 0, 0)
        self.seek_label = QLabel("replay –", self.seek_row)
        self.seek = QSlider(Qt.Orientation.Horizontal, self.seek_row)
        self.seek.setEnabled(False)
        self.seek.sliderReleased.connect(lambda: self.seek_requested.emit(self.seek.value()))
        seek_row.addWidget(self.seek_label)
        seek_row.addWidget(self.seek, 1)
        self.seek_row.hide()
        lay.addWidget(self.seek_row)
        self._replay_source = None   # callable returning the replay session or None
        self._seek_timer = QTimer(self)
        self._seek_timer.timeout.connect(self._follow_replay)
        self._seek_timer.start(200)
        lay.addWidget(QLabel("Leaderboard (mean score of complete baseline sessions)"))
        self.board = QTreeWidget(w)
        self.board.setHeaderLabels(["Game", "Protocol", "Player", "Mean", "Episodes", "Verified"])
        # the names share what the figures leave (elided, whole in their tooltips): no sideways scrolling
        board_header = self.board.header()
        board_header.setStretchLastSection(False)
        for col in range(6):
            board_header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if col < 3
                                              else QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.board, 1)   # (a row per game and protocol: a few)
        self.setWidget(w)

    def show_result(self, text: str) -> None:
        """Show what Verify found (empty: nothing) under the buttons."""
        self.result.setText(text)
        self.result.setVisible(bool(text))

    def follow(self, source) -> None:
        """``source()`` gives the session being watched; the seek bar tracks it when it is a replay."""
        self._replay_source = source

    def _follow_replay(self) -> None:
        sess = self._replay_source() if self._replay_source else None
        is_replay = sess is not None and hasattr(sess, "seek") and hasattr(sess, "length")
        self.seek.setEnabled(is_replay)
        if self.seek_row.isHidden() == is_replay:
            self.seek_row.setVisible(is_replay)
        if not is_replay:
            return
        self.seek.setMaximum(int(sess.length))
        if not self.seek.isSliderDown():
            self.seek.setValue(int(sess.position))
        self.seek_label.setText(f"replay {int(sess.position)}/{int(sess.length)}")

    def refresh(self) -> None:
        """Rebuild the lists from the store; the sessions that were open and the selected row stay so."""
        def key(item):
            return tuple(item.data(0, Qt.ItemDataRole.UserRole))

        tops = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        expanded = {key(t) for t in tops if t.isExpanded()}
        current = key(self.tree.currentItem()) if self.tree.currentItem() is not None else None
        self.tree.clear()
        self.board.clear()
        if self.store is None:
            return
        groups = self._agent_items() if self.showing_agents else [self._session_item(s)
                                                                   for s in reversed(self.store.sessions())]
        for top in groups:
            self.tree.addTopLevelItem(top)
            top.setExpanded(key(top) in expanded)
            for it in [top] + [top.child(i) for i in range(top.childCount())]:
                if key(it) == current:
                    self.tree.setCurrentItem(it)
        for row in leaderboard(self.store):
            item = QTreeWidgetItem([row["game"], row["protocol"], row["player"], f"{row['mean']:.1f}",
                                    str(row["episodes"]), f"{row['verified']}/{row['episodes']}"])
            for col in range(3):
                item.setToolTip(col, item.text(col))
            self.board.addTopLevelItem(item)

    @property
    def showing_agents(self) -> bool:
        return self.show_choice.currentData() == "agent"

    def _agent_items(self) -> list[QTreeWidgetItem]:
        """One group per agent and game, newest first; its episodes with score, frames and "thoughts" when
        the agent's thoughts were kept."""
        groups: dict[tuple, QTreeWidgetItem] = {}
        scores: dict[tuple, list[float]] = {}
        for e in self.store.agent_episodes():
            key = (e["player"], e["game"])
            top = groups.get(key)
            if top is None:
                label = f"Agent {e['player'].split(':', 1)[-1]} · {e['game']}"
                top = QTreeWidgetItem([label, "", "", "", _when(e["created_at"], "%d %b %H:%M")])
                top.setToolTip(0, f"{label} — agent episodes (newest first)")
                top.setData(0, Qt.ItemDataRole.UserRole, ("agent", e["player"], e["game"]))
                groups[key] = top
            how = e["ended_by"].replace("_", " ") + (", taken over" if e["mixed"] else "")
            mark = {1: "✔", 0: "✘", None: ""}[e["verified"]]
            if e["thoughts"]:
                how += ", thoughts"
            it = QTreeWidgetItem([f"Episode {e['id']} ({how})", f"{e['score']:g}",
                                  str(e["frames"]), mark, _when(e["created_at"], "%H:%M")])
            it.setToolTip(0, f"{e['player']} on {e['game']}, {e['protocol']}"
                          + (f", run {e['run']}" if e["run"] else "")
                          + (" — with the agent's thoughts" if e["thoughts"] else " — no thoughts kept"))
            it.setData(0, Qt.ItemDataRole.UserRole, ("episode", e["id"]))
            top.addChild(it)
            scores.setdefault(key, []).append(e["score"])
        for key, top in groups.items():
            top.setText(1, f"mean {np.mean(scores[key]):.1f}")
            top.setText(0, f"{top.text(0)} ({len(scores[key])})")
        return list(groups.values())

    def _session_item(self, s: dict) -> QTreeWidgetItem:
        eps = self.store.episodes(session_id=s["id"], status=None)
        fin = [e for e in eps if e.status == "finished"]
        mean = f"{np.mean([e.score for e in fin]):.1f}" if fin else "–"
        label = f"#{s['id']} {s['game']} · {s['player'].split(':', 1)[-1]} · {s['protocol']} ({s['status']})"
        top = QTreeWidgetItem([label, f"mean {mean}", "", "", _when(s["started_at"], "%d %b %H:%M")])
        top.setToolTip(0, label)
        top.setData(0, Qt.ItemDataRole.UserRole, ("session", s["id"]))
        if any(e.verified is not None for e in fin):   # as the leaderboard counts them: verified of finished
            ok = sum(1 for e in fin if e.verified)
            top.setText(3, f"{ok}/{len(fin)}")
            top.setToolTip(3, f"{ok} of {len(fin)} finished episodes replayed to the same score (Verify)")
        for k, e in enumerate(eps, 1):
            mark = {True: "✔", False: "✘", None: ""}[e.verified]
            how = e.status if e.status != "finished" else e.ended_by.replace("_", " ")
            playing = e.status == "recording"   # its score and frames are stored when it ends
            it = QTreeWidgetItem([f"Episode {k} (" + ("being played" if playing else how) + ")",
                                  "…" if playing else f"{e.score:g}", "…" if playing else str(e.frames), mark,
                                  _when(e.created_at, "%H:%M")])
            if playing:
                it.setToolTip(0, "Being played now: its score and frames are shown when it ends")
            it.setData(0, Qt.ItemDataRole.UserRole, ("episode", e.id))
            top.addChild(it)
        return top

    def _selected(self):
        it = self.tree.currentItem()
        return None if it is None else it.data(0, Qt.ItemDataRole.UserRole)

    def _session_id(self) -> int | None:
        sel = self._selected()
        if sel is None or sel[0] == "agent":
            return None
        if sel[0] == "session":
            return sel[1]
        rec = self.store.episode(sel[1])
        return rec.session_id if rec else None

    def _agent_episode_ids(self) -> list[int]:
        """The agent episodes the selection names: one episode, or every episode of an agent's group."""
        it = self.tree.currentItem()
        sel = None if it is None else it.data(0, Qt.ItemDataRole.UserRole)
        if sel is None:
            return []
        if sel[0] == "agent":
            return [it.child(k).data(0, Qt.ItemDataRole.UserRole)[1] for k in range(it.childCount())]
        return [sel[1]] if sel[0] == "episode" else []

    def _export(self) -> None:
        self._on_selection("export", self.export_episodes_requested, self.export_requested)

    def _verify(self) -> None:
        self._on_selection("verify", self.verify_episodes_requested, self.verify_requested)

    def _on_selection(self, verb: str, for_episodes, for_session) -> None:
        """The selected agent episodes (one, or an agent's group) or human session to ``for_episodes`` or
        ``for_session``, as the list shows; with nothing to act on, a hint says what to select."""
        if self.showing_agents:
            ids = self._agent_episode_ids()
            if ids:
                for_episodes.emit(ids)
            else:
                self.hint.emit(f"Select an agent's episode, or its group for all of them, to {verb}")
            return
        sid = self._session_id()
        if sid is None:
            self.hint.emit(f"Select a session (or one of its episodes) to {verb}")
        else:
            for_session.emit(sid)

    def _replay(self) -> None:
        sel = self._selected()
        if sel and sel[0] == "episode":
            self.replay_requested.emit(sel[1])
        elif self.showing_agents:
            self.hint.emit("Select an agent episode to replay (open a group with ▸ to see its episodes)")
        else:
            self.hint.emit("Select an episode to replay (open a session with ▸ to see its episodes)")


def _when(t: float, fmt: str) -> str:
    return time.strftime(fmt, time.localtime(t))


def leaderboard(store) -> list[dict]:
    """Per game, protocol and player: mean over the finished episodes of complete sessions of scored
    protocols (never 'free'): a session still running, or ended before its protocol's episodes were all
    played, is not a baseline."""
    by_session: dict[int, list] = {}
    for e in store.episodes():
        if e.protocol == "free" or e.controllers or not e.player.startswith("human:") or e.session_id is None:
            continue
        by_session.setdefault(e.session_id, []).append(e)
    out: dict[tuple, list] = {}
    for sid, eps in by_session.items():
        sess = store.session(sid)
        if sess is None or sess["status"] != "finished" or len(eps) < int(sess["settings"].get("episodes", 0)):
            continue
        for e in eps:
            out.setdefault((e.game, e.protocol, e.player), []).append(e)
    rows = [{"game": g, "protocol": p, "player": pl, "mean": float(np.mean([e.score for e in eps])),
             "episodes": len(eps), "verified": sum(1 for e in eps if e.verified)}
            for (g, p, pl), eps in out.items()]
    return sorted(rows, key=lambda r: (r["game"], r["protocol"], -r["mean"]))
