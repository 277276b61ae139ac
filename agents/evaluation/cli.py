"""`arcade-lab eval` and `arcade-lab report` (arcade_lab/cli.py delegates here). Exit codes: 0 ok, 1 some tasks
failed, 2 bad options, 130 interrupted (resume with the same --run)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 with its own message; we raise instead so the caller returns the code."""

    def error(self, message):
        raise _Usage(f"{self.prog}: {message}")


class _Usage(Exception):
    pass


def _whole_at_least(lo: int, says: str):
    """An argparse type: a whole number >= ``lo``, refused with ``says`` otherwise."""
    def parse(v: str) -> int:
        try:
            n = int(v)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {v!r}") from None
        if n < lo:
            raise argparse.ArgumentTypeError(f"{says}, got {n}")
        return n
    return parse


_positive = _whole_at_least(1, "must be at least 1")
_nonneg = _whole_at_least(0, "must be 0 or more")


def eval_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="arcade-lab eval", description="Run agents under a published evaluation protocol.")
    p.add_argument("protocol", help="ale2013, machado2018, ataribench2026, or a name from --protocol-file")
    p.add_argument("--agents", default="baselines",
                   help="comma list of agent specs (random, const:A, perturb:A, sarsa:FEATURES, uct, bfs, brute, "
                        "ext:...), const (all 18), perturb (all 18), baselines (37), py:module:factory "
                        "(default: baselines)")
    p.add_argument("--games", default=None, help="a set of the protocol (training, test ...), comma list, or all")
    p.add_argument("--episodes", type=_positive, help="recorded episodes per trial")
    p.add_argument("--trials", type=_positive, help="trials per agent and game (seed-listed protocols: first N seeds)")
    p.add_argument("--frames-cap", type=_positive, dest="frames_cap",
                   help="per-episode frame cap (fixed-horizon protocols: the window length)")
    p.add_argument("--frame-budget", type=_nonneg, dest="frame_budget",
                   help="frames per trial (Machado: episodes until the budget; 0 = use --episodes)")
    p.add_argument("--run", help="run name (an existing name resumes it)")
    p.add_argument("--seed", type=_nonneg, default=0, help="base seed (trial t uses environment seed base+t)")
    p.add_argument("--workers", type=_nonneg, help="worker processes (default: CPU count; 0 = in this process)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on Ray: a local instance, or the cluster at ADDRESS")
    p.add_argument("--max-tasks", type=_nonneg, dest="max_tasks", help="run at most N of the missing tasks now")
    p.add_argument("--protocol-file", dest="protocol_file", help="TOML file with [protocol.NAME] tables")
    p.add_argument("--store", help="database file (default: the user data folder)")
    p.add_argument("--no-thoughts", dest="thoughts", action="store_false",
                   help="do not keep the agents' per-decision thoughts (planners' root visits and values, "
                        "learners' Q-values) that the app shows when it replays an episode")
    p.add_argument("--list", action="store_true", help="print the protocol and its tasks, run nothing")
    return p


