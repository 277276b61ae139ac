"""Batch evaluation: (protocol, agents, games, trials) → tasks → worker processes or Ray → the store.

One *task* is one (agent spec, game, trial): a fresh environment and agent, the protocol's training
episodes for learning agents, then ``episodes`` recorded episodes. Its key ``agent|game|tN`` is stable, so
an interrupted run (same run name) resumes by skipping the keys the store already marks done; failed
tasks are retried on resume.

Workers only compute: they return EpisodeRecords (or an error string) and the parent writes each task in
one store transaction as it finishes, so a crash can lose at most the tasks in flight and never leaves a
half-written task. Seeds are derived from names with CRC32 (not Python's salted ``hash``), so the same
run gives identical scores in any process, locally or on Ray.
"""
from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
import zlib
from dataclasses import dataclass, field
from typing import Callable, Iterable, TextIO

import numpy as np

from arcade_lab.agents.base import EpisodeRecord, Observation
from arcade_lab.agents.thought_log import ThoughtLog, blob, note
from .protocols import Protocol

BASELINE_ACTIONS = range(18)


# -- agents -------------------------------------------------------------------------------------------
def resolve_agent(spec: str, env, seed: int):
    """The agent for ``spec``. ``py:module:callable`` calls ``callable(env, seed)`` (your own agents);
    everything else (including ``ext:`` external agents) goes to the agents package's registry."""
    if spec.startswith("py:"):
        mod, _, attr = spec[3:].rpartition(":")
        if not mod or not attr:
            raise ValueError(f"agent {spec!r}: expected py:package.module:factory")
        return getattr(importlib.import_module(mod), attr)(env, seed)
    return _registry()(spec, env, seed)


def _registry() -> Callable:
    from arcade_lab.agents.registry import make_agent

    return make_agent


def expand_agents(specs: Iterable[str] | str) -> list[str]:
    """"const"/"perturb" → all 18 actions; "baselines" → ALE 2013's 37 (Random, Const×18, Perturb×18)."""
    if isinstance(specs, str):
        specs = [s for s in specs.split(",")]
    out: list[str] = []
    for s in (s.strip() for s in specs):
        if not s:
            continue
        if s == "baselines":
            out += ["random"] + [f"const:{a}" for a in BASELINE_ACTIONS] + [f"perturb:{a}" for a in BASELINE_ACTIONS]
        elif s in ("const", "perturb"):
            out += [f"{s}:{a}" for a in BASELINE_ACTIONS]
        else:
            out.append(s)
    return list(dict.fromkeys(out))


def check_agent_spec(spec: str) -> None:
    """Raise ValueError for a spec that cannot name an agent — before any task starts, so a typo does not
    become thousands of failed tasks."""
    if spec.startswith("py:"):
        mod, _, attr = spec[3:].rpartition(":")
        if not mod or not attr:
            raise ValueError(f"agent {spec!r}: expected py:package.module:factory")
        return
    if spec.strip().lower().startswith(("ext:cmd:", "ext:tcp:")):
        return  # an external agent: whether it answers is found out per task (and recorded if not)
    from arcade_lab.agents.registry import agent_specs

    known = agent_specs()
    if spec.strip().lower() not in known:
        raise ValueError(f"unknown agent {spec!r}; known: {', '.join(_compact(known + ['ext:cmd:COMMAND']))}")


def _compact(specs: list[str]) -> list[str]:
    out = []
    for s in specs:
        k, _, a = s.partition(":")
        short = f"{k}:A" if a.isdigit() else s
        if short not in out:
            out.append(short)
    return out


# -- tasks --------------------------------------------------------------------------------------------
def stable_seed(*parts) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class Task:
    key: str
    agent: str
    game: str
    trial: int
    env_seed: int
    agent_seed: int
    protocol: Protocol
    episodes: int
    fail: str = ""          # tests: make this task raise (a deliberately failing task)
    thoughts: bool = True   # keep each recorded episode's per-decision thoughts (agents that show them)

    def to_dict(self) -> dict:
        return dict(key=self.key, agent=self.agent, game=self.game, trial=self.trial, env_seed=self.env_seed,
                    agent_seed=self.agent_seed, episodes=self.episodes)


