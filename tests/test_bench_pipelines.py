"""`arcade-lab bench --pipelines`: every Gymnasium path gets a row with both sides' steps/s and their ratio
(or says its library is not installed). Speed itself is the bench command's business, not a test's."""
from __future__ import annotations

import importlib.util
import json
import re

import pytest

from arcade_lab import cli
from arcade_lab.bench_pipelines import PIPELINES
from tests.conftest import requires_ale

OPTIONAL = {"SB3 AtariWrapper": "stable_baselines3", "EnvPool": "envpool"}


@requires_ale
def test_pipelines_prints_a_ratio_for_every_path(capsys, tmp_path):
    out_json = tmp_path / "pipelines.json"
    assert cli.main(["bench", "--pipelines", "--games", "pong", "--steps", "30", "--rounds", "1",
                     "--json", str(out_json)]) == 0
    lines = capsys.readouterr().out.splitlines()
    saved = {r["path"]: r for r in json.loads(out_json.read_text())["rows"]}
    for name, _ in PIPELINES:
        [line] = [ln for ln in lines if ln.startswith(name + " ")]
        module = OPTIONAL.get(name)
        if module and importlib.util.find_spec(module) is None:
            assert line.rstrip().endswith(f"{module} not installed")
            assert saved[name]["ratio"] is None and saved[name]["missing"] == f"{module} not installed"
            continue
        m = re.fullmatch(rf"{re.escape(name)}\s+pong\s+(\d+)\s+(\d+)\s+(\d+\.\d\d)x", line.strip())
        assert m, line
        ours, theirs, ratio = int(m[1]), int(m[2]), float(m[3])
        assert ours > 0 and theirs > 0
        assert abs(ratio - ours / theirs) < 0.01 + 0.01 * ratio  # the columns printed are rounded
        assert saved[name]["ratio"] > 0 and saved[name]["game"] == "pong"
    ratios = [r["ratio"] for r in saved.values() if r["ratio"] is not None]
    [summary] = [ln for ln in lines if ln.startswith("min ratio")]
    assert f"{min(ratios):.2f}x" in summary


def test_unknown_game_is_refused_clearly():
    with pytest.raises(SystemExit, match="no Gymnasium id for no_such_game"):
        cli.main(["bench", "--pipelines", "--games", "pong", "no_such_game", "--steps", "5", "--rounds", "1"])


def test_games_may_be_listed_with_commas():
    # the comma list reaches the game check whole: its second id is the one refused
    with pytest.raises(SystemExit, match="no Gymnasium id for no_such_game"):
        cli.main(["bench", "--pipelines", "--games", "pong,no_such_game", "--steps", "5", "--rounds", "1"])


class _LoggedEnv:
    """A stand-in environment that logs each step under its side's name; every fifth step logged ends an
    episode."""

    def __init__(self, name, log):
        import gymnasium as gym

        self.name, self.log = name, log
        self.action_space = gym.spaces.Discrete(6)
        self.resets = []

    def reset(self, seed=None):
        self.resets.append(seed)
        return None, {}

    def step(self, action):
        self.log.append((self.name, int(action)))
        return None, 0.0, len(self.log) % 5 == 0, False, {}


def test_sides_take_turns_in_chunks_over_the_same_actions():
    from arcade_lab.bench_pipelines import CHUNK_STEPS, _Player, timed_round

    log = []
    envs = [_LoggedEnv("ours", log), _LoggedEnv("theirs", log)]
    steps = 2 * CHUNK_STEPS + 7
    players = [_Player(env, steps) for env in envs]
    log.clear()
    rates = timed_round(players, steps)
    assert len(rates) == 2 and all(r > 0 for r in rates)
    runs = []  # (side, length) of each uninterrupted stretch of one side's steps
    for name, _ in log:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    c = CHUNK_STEPS
    assert runs == [["ours", c], ["theirs", 2 * c], ["ours", c + 7], ["theirs", 7]]
    ours = [a for n, a in log if n == "ours"]
    theirs = [a for n, a in log if n == "theirs"]
    assert ours == theirs and len(ours) == steps
    for env in envs:  # the warm-up and the round each start from the seeded reset; episode ends reset unseeded
        assert env.resets.count(0) == 2 and None in env.resets
