"""Protocols as data: the built-in tables match their papers; user TOML files load; bad input is explained."""
from __future__ import annotations

import pytest

from arcade_lab.agents.evaluation import protocols as P


def test_ale2013():
    p = P.get("ale2013")
    assert (p.frameskip, p.repeat_action_probability, p.max_frames) == (5, 0.0, 18000)
    assert p.full_action_space and p.termination == "game_over" and p.per_frame_agents
    assert p.sets["training"] == ("asterix", "beam_rider", "freeway", "seaquest", "space_invaders")
    assert len(p.sets["test"]) == 50 and not set(p.sets["test"]) & set(p.sets["training"])
    assert len(p.games) == 55
    assert (p.trials, p.episodes, p.training_episodes) == (30, 500, 5000)
    assert "JAIR" in p.source


def test_machado2018():
    p = P.get("machado2018")
    assert p.repeat_action_probability == 0.25 and p.termination == "game_over"
    assert len(p.games) == 60 and len(set(p.games)) == 60
    assert p.frame_thresholds == (10_000_000, 50_000_000, 100_000_000, 200_000_000) and p.last_n == 100
    assert "surround" not in p.games and "defender" not in p.games


def test_ataribench2026():
    p = P.get("ataribench2026")
    assert len(p.games) == 20 and "laser_gates" in p.games and "pacman" in p.games
    assert p.termination == "fixed_horizon" and p.horizon_frames == 1800
    assert p.frameskip == 6                    # 10 Hz at 60 frames per second
    assert p.repeat_action_probability == 0.0 and not p.per_frame_agents
    assert p.seeds == tuple(range(10)) and p.n_trials == 10
    assert [p.env_seed(t) for t in range(3)] == [0, 1, 2]
    assert p.with_overrides(trials=3).seeds == (0, 1, 2)


def test_game_names():
    assert P.game_id("H.E.R.O.") == "hero"
    assert P.game_id("Montezuma's Revenge") == "montezuma_revenge"
    assert P.game_id("Up and Down") == "up_n_down"
    assert P.game_id("Ms. Pac-Man") == "ms_pacman"
    assert P.game_id("BeamRider") == "beam_rider"
    with pytest.raises(P.ProtocolError, match="did you mean pong"):
        P.game_id("pongg")


def test_select_games():
    p = P.get("ale2013")
    assert p.select_games("training") == p.sets["training"]
    assert p.select_games("Pong, freeway") == ("pong", "freeway")
    assert p.select_games(None) == p.games


def test_custom_file(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[protocol.tiny]\ntitle = "tiny"\nframeskip = 4\nmax_frames = 300\ngames = ["Pong", "quick"]\n'
                 '[protocol.tiny.sets]\nquick = ["Freeway"]\n')
    p = P.get("tiny", f)
    assert p.games == ("pong", "freeway") and p.frameskip == 4 and p.max_frames == 300
    assert P.get("ale2013", f).name == "ale2013"      # built-ins stay available


@pytest.mark.parametrize("body, msg", [
    ('[protocol.x]\ngames = ["pong"]\nframeskip = 0\n', "frameskip"),
    ('[protocol.x]\ngames = ["pong"]\nframeskip = "5"\n', "integer"),
    ('[protocol.x]\ngames = ["pong"]\nterminaton = "game_over"\n', "unknown keys"),
    ('[protocol.x]\ngames = ["pong"]\ntermination = "fixed_horizon"\n', "horizon_frames"),
    ('[protocol.x]\ngames = ["pongg"]\n', "unknown game"),
    ('[protocol.x\n', "not valid TOML"),
    ('title = 1\n', "no \\[protocol.NAME\\]"),
])
def test_bad_files(tmp_path, body, msg):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(P.ProtocolError, match=msg):
        P.load_file(f)


def test_unknown_protocol():
    with pytest.raises(P.ProtocolError, match="known: ale2013"):
        P.get("ale2014")