def expand_tasks(protocol: Protocol, agents: Iterable[str], games: Iterable[str], *, base_seed: int = 0,
                 episodes: int | None = None, thoughts: bool = True) -> list[Task]:
    """Every (agent, game, trial) of the evaluation, in a stable order (games outermost: early results
    cover every agent of a game, which is what comparisons need first)."""
    agents = expand_agents(list(agents))
    n_ep = episodes or protocol.episodes
    tasks = []
    for g in games:
        for a in agents:
            for t in range(protocol.n_trials):
                tasks.append(Task(key=f"{a}|{g}|t{t}", agent=a, game=g, trial=t,
                                  env_seed=protocol.env_seed(t, base_seed),
                                  agent_seed=stable_seed(base_seed, a, g, t), protocol=protocol, episodes=n_ep,
                                  thoughts=thoughts))
    return tasks


# -- playing ------------------------------------------------------------------------------------------
def _obs(env) -> Observation:
    return Observation(screen=env.screen(), ram=env.ram(), lives=env.lives(), frame=env.episode_frame_number,
                       terminal=env.game_over())


def _decide(log, agent, fn, *args) -> int:
    """``fn(*args)`` (the agent's begin_episode or step), its decision noted in ``log`` when there is one."""
    t = time.perf_counter()
    a = fn(*args)
    note(log, agent, a, time.perf_counter() - t)
    return a


def _episode_game_over(env, agent, p: Protocol, decision_frames: int,
                       log: ThoughtLog | None = None) -> tuple[float, int, int, int, str, list]:
    """One episode from the reset env to game over (or the frame cap)."""
    lives0 = env.lives()
    trace: list[int] = []
    score = 0.0
    a = _decide(log, agent, agent.begin_episode, _obs(env))
    while True:
        trace.append(a)
        r = env.act(a)
        score += r
        if env.game_over():
            agent.end_episode(r)
            break
        a = _decide(log, agent, agent.step, r, _obs(env))
    ended = "truncated" if env.game_truncated() else "game_over"
    return score, env.episode_frame_number, len(trace), max(0, lives0 - env.lives()), ended, trace


def _episode_fixed_horizon(env, agent, p: Protocol, decision_frames: int, log: ThoughtLog | None = None):
    """AtariBench: exactly ``horizon_frames`` emulated frames from the reset env; a game that ends early is
    reset at once and play goes on (the agent sees a new episode begin), the score is everything earned in
    the window."""
    frames = steps = resets = lost = 0
    score = 0.0
    trace: list[int] = []
    lives0 = env.lives()
    a = _decide(log, agent, agent.begin_episode, _obs(env))
    while frames < p.horizon_frames:
        before = env.episode_frame_number
        n = min(decision_frames, p.horizon_frames - frames)
        trace.append(a)
        r = env.act(a) if n == decision_frames else env.act_frames(a, n)
        score += r
        steps += 1
        frames += env.episode_frame_number - before
        if env.game_over():
            agent.end_episode(r)
            lost += max(0, lives0 - env.lives())
            if frames >= p.horizon_frames:
                break
            env.reset()
            resets += 1
            lives0 = env.lives()
            a = _decide(log, agent, agent.begin_episode, _obs(env))
        elif frames < p.horizon_frames:
            a = _decide(log, agent, agent.step, r, _obs(env))
        else:
            agent.end_episode(r)
    lost += max(0, lives0 - env.lives()) if not env.game_over() else 0
    return score, frames, steps, lost, "truncated", trace, resets


def run_task(task: Task) -> dict:
    """Play one task; never raises. Returns {"key", "records", "error", "wall"} (picklable)."""
    t0 = time.perf_counter()
    try:
        if task.fail:
            raise RuntimeError(task.fail)
        records = list(_play(task))
        return {"key": task.key, "records": records, "error": "", "wall": time.perf_counter() - t0}
    except Exception as e:  # a failing task is data (recorded with its error), not the end of the run
        tb = traceback.format_exc(limit=6)
        return {"key": task.key, "records": [], "error": f"{type(e).__name__}: {e}\n{tb}",
                "wall": time.perf_counter() - t0}


