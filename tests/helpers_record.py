"""Run by test_sessions in a subprocess: records a scored session headless until killed."""
from __future__ import annotations

import sys
from dataclasses import replace

from arcade_lab.agents.evaluation.presets import PRESETS
from arcade_lab.agents.evaluation.store import Store
from arcade_lab.app.recording import RecordedSession
from arcade_lab.app.session import InputFrame

db, game, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
preset = replace(PRESETS["ale2013"], max_frames=cap, episodes=1000)
sess = RecordedSession(game, preset, Store(db), "kim", seed=3)
i = 0
while True:
    sess.step(InputFrame(fire=i % 5 == 0, up=(i // 30) % 2 == 0, left=(i // 45) % 2 == 0))
    if sess.scores and len(sess.scores) >= 2 and sess.driver.steps == cap // 2:
        print("MID", len(sess.scores), flush=True)   # the parent kills us now, mid-episode
        sys.stdin.readline()
    i += 1
