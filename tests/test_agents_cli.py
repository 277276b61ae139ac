"""`arcade-lab run`: scores printed, clear exit-2 errors, SARSA weights saved and loaded on a real game."""
from __future__ import annotations

from arcade_lab.agents.cli import run_main


def test_unknown_agent_and_game(capsys, ale_roms):
    assert run_main(["nope", "pong"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert run_main(["random", "no_such_game_xyz"]) == 2
    assert "no_such_game_xyz" in capsys.readouterr().err


def test_const_episode(capsys, ale_roms):
    assert run_main(["const:0", "pong", "--frames-cap", "300"]) == 0
    out = capsys.readouterr().out
    assert "episode     1" in out and "frames    300" in out and "const:0 on pong" in out


def test_sarsa_train_save_load(tmp_path, capsys, ale_roms):
    w = tmp_path / "w.npz"
    assert run_main(["sarsa:basic", "pong", "--train", "1", "--episodes", "1", "--frames-cap", "150",
                     "--samples", "20", "--save", str(w)]) == 0
    assert w.exists()
    assert run_main(["sarsa:basic", "pong", "--episodes", "1", "--frames-cap", "150", "--samples", "20",
                     "--load", str(w)]) == 0
    assert run_main(["sarsa:ram", "pong", "--load", str(w), "--frames-cap", "50"]) == 2
    assert "basic" in capsys.readouterr().err


def test_uct_and_bfs_run(capsys, ale_roms):
    assert run_main(["uct", "boxing", "--budget", "4", "--depth", "20", "--frames-cap", "50"]) == 0
    assert run_main(["bfs", "boxing", "--budget", "200", "--frames-cap", "50"]) == 0
    out = capsys.readouterr().out
    assert "uct on boxing" in out and "bfs on boxing" in out
    assert run_main(["uct", "boxing", "--budget", "4", "--depth", "20", "--frames-cap", "30", "--workers", "2"]) == 0
    assert "uct on boxing" in capsys.readouterr().out
    assert run_main(["bfs", "boxing", "--workers", "2"]) == 2
    assert run_main(["bfs", "boxing", "--depth", "300"]) == 2   # BFS has no horizon to set
    assert "--depth" in capsys.readouterr().err
    assert run_main(["uct", "boxing", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_run_writes_episodes_to_the_store(tmp_path, capsys, ale_roms):
    from arcade_lab.agents.evaluation.store import Store

    db = tmp_path / "scores.db"
    assert run_main(["const:0", "pong", "--episodes", "2", "--frames-cap", "200", "--store", str(db)]) == 0
    eps = Store(db).episodes(game="pong")
    assert [e.player for e in eps] == ["agent:const:0"] * 2
    assert len(eps) == 2 and all(e.frames == 200 and e.ended_by == "truncated" for e in eps)


def test_stored_random_episodes_replay_verified(tmp_path, capsys, ale_roms):
    """Random decides every frame while the others hold an action for --frameskip frames: its stored
    episode must replay at the frame skip it was played at, whatever --frameskip said."""
    from arcade_lab.agents.evaluation.replay import replay_main

    db = str(tmp_path / "s.db")
    assert run_main(["random", "pong", "--frames-cap", "240", "--store", db]) == 0
    assert run_main(["random", "pong", "--frames-cap", "240", "--frameskip", "3", "--store", db]) == 0
    assert "decides every frame" in capsys.readouterr().err
    assert run_main(["const:1", "pong", "--frames-cap", "240", "--frameskip", "3", "--store", db]) == 0
    capsys.readouterr()
    assert replay_main(["1", "--db", db]) == 0
    assert replay_main(["2", "--db", db]) == 0
    assert replay_main(["3", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.count("✔ verified") == 3 and "MISMATCH" not in out


def test_a_frame_skip_below_one_is_refused(capsys, ale_roms):
    assert run_main(["const:0", "pong", "--frameskip", "0"]) == 2
    assert "--frameskip" in capsys.readouterr().err
