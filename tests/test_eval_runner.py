"""Runner end to end on a tiny protocol (2 games, baselines, 300-frame episodes): worker processes, resume,
recorded failures, determinism, Ray (skipped when it cannot start), the CLI and the report."""
from __future__ import annotations

import io

import pytest

from arcade_lab.agents.evaluation import protocols as P
from arcade_lab.agents.evaluation import runner as R
from arcade_lab.agents.evaluation.store import Store

TINY = P.Protocol(name="tiny", games=("freeway", "asterix"), frameskip=5, max_frames=300, full_action_space=True,
                  per_frame_agents=True,
                  trials=2, episodes=1)
AGENTS = ["random", "const:0", "perturb:1"]          # 3 agents × 2 games × 2 trials = 12 tasks


def _scores(store, run_id):
    return sorted((e.player, e.game, e.extra["trial"], e.score, e.frames, e.steps)
                  for e in store.episodes(run_id=run_id))


def boom_factory(env, seed):
    raise RuntimeError("factory exploded")


def test_expand():
    assert R.expand_agents("random,const") == ["random"] + [f"const:{a}" for a in range(18)]
    assert len(R.expand_agents(["baselines"])) == 37
    tasks = R.expand_tasks(TINY, AGENTS, TINY.games)
    assert len(tasks) == 12 and len({t.key for t in tasks}) == 12
    assert tasks[0].key == "random|freeway|t0"
    again = R.expand_tasks(TINY, AGENTS, TINY.games)
    assert [(t.env_seed, t.agent_seed) for t in tasks] == [(t.env_seed, t.agent_seed) for t in again]
    assert {t.env_seed for t in tasks} == {0, 1}
    with pytest.raises(ValueError, match="unknown agent"):
        R.check_agent_spec("sarsa-nonexistent")
    with pytest.raises(ValueError, match="unknown agent|0..17"):
        R.check_agent_spec("const:18")
    R.check_agent_spec("perturb:17")


def test_agents_resolve_through_the_registry():
    r = R.resolve_agent("random", None, 1)
    assert r.frames_per_action == 1
    R.check_agent_spec("ext:cmd:python3 examples/agents/random_agent.py")
    with pytest.raises(ValueError, match="unknown agent"):
        R.check_agent_spec("bogus")


def test_episodes_follow_the_protocol(tmp_path):
    with Store(tmp_path / "s.sqlite3") as st:
        res = R.evaluate(st, TINY, AGENTS, ["freeway"], run_name="inline", workers=0, progress=io.StringIO())
        assert res.complete and len(res.ran) == 6
        eps = st.episodes(run_id=res.run_id, full=True)
        by = {(e.player, e.extra["trial"]): e for e in eps}
        rnd, const = by[("agent:random", 0)], by[("agent:const:0", 0)]
        # Random decides every frame whatever the frame skip; Const every 5th frame
        assert rnd.frameskip == 1 and rnd.steps == rnd.frames == 300
        assert const.frameskip == 5 and const.steps == 60 and const.frames == 300
        assert const.ended_by == "truncated" and len(const.actions) == 60 and const.start_state
        assert set(const.actions.tolist()) == {0}
        assert st.run("inline")["status"] == "finished"


def test_pool_resume_and_determinism(tmp_path):
    err = io.StringIO()
    with Store(tmp_path / "s.sqlite3") as st:
        first = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="r", workers=2, limit=3, progress=err)
        assert len(first.ran) == 3 and not first.complete and st.run("r")["status"] == "partial"
        assert "3/3 tasks" in err.getvalue() and "ETA" in err.getvalue()
        second = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="r", workers=2, progress=io.StringIO())
        assert second.run_id == first.run_id and second.skipped == 3 and len(second.ran) == 9
        assert not set(first.ran) & set(second.ran)          # nothing redone
        assert second.complete and len(st.done_tasks(first.run_id)) == 12
        third = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="r", workers=2, progress=io.StringIO())
        assert third.ran == [] and third.skipped == 12
        pooled = _scores(st, first.run_id)
        assert len(pooled) == 12
        inline = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="i", workers=0, progress=io.StringIO())
        assert _scores(st, inline.run_id) == pooled           # same seeds, same scores, any process


def test_failing_task_is_recorded_and_retried(tmp_path):
    key = "const:0|asterix|t1"
    with Store(tmp_path / "s.sqlite3") as st:
        res = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="f", workers=0, fail_keys={key: "deliberate"},
                         progress=io.StringIO())
        assert list(res.failed) == [key] and len(res.ran) == 12
        task = st.tasks(res.run_id)[key]
        assert task["status"] == "failed" and "RuntimeError: deliberate" in task["error"]
        assert len(st.done_tasks(res.run_id)) == 11 and st.run("f")["status"] == "failed"
        again = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="f", workers=0, progress=io.StringIO())
        assert again.ran == [key] and again.complete
        # an agent that cannot even be built fails its task, not the run
        bad = R.evaluate(st, TINY, [f"py:{__name__}:boom_factory", "const:0"], ["freeway"], run_name="b",
                         workers=0, progress=io.StringIO())
        assert len(bad.failed) == 2 and all("factory exploded" in e for e in bad.failed.values())
        assert len(st.done_tasks(bad.run_id)) == 2