def _play(task: Task) -> Iterable[EpisodeRecord]:
    from arcade_lab.engine.env import Env

    p = task.protocol
    # the env exists before the agent: planning agents take it as their simulator
    env = Env(task.game, frameskip=p.frameskip, repeat_action_probability=p.repeat_action_probability,
              max_num_frames_per_episode=p.max_frames if p.termination == "game_over" else 0,
              full_action_space=p.full_action_space, seed=task.env_seed)
    agent = resolve_agent(task.agent, env, task.agent_seed)
    # agents that decide more often than the protocol's frame skip say so with frames_per_action (the
    # agents package's convention: Random has 1)
    fpa = getattr(agent, "frames_per_action", None)
    per_frame = p.per_frame_agents and fpa == 1
    if per_frame:
        # ALE 2013's Random: a decision every emulated frame, whatever the protocol's frame skip (protocols
        # that define their random baseline at the control rate, like AtariBench's, leave this off)
        env.frames_per_act = 1
    decision_frames = 1 if per_frame else p.frameskip
    agent.actions = env.action_set()
    learning = bool(getattr(agent, "learning", False))
    player = f"agent:{task.agent}"
    n_train = p.training_episodes if learning else 0
    # Machado et al.: a trial is a frame budget (episodes until the total reaches it, the crossing one
    # included), every episode recorded so scores can be read at each threshold; else an episode count
    budget = p.frame_budget
    used = 0
    i = -1
    while True:
        i += 1
        if budget > 0 and (used >= budget) or budget <= 0 and i >= n_train + task.episodes:
            break
        t0 = time.perf_counter()
        env.reset()  # before the start state is taken: a replay restores it and plays the trace from there
        start = env.clone_state(include_rng=True).to_bytes()
        training = i < n_train and budget <= 0
        log = ThoughtLog() if task.thoughts and not training else None
        if p.termination == "fixed_horizon":
            score, frames, steps, lost, ended, trace, resets = _episode_fixed_horizon(env, agent, p, decision_frames,
                                                                                      log)
            extra = {"resets": resets}
        else:
            score, frames, steps, lost, ended, trace = _episode_game_over(env, agent, p, decision_frames, log)
            extra = {}
        used += frames
        if training:
            if i == n_train - 1:
                agent.learning = False  # ALE 2013: evaluation episodes run with learning switched off
            continue
        extra.update(trial=task.trial, episode=i if budget > 0 else i - n_train, agent_seed=task.agent_seed, per_frame=per_frame)
        if p.termination == "fixed_horizon":
            # game overs inside the window reset the game again (``resets`` times)
            extra["horizon_frames"] = p.horizon_frames
        yield EpisodeRecord(
            player=player, game=task.game, md5=env.info.md5, mode=env.mode, difficulty=env.difficulty,
            protocol=p.name, seed=task.env_seed, score=float(score), frames=int(frames), steps=int(steps),
            lives_lost=int(lost), wall_time=time.perf_counter() - t0, ended_by=ended,
            frameskip=decision_frames, repeat_action_probability=p.repeat_action_probability,
            max_frames=p.max_frames if p.termination == "game_over" else p.horizon_frames,
            actions=np.asarray(trace, dtype=np.uint8), start_state=start, extra=extra, thoughts=blob(log))


