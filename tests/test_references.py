"""Published tables (agents/evaluation/references.py): the shipped ones, user tables, the ours-vs-published
arithmetic against hand-computed numbers, the report's "Published figures" section, the small-sample label of
the baselines, and the Scores dock's published marks."""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np
import pytest

from arcade_lab.agents.evaluation import references as REF

# two-sided 99% Student-t quantiles t(0.995, df) from a printed t-table
T995 = {1: 63.657, 3: 5.841, 4: 4.604}


@pytest.fixture
def shipped():
    return REF.load_all()      # the data folder of a test is empty: the shipped tables only


# -- the shipped tables -------------------------------------------------------------------------------
def test_shipped_tables_load_with_their_sources(shipped):
    a, n, q = shipped["ale2013"], shipped["nature2015"], shipped["atari57"]
    assert len(a.games) == 55 and len(n.games) == 49 and len(q.games) == 57
    assert sorted(g for g, s in a.sets.items() if s == "training") == [
        "asterix", "beam_rider", "freeway", "seaquest", "space_invaders"]
    assert a.scores["random"]["asterix"] == 288.1 and a.scores["perturb"]["freeway"] == 22.5
    assert a.protocol == "ale2013" and a.agents["const:*"] == "const" and a.agents["sarsa:ram"] == "sarsa_ram"
    assert "Appendix D.1, Table 4" in a.source and "Extended Data Table 2" in n.source
    assert n.human_reference()["asteroids"] == (719.1, 13156.7)
    assert q.human_reference()["asteroids"] == (719.1, 47388.7)
    assert n.agents == {} and q.agents == {}       # nothing of ours is compared with them: they normalise


def test_the_tables_agree_where_their_headers_say_they_do(shipped):
    a, n, q = shipped["ale2013"], shipped["nature2015"], shipped["atari57"]
    sarsa = [c for c in a.scores if c.startswith("sarsa_")]
    # Nature's "best linear learner" is the best SARSA column of Table 4, except Centipede (8803.8 vs 8803)
    best = {g: max(a.scores[c][g] for c in sarsa) for g in n.games}
    printed = {g: n.scores["best_linear_learner"][g] for g in n.games}     # Nature rounds large ones half up
    differ = [g for g in n.games if printed[g] not in (best[g], math.floor(best[g] + 0.5))]
    assert differ == ["centipede"]
    # Nature's human figures are not Atari-57's on 34 of the 49 games; the random ones are the same
    nh, qh = n.human_reference(), q.human_reference()
    assert sum(abs(nh[g].human - qh[g].human) > 0.05 for g in nh) == 34
    assert all(nh[g].random == qh[g].random for g in nh)


# -- arithmetic ---------------------------------------------------------------------------------------
def test_interval_by_hand():
    mean, se, lo, hi = REF.interval([1, 2, 3, 4])
    sd = math.sqrt(5 / 3)                                 # deviations ±0.5, ±1.5: (0.25+2.25)*2 / 3
    assert mean == 2.5 and se == pytest.approx(sd / 2)
    assert (lo, hi) == pytest.approx((2.5 - T995[3] * sd / 2, 2.5 + T995[3] * sd / 2), abs=1e-3)
    m1, se1, lo1, hi1 = REF.interval([7])
    assert m1 == 7 and all(math.isnan(x) for x in (se1, lo1, hi1))


def _by(rows, agent, game):
    (r,) = [r for r in rows if r.agent == agent and r.game == game]
    return r