def test_fixed_horizon(tmp_path):
    p = P.Protocol(name="fh", games=("breakout",), frameskip=6, termination="fixed_horizon", horizon_frames=1000,
                   seeds=(0, 1))
    with Store(tmp_path / "s.sqlite3") as st:
        res = R.evaluate(st, p, ["const:1", "random"], p.games, run_name="h", workers=0, progress=io.StringIO())
        eps = st.episodes(run_id=res.run_id)
        assert len(eps) == 4 and all(e.frames == 1000 for e in eps)
        assert {e.seed for e in eps} == {0, 1}
        const = [e for e in eps if e.player == "agent:const:1"][0]
        # FIRE forever in Breakout loses all five balls well inside 1000 frames: the game was reset, not ended
        assert const.extra["resets"] >= 1 and const.ended_by == "truncated"
        # AtariBench-style protocols run Random at the control rate, not per frame
        assert all(e.frameskip == 6 for e in eps)


def _ray_or_skip():
    ray = pytest.importorskip("ray")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # no shared memory, no sockets ... : not this test's business
        pytest.skip(f"a local Ray instance cannot start here: {e}")
    return ray


def test_ray_matches_local(tmp_path):
    ray = _ray_or_skip()
    try:
        with Store(tmp_path / "s.sqlite3") as st:
            key = "perturb:1|freeway|t0"
            on_ray = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="ray", use_ray=True, limit=8,
                                fail_keys={key: "on purpose"}, progress=io.StringIO())
            assert len(on_ray.ran) == 8 and list(on_ray.failed) == [key]
            rest = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="ray", use_ray=True, progress=io.StringIO())
            assert len(rest.ran) == 5 and rest.complete    # 4 never run + the failed one
            local = R.evaluate(st, TINY, AGENTS, TINY.games, run_name="local", workers=0, progress=io.StringIO())
            assert _scores(st, on_ray.run_id) == _scores(st, local.run_id)
    finally:
        ray.shutdown()


def test_cli_eval_and_report(tmp_path, capsys):
    from arcade_lab.agents.evaluation.cli import eval_main, report_main

    toml = tmp_path / "tiny.toml"
    toml.write_text('[protocol.tiny]\nframeskip = 5\nmax_frames = 300\nfull_action_space = true\n'
                    'games = ["Freeway", "Asterix"]\n')
    db = str(tmp_path / "s.sqlite3")
    assert eval_main(["tiny", "--protocol-file", str(toml), "--agents", "random,const:0,const:3,perturb:0",
                      "--trials", "3", "--run", "c", "--store", db, "--workers", "0"]) == 0
    assert "24 tasks run now" in capsys.readouterr().out
    out = tmp_path / "rep"
    assert report_main(["c", "--store", db, "--out", str(out), "--bootstrap", "50"]) == 0
    page = (out / "index.html").read_text()
    assert "<svg" in page and "Paired tests" in page and "Baseline ranges" in page and "Separability" in page
    for f in ("scores.csv", "normalised.csv", "aggregates.csv", "paired_tests.csv", "baseline_ranges.csv",
              "separability.csv"):
        assert (out / f).stat().st_size > 0
    assert "human,random" in (out / "aggregates.csv").read_text()
    # --list prints the plan without running
    assert eval_main(["ale2013", "--games", "training", "--agents", "baselines", "--trials", "1", "--list"]) == 0
    assert "37 agents × 5 games × 1 trials = 185 tasks" in capsys.readouterr().out


@pytest.mark.parametrize("argv, msg", [
    (["nope"], "unknown protocol"),
    (["ale2013", "--agents", "bogus"], "unknown agent"),
    (["ale2013", "--games", "pongg"], "did you mean pong"),
    (["ale2013", "--episodes", "0"], "at least 1"),
    (["ale2013", "--workers", "x"], "whole number"),
    (["ale2013", "--protocol-file", "/nonexistent.toml"], "cannot read"),
    ([], "required"),
])
def test_cli_bad_options(argv, msg, capsys):
    from arcade_lab.agents.evaluation.cli import eval_main

    assert eval_main(argv) == 2
    assert msg in capsys.readouterr().err


def test_report_unknown_run(tmp_path, capsys):
    from arcade_lab.agents.evaluation.cli import report_main

    assert report_main(["missing", "--store", str(tmp_path / "s.sqlite3")]) == 2
    assert "no run named 'missing'" in capsys.readouterr().err


