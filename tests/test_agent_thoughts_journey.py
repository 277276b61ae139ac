"""Journey: a person attaches a cheap UCT in the Agents dock, lets it play a game of Pong to the end as fast
as possible, then replays that episode from the Sessions dock; the Agents dock shows the thoughts the app
kept for each decision. Keys and clicks go to the widgets as a person's do; the checks read what the window
shows (and the stored episode it was built from)."""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from test_agent_replay_gui import open_agent_episode  # noqa: E402
from test_app_realtime import type_into  # noqa: E402
from test_journeys import activate, into_sight  # noqa: E402
from test_journeys_agents import agents_dock, click, pick  # noqa: E402

from arcade_lab.agents.evaluation.store import Store  # noqa: E402
from arcade_lab.agents.thought_log import ThoughtLog  # noqa: E402


def test_an_app_played_uct_episode_replays_with_its_thoughts(open_window, qtbot):
    win = open_window("pong", timeout=180000, gamepads=False)
    activate(win, qtbot)
    ap = agents_dock(win, qtbot)
    pick(qtbot, ap.kind, "UCT")
    pick(qtbot, ap.start_from, "fresh reset")
    if ap.realtime.isChecked():                                   # an exact, small budget: a quick game
        into_sight(qtbot, ap.realtime)
        qtbot.mouseClick(ap.realtime, Qt.MouseButton.LeftButton, pos=QPoint(6, ap.realtime.height() // 2))
    assert not ap.realtime.isChecked() and ap.uct_sims.isEnabled()
    type_into(qtbot, ap.uct_sims, "4")
    type_into(qtbot, ap.uct_depth, "20")
    type_into(qtbot, ap.uct_threads, "1")
    pick(qtbot, ap.speed, "as fast as possible")
    activate(win, qtbot)
    click(qtbot, ap.attach_btn)
    qtbot.waitUntil(lambda: ap.driver is not None and ap.driver.episodes_done >= 1, timeout=600000)
    d = ap.driver
    click(qtbot, ap.attach_btn)                                   # detach: the plot is the replay's again
    pick(qtbot, ap.speed, "1× real time")
    assert ap.status.text() == "no agent attached"
    with Store() as st:
        [row] = st.episodes(game="pong", player="agent:uct")
        rec = st.episode(row.id)
    assert rec.ended_by == "game_over" and rec.thoughts is not None
    log = ThoughtLog.from_bytes(rec.thoughts)
    assert log.kind == "plan" and len(log) == -(-rec.frames // d.frames_per_action)
    assert np.array_equal(log.arrays()["at"], np.arange(len(log)) * d.frames_per_action)

    # Sessions dock ▸ Show: Agent episodes; the episode says it kept its thoughts
    assert open_agent_episode(win, qtbot, "Agent uct · pong (1)").text(0) == f"Episode {rec.id} (game over, thoughts)"

    # Replay: the Agents dock follows the stored decisions
    click(qtbot, win.sessions.buttons["Replay"])
    qtbot.waitUntil(lambda: getattr(win.session, "rec", None) is not None and win.session.rec.id == rec.id,
                    timeout=10000)
    shown = {}

    def on_decision(n: int) -> bool:
        m = re.search(rf"decision (\d+)/{len(log)} · score", ap.status.text())
        if m and int(m.group(1)) >= n:
            shown.update(i=int(m.group(1)), title=ap.thought.title.text(),
                         visits=np.array(ap.thought._bars_top.opts["height"]),
                         values=np.array(ap.thought._bars_bottom.opts["height"]))
            return True
        return False

    qtbot.waitUntil(lambda: on_decision(30), timeout=30000)
    stored = log.decision(shown["i"] - 1)
    from arcade_lab.app.panels.agents import ACTION_SHORT

    assert shown["title"].startswith(f"decision {shown['i']}: {ACTION_SHORT[stored['chosen']]}  "
                                     f"({int(stored['visits'].sum())} root visits")
    assert np.array_equal(shown["visits"], stored["visits"]) and stored["visits"].sum() >= 4
    assert np.allclose(shown["values"], np.nan_to_num(stored["value"]))