def test_compare_against_table4_by_hand(shipped):
    samples = {
        "random": {"asterix": [250, 300, 350, 300], "seaquest": [100.0]},
        "const:0": {"freeway": [0, 0, 0]},
        "const:2": {"freeway": [21, 21, 21], "asterix": [650, 650]},
        "perturb:3": {"seaquest": [100, 102, 98, 101, 99]},
        "sarsa:basic": {"pong": [-19, -20]},
        "uct": {"pong": [21, 21]},                        # no published counterpart: left out
    }
    rows = REF.compare(samples, shipped["ale2013"])
    assert {r.agent for r in rows} == {"random", "const:*", "perturb:*", "sarsa:basic"}

    r = _by(rows, "random", "asterix")                    # sd = sqrt(5000/3) = 40.825, se = 20.412
    assert (r.n, r.mean, r.published, r.set) == (4, 300, 288.1, "training")
    assert r.se == pytest.approx(20.4124, abs=1e-4)
    assert (r.low, r.high) == pytest.approx((300 - T995[3] * 20.4124, 300 + T995[3] * 20.4124), abs=0.01)
    assert r.ratio == pytest.approx(300 / 288.1) and r.within is True

    r = _by(rows, "random", "seaquest")                   # one sample: no interval, no verdict
    assert r.n == 1 and r.within is None and r.ratio == pytest.approx(100 / 107.9)

    r = _by(rows, "const:*", "freeway")                   # the better of const:0 (0) and const:2 (21)
    assert (r.policy, r.pool, r.mean, r.low, r.high, r.published, r.within) == ("const:2", 2, 21, 21, 21, 21, True)
    assert _by(rows, "const:*", "asterix").pool == 1

    r = _by(rows, "perturb:*", "seaquest")                # sd = sqrt(10/4), se = 0.7071
    assert r.se == pytest.approx(math.sqrt(2.5 / 5))
    assert r.high == pytest.approx(100 + T995[4] * math.sqrt(0.5), abs=1e-3)
    assert r.published == 451.1 and r.within is False and r.ratio == pytest.approx(100 / 451.1)

    r = _by(rows, "sarsa:basic", "pong")                  # se 0.5, half-width 31.8: -19.2 is inside
    assert r.high == pytest.approx(-19.5 + T995[1] * 0.5, abs=1e-3) and r.within is True
    assert r.ratio == pytest.approx(-19.5 / -19.2)

    assert REF.within_noise(rows) == {"random": (1, 1), "const:*": (2, 2), "perturb:*": (0, 1),
                                      "sarsa:basic": (1, 1)}


def test_within_allows_half_a_printed_unit(shipped):
    t = shipped["ale2013"]                                # one decimal: Freeway's Const 21 is [20.95, 21.05)
    assert REF.compare({"const:2": {"freeway": [21.04, 21.04]}}, t)[0].within is True
    assert REF.compare({"const:2": {"freeway": [21.06, 21.06]}}, t)[0].within is False
    assert math.isnan(REF.compare({"random": {"freeway": [0, 0]}}, t)[0].ratio)   # published 0: no ratio


# -- user tables --------------------------------------------------------------------------------------
USER_TOML = """
[table.mine]
title = "My paper, Table 1"
protocol = "ale2013"
agents = {"sarsa:basic" = "sarsa", "const:*" = "best_const"}
human = ["rnd", "pro"]

[table.mine.scores]
sarsa = {Pong = -19.0, "Space Invaders" = 250}
best_const = {freeway = 21}
rnd = {pong = -20.0}
pro = {pong = 10.0}
"""