def test_shipped_baselines_roundtrip(tmp_path, monkeypatch, capsys):
    from arcade_lab.agents.evaluation import report as REP
    from arcade_lab.agents.evaluation.cli import eval_main, report_main

    toml = tmp_path / "t.toml"
    toml.write_text('[protocol.tb]\nframeskip = 5\nmax_frames = 200\ngames = ["Freeway"]\n')
    db = str(tmp_path / "s.sqlite3")
    assert eval_main(["tb", "--protocol-file", str(toml), "--agents", "random,const:0,perturb:2", "--run", "b",
                      "--store", db, "--workers", "0"]) == 0
    monkeypatch.setattr(REP, "SHIPPED_DIR", tmp_path)
    assert report_main(["b", "--store", db, "--out", str(tmp_path / "r"), "--bootstrap", "20",
                        "--save-baselines", str(tmp_path / "baselines_tb.csv")]) == 0
    shipped = REP.shipped_baselines("tb")
    assert set(shipped) == {"random", "const:0", "perturb:2"} and set(shipped["random"]) == {"freeway"}
    # another run of the protocol without baselines normalises by the shipped table
    assert eval_main(["tb", "--protocol-file", str(toml), "--agents", "const:1", "--run", "x", "--store", db,
                      "--workers", "0"]) == 0
    assert report_main(["x", "--store", db, "--out", str(tmp_path / "rx"), "--bootstrap", "20"]) == 0
    page = (tmp_path / "rx" / "index.html").read_text()
    assert "resources/baselines_tb.csv" in page and "baseline-normalised" in page


def ctrl_c_on_asterix(env, seed):
    if env.info.id == "asterix":
        raise KeyboardInterrupt  # what Ctrl-C does in the middle of a run
    return R.resolve_agent("const:0", env, seed)


def test_interrupted_run_resumes(tmp_path):
    p = P.Protocol(name="tiny", games=("freeway", "asterix"), frameskip=5, max_frames=100, trials=2)
    spec = f"py:{__name__}:ctrl_c_on_asterix"
    with Store(tmp_path / "s.sqlite3") as st:
        first = R.evaluate(st, p, [spec], p.games, run_name="k", workers=0, progress=io.StringIO())
        assert first.interrupted and first.ran == [f"{spec}|freeway|t0", f"{spec}|freeway|t1"]
        assert st.run("k")["status"] == "interrupted"
        second = R.evaluate(st, p, ["const:0"], p.games, run_name="k2", workers=0, progress=io.StringIO())
        assert second.complete
        # resuming the interrupted run (the agent now behaves) runs only the two missing tasks
        global ctrl_c_on_asterix
        saved = ctrl_c_on_asterix
        ctrl_c_on_asterix = lambda env, seed: R.resolve_agent("const:0", env, seed)  # noqa: E731
        try:
            third = R.evaluate(st, p, [spec], p.games, run_name="k", workers=0, progress=io.StringIO())
        finally:
            ctrl_c_on_asterix = saved
        assert third.skipped == 2 and sorted(third.ran) == [f"{spec}|asterix|t0", f"{spec}|asterix|t1"]
        assert third.complete and len(st.episodes(run_id=first.run_id)) == 4


class _Learner:
    """Counts episodes and remembers whether it was learning in each."""

    name = "learner"
    made: list = []

    def __init__(self):
        self.learning = True
        self.actions = list(range(18))
        self.log = []
        _Learner.made.append(self)

    def begin_episode(self, obs):
        self.log.append(self.learning)
        return 0

    def step(self, reward, obs):
        return 0

    def end_episode(self, reward):
        pass


def make_learner(env, seed):
    return _Learner()


def test_learning_agents_train_first(tmp_path):
    p = P.Protocol(name="t", games=("freeway",), frameskip=5, max_frames=50, episodes=2, training_episodes=3)
    _Learner.made.clear()
    with Store(tmp_path / "s.sqlite3") as st:
        res = R.evaluate(st, p, [f"py:{__name__}:make_learner", "const:0"], p.games, run_name="l", workers=0,
                         progress=io.StringIO())
        eps = st.episodes(run_id=res.run_id)
        assert [e.extra["episode"] for e in eps if "learner" in e.player] == [0, 1]      # only recorded ones
        assert len([e for e in eps if e.player == "agent:const:0"]) == 2                # fixed policies: no training
    assert _Learner.made[0].log == [True, True, True, False, False]


def test_frame_budget_trials(tmp_path):
    # Machado-style: episodes until the budget is reached, the crossing episode included, all recorded
    p = P.get("machado2018").with_overrides(frame_budget=700, max_frames=300, trials=1)
    assert P.get("machado2018").frame_budget == 200_000_000
    with Store(tmp_path / "s.sqlite3") as st:
        res = R.evaluate(st, p, ["const:0"], ["freeway"], run_name="m", workers=0, progress=io.StringIO())
        eps = st.episodes(run_id=res.run_id)
        assert [e.frames for e in eps] == [300, 300, 300] and [e.extra["episode"] for e in eps] == [0, 1, 2]
        assert {e.repeat_action_probability for e in eps} == {0.25}