def eval_main(argv) -> int:
    from . import protocols as P
    from . import runner as R

    try:
        a = eval_parser().parse_args(list(argv))
    except _Usage as e:
        print(e, file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    try:
        proto = P.get(a.protocol, a.protocol_file)
        over = {"episodes": a.episodes, "trials": a.trials, "frame_budget": a.frame_budget}
        if a.frames_cap:
            over["horizon_frames" if proto.termination == "fixed_horizon" else "max_frames"] = a.frames_cap
        proto = proto.with_overrides(**over)
        games = proto.select_games(a.games)
        agents = R.expand_agents(a.agents)
        if not agents:
            raise ValueError("no agents given")
        for s in agents:
            R.check_agent_spec(s)
    except (P.ProtocolError, ValueError) as e:
        print(f"arcade-lab eval: {e}", file=sys.stderr)
        return 2
    if a.ray is not None and not R.ray_available():
        print("arcade-lab eval: --ray needs Ray: pip install 'arcade-lab[ray]'", file=sys.stderr)
        return 2
    tasks = R.expand_tasks(proto, agents, games, base_seed=a.seed)
    if a.list:
        print(f"{proto.name}: {proto.title}\n{proto.source}\n")
        print(f"{len(agents)} agents × {len(games)} games × {proto.n_trials} trials = {len(tasks)} tasks, "
              f"{proto.episodes} episodes each")
        print(_published_line(proto.name, agents))
        for t in tasks:
            print(t.key)
        return 0
    from .store import Store, StoreError

    try:
        store = Store(a.store)
    except StoreError as e:
        print(f"arcade-lab eval: {e}", file=sys.stderr)
        return 2
    with store:
        res = R.evaluate(store, proto, agents, games, run_name=a.run, base_seed=a.seed, workers=a.workers,
                         use_ray=a.ray is not None, ray_address=a.ray or None, limit=a.max_tasks,
                         thoughts=a.thoughts)
    msg = (f"run {res.name}: {len(res.ran)} tasks run now, {res.skipped} already done, {len(res.failed)} failed "
           f"(of {res.total}) → {store.path}")
    print(msg)
    for k, err in res.failed.items():
        print(f"  failed {k}: {err.splitlines()[0]}", file=sys.stderr)
    if res.interrupted:
        print(f"interrupted: run `arcade-lab eval {a.protocol} ... --run {res.name}` again to resume", file=sys.stderr)
        return 130
    return 1 if res.failed else 0


def report_main(argv) -> int:
    p = _Parser(prog="arcade-lab report", description="HTML report and CSVs of an evaluation run.")
    p.add_argument("run", nargs="?", help="run name")
    p.add_argument("--out", help="output folder (default: ./report-RUN)")
    p.add_argument("--baselines", help="run holding the 37 baseline policies (default: this run's own)")
    p.add_argument("--store", help="database file (default: the user data folder)")
    p.add_argument("--bootstrap", type=_positive, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--save-baselines", dest="save_baselines", metavar="FILE",
                   help="also write the run's baseline policies' per-game means as a table reports can ship "
                        "(resources/baselines_<protocol>.csv)")
    p.add_argument("--human", default=None, metavar="SET",
                   help="reference set of human-normalised scores: atari57 (default), nature2015, or a table "
                        "of --references with random and human columns")
    p.add_argument("--references", action="append", default=[], metavar="FILE",
                   help="a published table to add (.toml with [table.NAME] entries, or a .csv); repeatable")
    p.add_argument("--tables", action="store_true", help="list the published tables and exit")
    try:
        a = p.parse_args(list(argv))
    except _Usage as e:
        print(e, file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    from . import references as REF
    from . import report as REP

    try:
        tables = REF.load_all(a.references)
        human = a.human or REF.DEFAULT_HUMAN
        REF.human_reference(human, tables)
    except REF.ReferenceError as e:
        print(f"arcade-lab report: {e}", file=sys.stderr)
        return 2
    if a.tables:
        print(_describe_tables(tables, human))
        return 0
    if not a.run:
        print("arcade-lab report: the run name is required (or --tables)", file=sys.stderr)
        return 2
    from .store import Store, StoreError

    try:
        store = Store(a.store)
    except StoreError as e:
        print(f"arcade-lab report: {e}", file=sys.stderr)
        return 2
    with store:
        try:
            rd = REP.load_run(store, a.run)
            base = REP.load_run(store, a.baselines) if a.baselines else None
        except LookupError as e:
            print(f"arcade-lab report: {e.args[0]}", file=sys.stderr)
            return 2
    if not rd.samples:
        print(f"arcade-lab report: run {a.run!r} has no finished episodes yet", file=sys.stderr)
        return 2
    if a.save_baselines:
        n = REP.save_baselines(rd, a.save_baselines)
        if not n:
            print(f"arcade-lab report: run {a.run!r} holds none of the 37 baseline policies", file=sys.stderr)
            return 2
        print(f"wrote {n} baseline rows to {a.save_baselines}")
    out = Path(a.out or f"report-{a.run}")
    path = REP.build(rd, out, baselines=base, reps=a.bootstrap, human=human, tables=tables)
    print(f"wrote {path} (and CSVs in {out})")
    return 0


def _describe_tables(tables, human: str) -> str:
    """One paragraph per published table: name, title, games, what it compares and whether it normalises."""
    out = []
    for name, t in tables.items():
        agents = ", ".join(f"{a} → {c}" for a, c in t.agents.items()) or "none"
        ref = ""
        if t.human:
            ref = f"; human reference ({', '.join(t.human)})" + (" [selected]" if name == human else "")
        out.append(f"{name}: {t.title} — {len(t.games)} games, from {t.origin}\n"
                   f"  protocol: {t.protocol or 'any'}; our agents: {agents}{ref}\n"
                   f"  columns: {', '.join(t.scores)}")
    return "\n".join(out)


def _published_line(protocol: str, agents: list[str]) -> str:
    """Which of ``agents`` `arcade-lab report` will set beside a published table."""
    from . import references as REF

    try:
        tables = REF.load_all()
    except REF.ReferenceError as e:
        return f"published tables: {e}"
    found = []
    for t in tables.values():
        if t.applies_to(protocol):
            named = [a for a in t.agents
                     if a in agents or (a.endswith(":*") and any(x.startswith(a[:-1]) for x in agents))]
            if named:
                found.append(f"{', '.join(REF.agent_label(a) for a in named)} ({t.title})")
    return "published figures for: " + ("; ".join(found) if found else "none of these agents")