def test_a_user_toml_table(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(USER_TOML)
    t = REF.load_file(f)["mine"]
    assert t.title == "My paper, Table 1" and t.protocol == "ale2013"
    assert t.scores["sarsa"] == {"pong": -19.0, "space_invaders": 250.0}      # paper spellings mapped
    assert t.human_reference() == {"pong": (-20.0, 10.0)}
    rows = REF.compare({"sarsa:basic": {"space_invaders": [240, 260]}, "const:5": {"freeway": [21, 21]}}, t)
    assert {(r.agent, r.game, r.within) for r in rows} == {("sarsa:basic", "space_invaders", True),
                                                           ("const:*", "freeway", True)}
    assert not t.applies_to("machado2018") and t.applies_to("ale2013")


def test_a_bare_csv_in_the_data_folder_is_loaded_everywhere(tmp_path):
    folder = Path(os.environ["ARCADE_LAB_DATA"]) / "references"
    folder.mkdir(parents=True)
    (folder / "lab_notes.csv").write_text("# Our lab's human testers, 2025\ngame,random,human,sarsa_bass\n"
                                          "Pong,-20.7,12.5,-18.5\nMs. Pac-Man,307.3,9000,\n")
    tables = REF.load_all()
    t = tables["lab_notes"]
    assert "ale2013" in tables and t.title == "Our lab's human testers, 2025"
    assert t.agents == {"random": "random", "sarsa:bass": "sarsa_bass"} and t.protocol is None
    assert REF.human_reference("lab_notes", tables) == {"pong": (-20.7, 12.5), "ms_pacman": (307.3, 9000.0)}
    assert t.scores["sarsa_bass"] == {"pong": -18.5}          # an empty cell is no figure


@pytest.mark.parametrize("name, text, msg", [
    ("a.csv", "title,random\npong,1\n", "'game' column"),
    ("b.csv", "game,random\npongg,1\n", "did you mean pong"),
    ("c.csv", "game,set\npong,test\n", "no numeric column"),
    ("d.toml", "[table.x]\ncsv = 'a.csv'\ncolour = 'red'\n", "unknown key(s) colour"),
    ("e.toml", "[table.x]\nagents = {random = 'rnd'}\n[table.x.scores]\nrandom = {pong = 1}\n",
     "no numeric column 'rnd'"),
    ("f.toml", "[table.x.scores]\nrandom = {pong = 'high'}\n", "must be a number"),
    ("g.toml", "[table.x]\ntitle = 'no scores'\n", "exactly one of csv"),
    ("h.toml", "[table.x\n", "not valid TOML"),
    ("i.txt", "game,random\n", ".toml or .csv"),
])
def test_bad_tables_say_what_is_wrong(tmp_path, name, text, msg):
    (tmp_path / name).write_text(text)
    with pytest.raises(REF.ReferenceError) as e:
        REF.load_file(tmp_path / name)
    assert msg in str(e.value) and name in str(e.value)


def test_unknown_human_set(shipped):
    with pytest.raises(REF.ReferenceError, match="known: nature2015, atari57"):
        REF.human_reference("nature2013", shipped)


# -- the report ---------------------------------------------------------------------------------------
def _run(tmp_path, scores: dict[str, dict[str, list[float]]]):
    from arcade_lab.agents.base import EpisodeRecord
    from arcade_lab.agents.evaluation.store import Store

    st = Store(tmp_path / "s.sqlite3")
    run = st.create_run("syn", "ale2013", {"agents": list(scores), "protocol": {"name": "ale2013"}})
    for agent, per_game in scores.items():
        for game, vals in per_game.items():
            recs = [EpisodeRecord(player=f"agent:{agent}", game=game, md5="x", mode=0, difficulty=0,
                                  protocol="ale2013", seed=0, score=float(v), frames=100, steps=20, lives_lost=0,
                                  wall_time=0.1, ended_by="game_over", extra={"trial": 0, "episode": i})
                    for i, v in enumerate(vals)]
            st.complete_task(run, f"{agent}|{game}|t0", recs)
    return st


SYN = {"random": {"asterix": [250, 300, 350, 300], "asteroids": [1000, 1200]},
       "const:2": {"asterix": [650, 650], "freeway": [21, 21]},
       "const:0": {"asterix": [200, 200], "freeway": [0, 0]},
       "sarsa:basic": {"asterix": [800, 900, 1000]}}


def test_report_sets_the_run_beside_table4(tmp_path):
    from arcade_lab.agents.evaluation import report as REP

    with _run(tmp_path, SYN) as st:
        rd = REP.load_run(st, "syn")
    page = REP.build(rd, tmp_path / "r", reps=20).read_text()
    with open(tmp_path / "r" / "published.csv", newline="") as f:
        rows = {(r["agent"], r["game"]): r for r in csv.DictReader(f)}
    r = rows[("random", "asterix")]
    assert (r["table"], r["policy"], r["n"], r["within"]) == ("ale2013", "random", "4", "1")
    assert float(r["se"]) == pytest.approx(20.4124, abs=1e-4) and float(r["ratio"]) == pytest.approx(300 / 288.1)
    r = rows[("const:*", "asterix")]
    assert (r["policy"], r["pool"], float(r["mean"]), float(r["published"])) == ("const:2", "2", 650.0, 650.0)
    r = rows[("sarsa:basic", "asterix")]                  # mean 900, se 57.735, t(0.995, 2) = 9.925
    assert float(r["ci_low"]) == pytest.approx(900 - 9.925 * 100 / math.sqrt(3), abs=0.05)
    assert float(r["published"]) == 862.3 and r["within"] == "1"
    assert ("random", "asteroids") in rows and ("const:*", "freeway") in rows
    assert "Published figures" in page and "ALE 2013, Table 4" in page
    assert "random: 2 of 2" in page and "<b>2 of 2 games within noise</b>" in page
    assert "const (best of 2)" in page and "◆" in page             # the chart marks the published mean
    # the run lacks most baseline policies: the shipped table normalises, and says it is a small sample
    assert "resources/baselines_ale2013.csv" in page and "Small sample: 2 samples per policy" in page
    assert "Atari-57 (Agent57 / DQN Zoo), reference_scores.csv" in page


def _human_score(folder: Path, agent: str, game: str) -> float:
    with open(folder / "normalised.csv", newline="") as f:
        (v,) = [float(r["score"]) for r in csv.DictReader(f)
                if (r["kind"], r["agent"], r["game"]) == ("human", agent, game)]
    return v


def test_report_human_set_is_named_and_selectable(tmp_path, capsys):
    from arcade_lab.agents.evaluation.cli import report_main

    _run(tmp_path, SYN).close()
    db = str(tmp_path / "s.sqlite3")
    assert report_main(["syn", "--store", db, "--out", str(tmp_path / "a"), "--bootstrap", "20"]) == 0
    assert report_main(["syn", "--store", db, "--out", str(tmp_path / "n"), "--bootstrap", "20",
                        "--human", "nature2015"]) == 0
    # Asteroids, random mean 1100: (1100 - 719.1) / (human - 719.1), human 47388.7 (Atari-57) or 13156.7 (Nature)
    assert _human_score(tmp_path / "a", "random", "asteroids") == pytest.approx(380.9 / 46669.6)
    assert _human_score(tmp_path / "n", "random", "asteroids") == pytest.approx(380.9 / 12437.6)
    page = (tmp_path / "n" / "index.html").read_text()
    assert "Nature 2015, Extended Data Table 2, dqn2015_table.csv" in page and "human (nature2015)-normalised" in page
    assert report_main(["syn", "--store", db, "--human", "nature2013"]) == 2
    assert "no human reference set 'nature2013'" in capsys.readouterr().err


def test_report_with_a_user_table(tmp_path, capsys):
    from arcade_lab.agents.evaluation.cli import report_main

    _run(tmp_path, SYN).close()
    f = tmp_path / "mine.toml"
    f.write_text(USER_TOML.replace("{freeway = 21}", "{asterix = 640.0}"))
    assert report_main(["--tables", "--references", str(f)]) == 0
    listing = capsys.readouterr().out
    assert "mine: My paper, Table 1" in listing and "const:* → best_const" in listing
    out = tmp_path / "r"
    assert report_main(["syn", "--store", str(tmp_path / "s.sqlite3"), "--out", str(out), "--bootstrap", "20",
                        "--references", str(f), "--human", "mine"]) == 0
    with open(out / "published.csv", newline="") as fh:
        (r,) = [r for r in csv.DictReader(fh) if r["table"] == "mine"]
    # both const:2 samples are 650: a point interval, 640 is outside it
    assert (r["agent"], r["game"], float(r["published"]), r["within"]) == ("const:*", "asterix", 640.0, "0")
    assert "My paper, Table 1" in (out / "index.html").read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text("game,x\nnot_a_game,1\n")
    assert report_main(["syn", "--store", str(tmp_path / "s.sqlite3"), "--references", str(bad)]) == 2
    assert "unknown game 'not_a_game'" in capsys.readouterr().err


def test_small_baseline_samples_are_labelled(tmp_path):
    from arcade_lab.agents.evaluation import report as REP

    shipped_header = (REP.SHIPPED_DIR / "baselines_ale2013.csv").read_text().splitlines()[0]
    assert shipped_header.startswith("# SMALL SAMPLE: 2 samples per policy")
    assert REP.baseline_sample("ale2013") == 2
    with _run(tmp_path, SYN) as st:
        rd = REP.load_run(st, "syn")
    REP.save_baselines(rd, tmp_path / "b.csv")
    assert (tmp_path / "b.csv").read_text().startswith("# SMALL SAMPLE: 2 samples per policy")
    (tmp_path / "big").mkdir()
    with _run(tmp_path / "big", {"random": {"freeway": [0.0] * REP.STABLE_N}}) as st:
        rd = REP.load_run(st, "syn")
    REP.save_baselines(rd, tmp_path / "big.csv")
    assert "SMALL SAMPLE" not in (tmp_path / "big.csv").read_text()


# -- the Scores dock ----------------------------------------------------------------------------------
def test_published_marks_of_a_game(shipped):
    from arcade_lab.app.panels.scores import published_marks

    assert published_marks(shipped, "asterix", "atari57", None) == []
    assert published_marks(shipped, "asterix", "atari57", "human") == [("random (atari57)", 210.0),
                                                                       ("human (atari57)", 8503.3)]
    marks = dict(published_marks(shipped, "asterix", "nature2015", "ale2013"))
    assert marks["human (nature2015)"] == 8503.3 and marks["sarsa_lsh (ale2013)"] == 987.3
    assert marks["const (ale2013)"] == 650 and len(marks) == 10
    every = dict(published_marks(shipped, "asterix", "atari57", "*"))
    assert every["dqn (nature2015)"] == 6012 and "human (atari57)" in every


def test_a_bad_user_table_does_not_stop_the_dock():
    from arcade_lab.app.panels.scores import load_tables

    folder = Path(os.environ["ARCADE_LAB_DATA"]) / "references"
    folder.mkdir(parents=True)
    (folder / "broken.csv").write_text("game,human\npongg,1\n")
    tables, problem = load_tables()
    assert set(tables) == {"ale2013", "nature2015", "atari57"}
    assert "user tables skipped" in problem and "broken.csv" in problem and "did you mean pong" in problem


def test_scores_dock_draws_published_marks(open_window, qtbot):
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from test_journeys import into_sight

    from arcade_lab.agents.base import EpisodeRecord
    from arcade_lab.agents.evaluation.store import Store

    window = open_window("freeway", timeout=180000, gamepads=False)
    st = Store()
    run = st.create_run("marks", "ale2013")
    st.complete_task(run, "const:2|freeway|t0", [
        EpisodeRecord(player="agent:const:2", game="freeway", md5="x", mode=0, difficulty=0, protocol="ale2013",
                      seed=0, score=s, frames=100, steps=20, lives_lost=0, wall_time=1.0, ended_by="game_over")
        for s in (20.0, 21.0, 21.0)])
    sp = window.agent_ui.scores
    # a dock added to a shown window appears on a queued event; raised before that, it stays behind its tab
    qtbot.waitUntil(sp.isVisible, timeout=10000)
    sp.raise_()
    assert sp.open_run("marks")
    qtbot.waitUntil(lambda: sp.game == "freeway" and "agent:const:2" in sp.data, timeout=10000)

    def choose(combo, data):
        """As a person does: click the box, walk its list with the arrow keys, Enter (arrow keys on a closed
        box are the game's)."""
        row = combo.findData(data)
        assert row >= 0, f"{data!r} is not offered"
        into_sight(qtbot, combo)
        qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
        # the keys go to the list once it has the focus (before, they would turn the closed box)
        qtbot.waitUntil(lambda: combo.view().isVisible() and QApplication.activePopupWidget() is not None
                        and QApplication.focusWidget() is combo.view(), timeout=5000)
        key = Qt.Key.Key_Down if row > combo.view().currentIndex().row() else Qt.Key.Key_Up
        while combo.view().currentIndex().row() != row:
            QTest.keyClick(QApplication.focusWidget(), key)
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: combo.currentData() == data and not combo.view().isVisible(), timeout=5000)

    assert sp.marks == []
    choose(sp.published, "ale2013")
    marks = dict(sp.marks)
    assert marks["const (ale2013)"] == 21 and marks["perturb (ale2013)"] == 22.5 and marks["human (atari57)"] == 29.6
    lines = {round(i.value(), 3) for i in sp.hist.getPlotItem().items if isinstance(i, pg.InfiniteLine)}
    assert {21.0, 22.5, 29.6} <= lines
    assert "published: " in sp.summary.text() and "sarsa_ram (ale2013) 19.1" in sp.summary.text()
    choose(sp.human, "nature2015")
    assert sp.norm.itemText(sp.norm.findData("human")) == "human-normalised (nature2015)"
    assert "human (nature2015)" in dict(sp.marks)
    choose(sp.norm, "human")                               # marks follow the view: human mark at 1.0
    assert dict(sp.marks)["human (nature2015)"] == pytest.approx(1.0)
    assert np.allclose(sp.data["agent:const:2"], np.array([20.0, 21.0, 21.0]) / 29.6)
    st.close()