# -- progress -----------------------------------------------------------------------------------------
class Progress:
    """A one-line bar with counts and ETA on stderr (redrawn in place on a terminal, every ~10% otherwise)."""

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "eval"):
        self.total, self.done, self.failed = total, 0, 0
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.t0 = time.monotonic()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_decile = -1

    @staticmethod
    def _fmt(s: float) -> str:
        s = int(max(0, s))
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"

    def line(self) -> str:
        el = time.monotonic() - self.t0
        frac = self.done / self.total if self.total else 1.0
        eta = el / self.done * (self.total - self.done) if self.done else float("nan")
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        eta_s = "?" if eta != eta else self._fmt(eta)
        fail = f", {self.failed} failed" if self.failed else ""
        return f"{self.label} [{bar}] {self.done}/{self.total} tasks{fail}  elapsed {self._fmt(el)}  ETA {eta_s}"

    def update(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        if self._tty:
            self.stream.write("\r" + self.line())
        else:
            decile = int(10 * self.done / max(1, self.total))
            if decile == self._last_decile:
                return
            self._last_decile = decile
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


# -- executing ----------------------------------------------------------------------------------------
@dataclass
class RunResult:
    run_id: int
    name: str
    total: int                      # tasks of the whole evaluation
    skipped: int                    # already done in an earlier invocation (resume)
    ran: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return not self.interrupted and not self.failed and self.skipped + len(self.ran) == self.total


def evaluate(store, protocol: Protocol, agents, games, *, run_name: str | None = None, base_seed: int = 0,
             episodes: int | None = None, workers: int | None = None, ray_address: str | None = None,
             use_ray: bool = False, limit: int | None = None, progress: TextIO | None = None,
             fail_keys: dict[str, str] | None = None, thoughts: bool = True) -> RunResult:
    """Run (or resume) an evaluation into ``store``.

    ``workers``: processes (default: CPU count); 0 plays in this process (debugging, tiny runs).
    ``use_ray``: Ray tasks instead — a local Ray instance, or the cluster at ``ray_address``.
    ``limit``: run at most this many of the missing tasks now (the rest on a later call).
    ``fail_keys``: {task key: message} tasks forced to fail (to exercise error recording).
    ``thoughts``: keep the per-decision thoughts of agents that show them (planners, learners)."""
    agents = expand_agents(list(agents))
    games = list(games)
    tasks = expand_tasks(protocol, agents, games, base_seed=base_seed, episodes=episodes, thoughts=thoughts)
    name = run_name or f"{protocol.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    spec = {"protocol": protocol.describe(), "agents": agents, "games": games, "base_seed": base_seed,
            "episodes": episodes or protocol.episodes, "tasks": len(tasks)}
    run_id = store.create_run(name, protocol.name, spec)
    done = store.done_tasks(run_id)
    todo = [t for t in tasks if t.key not in done]
    if fail_keys:
        todo = [Task(**{**t.__dict__, "fail": fail_keys[t.key]}) if t.key in fail_keys else t for t in todo]
    if limit is not None:
        todo = todo[: max(0, limit)]
    res = RunResult(run_id=run_id, name=name, total=len(tasks), skipped=len(tasks) - len([t for t in tasks
                                                                                           if t.key not in done]))
    bar = Progress(len(todo), progress, label=name)

    def finish(out: dict) -> None:
        # the one place results reach the store: the parent, one transaction per task
        store.complete_task(run_id, out["key"], out["records"], out["error"])
        res.ran.append(out["key"])
        if out["error"]:
            res.failed[out["key"]] = out["error"]
        bar.update(failed=bool(out["error"]))

    try:
        if use_ray:
            _run_ray(todo, finish, ray_address, workers)
        elif workers == 0 or len(todo) <= 1 and workers is None:
            for t in todo:
                finish(run_task(t))
        else:
            _run_pool(todo, finish, workers or os.cpu_count() or 1)
    except KeyboardInterrupt:
        res.interrupted = True
    finally:
        bar.close()
    remaining = res.total - res.skipped - len(res.ran)
    status = "interrupted" if res.interrupted else ("failed" if res.failed else
                                                     ("finished" if remaining == 0 else "partial"))
    store.finish_run(run_id, status)
    return res


def _run_pool(todo: list[Task], finish, workers: int) -> None:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: numba-compiled state and the parent's SQLite connection must not be forked into workers
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, max(1, len(todo))), mp_context=ctx) as pool:
        futs = {pool.submit(run_task, t): t for t in todo}
        try:
            pending = set(futs)
            while pending:
                ready, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in ready:
                    try:
                        out = f.result()
                    except Exception as e:  # the worker process died (BrokenProcessPool, pickling ...)
                        out = {"key": futs[f].key, "records": [], "error": f"{type(e).__name__}: {e}"}
                    finish(out)
        except KeyboardInterrupt:
            for f in futs:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except Exception:
        return False
    return True


def _run_ray(todo: list[Task], finish, address: str | None, workers: int | None) -> None:
    try:
        import ray
    except ImportError:
        raise RuntimeError("Ray is not installed: pip install 'arcade-lab[ray]' (or run without --ray)") from None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    started_here = False
    if not ray.is_initialized():
        if address:
            # a cluster: ship this checkout as the job's working directory (not the venv or the databases)
            ray.init(address=address, runtime_env={"working_dir": root,
                                                    "excludes": [".git", ".venv", "*.sqlite3*", "build", "dist"]},
                     log_to_driver=False)
        else:
            ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([root] + [p for p in sys.path if p])}})
        started_here = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        refs = {remote.remote(t): t for t in todo}
        pending = list(refs)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for r in ready:
                    try:
                        out = ray.get(r)
                    except Exception as e:  # the worker died; the task is recorded as failed
                        out = {"key": refs[r].key, "records": [], "error": f"{type(e).__name__}: {e}"}
                    finish(out)
        except KeyboardInterrupt:
            for r in pending:
                ray.cancel(r, force=True)
            raise
    finally:
        if started_here:
            ray.shutdown()
