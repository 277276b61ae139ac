"""Journey: a person picks an agent's stored episode in the Sessions dock and replays it; the game runs at
60 Hz and the Agents dock shows the stored thoughts of each decision in turn, ending on the last decision's
bars and the recorded score. Keys and clicks go to the focused widget; the checks read what the window
shows. With ARCADE_LAB_JOURNEY_SHOTS set, the window is saved as agent-replay.png."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QPoint, QRect, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from test_journeys_agents import pick  # noqa: E402

from arcade_lab.agents import make_agent  # noqa: E402
from arcade_lab.agents.base import RunConfig, Runner  # noqa: E402
from arcade_lab.agents.evaluation.store import Store  # noqa: E402
from arcade_lab.agents.thought_log import ThoughtLog  # noqa: E402
from arcade_lab.engine.env import Env  # noqa: E402

FRAMES = 300   # 5 s at 60 Hz, 60 decisions at frame skip 5


def shot(widget, name: str) -> None:
    folder = os.environ.get("ARCADE_LAB_JOURNEY_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / f"{name}.png"))


def focused():
    return QApplication.focusWidget()


def _uct_episode(store) -> int:
    """UCT on Boxing at a small budget (8 simulations of 60 frames): it lands punches, so the score and
    the values are not all zero."""
    env = Env("boxing", frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=FRAMES, seed=5)
    agent = make_agent("uct", env, seed=5, simulations=8, depth_frames=60)
    cfg = RunConfig(game="boxing", frameskip=5, max_frames=FRAMES, seed=5, record_thoughts=True)
    return store.add_episode(next(Runner(cfg, env).episodes(agent, 1)))


def open_agent_episode(win, qtbot, group: str):
    """Sessions dock ▸ Show: Agent episodes; the one group, named ``group``, clicked and opened with Right,
    Down to its first episode: that row."""
    pick(qtbot, win.sessions.show_choice, "Agent episodes")
    tree = win.sessions.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=5000)
    top = tree.topLevelItem(0)
    assert top.text(0) == group
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    assert focused() is tree
    qtbot.keyClick(focused(), Qt.Key.Key_Right)      # open the group
    qtbot.keyClick(focused(), Qt.Key.Key_Down)       # its episode
    return tree.currentItem()


def test_replaying_an_agent_episode_shows_its_thoughts_at_60_hz(open_window, qtbot, tmp_path):
    store = Store(tmp_path / "s.db")
    eid = _uct_episode(store)
    rec = store.episode(eid)
    assert rec.score > 0
    log = ThoughtLog.from_bytes(rec.thoughts)
    win = open_window("pong", store=store)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    qtbot.waitUntil(lambda: win._agent_ui is not None, timeout=60000)   # the Agents dock is built
    panel = win.agent_ui.agents

    row = open_agent_episode(win, qtbot, "Agent uct · boxing (1)")
    assert row.text(0) == f"Episode {eid} (truncated, thoughts)" and row.text(1) == f"{rec.score:g}"
    assert row.text(2) == str(FRAMES)

    # Replay: the decisions' thoughts follow one another in the Agents dock
    titles: list[str] = []
    pictured = []

    def look():
        titles.append(panel.thought.title.text())
        bars = panel.thought._bars_bottom
        if not pictured and len(titles) > 300 and bars is not None and np.any(bars.opts["height"] > 0):
            pictured.append(titles[-1])
            shot(win, "agent-replay")   # the documentation's picture: a decision that found some reward

    watch = QTimer()
    watch.timeout.connect(look)
    watch.start(5)
    t0 = time.perf_counter()
    qtbot.mouseClick(win.sessions.buttons["Replay"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(win.session, "rec", None) is not None and win.session.rec.id == eid,
                    timeout=10000)
    qtbot.waitUntil(lambda: f"Replay finished: score {rec.score:g}" in win.statusBar().currentMessage(),
                    timeout=30000)
    elapsed = time.perf_counter() - t0
    qtbot.waitUntil(lambda: f"decision {len(log)}/{len(log)}" in panel.status.text(), timeout=5000)
    watch.stop()

    # 60 Hz: one emulated frame per displayed frame, not one decision (5 frames) per displayed frame
    assert elapsed >= 0.8 * FRAMES / 60
    seen = {int(m.group(1)) for t in titles if (m := re.match(r"decision (\d+):", t))}
    assert len(seen) >= 20 and max(seen) == len(log)
    # the last decision as stored: the chosen action, its root visits and values drawn as bars
    last = log.decision(len(log) - 1)
    from arcade_lab.app.panels.agents import ACTION_SHORT

    title = panel.thought.title.text()
    assert title.startswith(f"decision {len(log)}: {ACTION_SHORT[last['chosen']]}  "
                            f"({int(last['visits'].sum())} root visits")
    assert np.array_equal(panel.thought._bars_top.opts["height"], last["visits"])
    assert np.allclose(panel.thought._bars_bottom.opts["height"], np.nan_to_num(last["value"]))
    assert f"score {int(rec.score)}" in panel.status.text() and win.session.score == rec.score
    # the plot was scrolled into the dock's view, not left below the agent's settings
    area = panel.scroll.viewport()
    plot = panel.thought.top
    assert area.rect().intersects(QRect(plot.mapTo(area, QPoint(0, 0)), plot.size()))


def test_agent_episodes_are_verified_and_exported_from_the_sessions_dock(open_window, qtbot, tmp_path):
    """Verify on an agent's group replays each of its episodes and marks them ✔; Export on one episode
    writes a file `arcade-lab replay` confirms; with nothing selected each button says what to select."""
    from test_journeys import WhenModal

    store = Store(tmp_path / "s.db")
    ids = [_uct_episode(store), _uct_episode(store)]
    win = open_window("pong", store=store)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    pick(qtbot, win.sessions.show_choice, "Agent episodes")
    tree = win.sessions.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=5000)
    qtbot.mouseClick(win.sessions.buttons["Verify"], Qt.MouseButton.LeftButton)   # nothing selected
    qtbot.waitUntil(lambda: "to verify" in win.statusBar().currentMessage(), timeout=5000)

    top = tree.topLevelItem(0)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    qtbot.mouseClick(win.sessions.buttons["Verify"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "2/2 agent episodes confirmed by replay" in win.sessions.result.text(), timeout=60000)
    assert [store.episode(i).verified for i in ids] == [1, 1]
    top = tree.topLevelItem(0)
    qtbot.waitUntil(lambda: top.childCount() == 2 and all(top.child(k).text(3) == "✔" for k in range(2)),
                    timeout=5000)

    # one episode: open the group, Down to its first episode, Export… into a folder typed in the dialog
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(top).center())
    qtbot.keyClick(focused(), Qt.Key.Key_Right)
    qtbot.keyClick(focused(), Qt.Key.Key_Down)
    eid = tree.currentItem().data(0, Qt.ItemDataRole.UserRole)[1]
    out = tmp_path / "export"
    out.mkdir()

    def choose_folder(dlg):
        from PySide6.QtTest import QTest

        QTest.keyClick(focused(), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(focused(), str(out))
        QTest.keyClick(focused(), Qt.Key.Key_Return)

    w = WhenModal(choose_folder)
    qtbot.mouseClick(win.sessions.buttons["Export…"], Qt.MouseButton.LeftButton)
    w.stop()
    files = sorted(p.name for p in out.iterdir())
    assert files == [f"episodes-{eid}.csv", f"episodes-{eid}.json"]
    assert "Exported 1 episode: " in win.statusBar().currentMessage()
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "arcade_lab", "replay", str(out / f"episodes-{eid}.json")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "✔ verified" in res.stdout, res.stdout + res.stderr
