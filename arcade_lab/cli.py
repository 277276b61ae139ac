"""The `arcade-lab` command: one entry point for the app and every headless tool."""
from __future__ import annotations

import argparse
import sys

from . import __version__
from .engine.roms import RomError

# Subcommands owned by other packages: (module, function taking the remaining argv). Until the module
# exists the command says which capability is pending and exits 2 — it never pretends to work.
DELEGATED = {
    "run": ("arcade_lab.agents.cli", "run_main", "agents (ALE 2013 baselines, SARSA(λ), UCT, BFS)"),
    "eval": ("arcade_lab.agents.evaluation.cli", "eval_main", "evaluation (protocols, Ray runner, metrics)"),
    "report": ("arcade_lab.agents.evaluation.cli", "report_main", "evaluation reports"),
    "replay": ("arcade_lab.agents.evaluation.replay", "replay_main", "recorded sessions and replay verification"),
    "atari-bench": ("arcade_lab.agents.atari_bench.cli", "atari_bench_main", "AtariBench: vision-language models on 20 games"),
    "warm": ("arcade_lab.warm", "main", "compile every kernel now (the first start and first agent attach are then quick)"),
}


def _cmd_games(args) -> int:
    from .engine import roms

    errors: list = []
    infos = roms.scan(args.paths, errors=errors)
    if args.supported:
        infos = [i for i in infos if i.supported]
    print(f"{'id':<20} {'title':<28} {'md5':<32} {'scheme':<10} supported")
    for i in infos:
        print(f"{i.id:<20} {i.title[:28]:<28} {i.md5:<32} {i.scheme:<10} {'yes' if i.supported else 'no'}")
    n_sup = sum(1 for i in infos if i.supported)
    print(f"{len(infos)} ROM files, {n_sup} supported (ALE game rules)")
    for e in errors:
        print(f"skipped: {e}", file=sys.stderr)
    return 0


def _cmd_play(args) -> int:
    try:
        from arcade_lab.app.main import main as app_main
    except ImportError as e:  # the desktop app is optional at install time
        print(f"The desktop app cannot start: {e}", file=sys.stderr)
        return 2
    return app_main(args)


def _cmd_doctor(args) -> int:
    from .doctor import main as doctor_main

    return doctor_main()


def _cmd_parity(args) -> int:
    from .parity import main as parity_main

    return parity_main(args)


def _cmd_bench(args) -> int:
    if args.agents:
        from arcade_lab.agents.bench import main as agents_bench

        return agents_bench(args.agent_args)
    if args.app:
        from arcade_lab.app.bench_app import main as app_bench

        return app_bench(args)
    from .bench import main as bench_main

    return bench_main(args)


def _delegate(name):
    module, func, what = DELEGATED[name]

    def run(args) -> int:
        import importlib

        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                print(f"`arcade-lab {name}` is not available yet: {what} is still being built.", file=sys.stderr)
                return 2
            raise
        return int(getattr(mod, func)(args.rest) or 0)
    return run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arcade-lab", description="Arcade Lab: play, record and evaluate Atari 2600 games.")
    p.add_argument("--version", action="version", version=f"arcade-lab {__version__}")
    sub = p.add_subparsers(dest="cmd")

    g = sub.add_parser("games", help="list the ROM catalog")
    g.add_argument("paths", nargs="*", help="extra ROM files or folders")
    g.add_argument("--supported", action="store_true", help="only games with ALE rules")
    g.set_defaults(func=_cmd_games)

    pl = sub.add_parser("play", help="open the desktop app (default)")
    pl.add_argument("game", nargs="?", default=None, help="game id, md5 or ROM path (default: the game played last, Pong the first time)")
    pl.add_argument("--frames", type=int, default=0, help="quit after this many frames (smoke tests)")
    pl.add_argument("--self-test", action="store_true", help="load a game headless, run frames, exit 0")
    pl.set_defaults(func=_cmd_play)

    d = sub.add_parser("doctor", help="check this installation (Python, numba, Qt, audio, gamepad, ROMs, cache)")
    d.set_defaults(func=_cmd_doctor)

    pa = sub.add_parser("parity", help="lockstep comparison against ale-py")
    pa.add_argument("--games", nargs="+", default=["all"], help="'all' or game ids (spaces or commas between)")
    pa.add_argument("--frames", type=int, default=5000)
    pa.add_argument("--seed", type=int, nargs="+", default=[0], help="action seeds (several allowed)")
    pa.add_argument("--out", default="parity-out", help="folder for diff images and action traces")
    pa.add_argument("--frameskip", type=int, default=1)
    pa.add_argument("--sticky", type=float, default=0.0, help="repeat_action_probability for both engines")
    pa.add_argument("--all-modes", action="store_true", help="every mode/difficulty pair (shorter traces)")
    pa.add_argument("--excursions", type=int, default=0, metavar="N",
                    help="a planner's excursion (clone, random steps, restore) every ~N steps; 0: none")
    pa.add_argument("--jobs", type=int, default=1, help="games compared in parallel processes")
    pa.add_argument("--update-ledger", action="store_true", help="rewrite tests/parity_ledger.json")
    pa.set_defaults(func=_cmd_parity)

    b = sub.add_parser("bench", help="frames/s of our engine and ale-py side by side")
    b.add_argument("--games", nargs="+", default=None,
                   help="'all' (every game with ALE rules) or game ids (spaces or commas between)")
    b.add_argument("--frames", type=int, default=4000)
    b.add_argument("--frameskip", type=int, default=4)
    b.add_argument("--rounds", type=int, default=5,
                   help="runs per engine and game, taken in turns; the best of each side counts")
    b.add_argument("--app", action="store_true", help="the desktop app: frame rate, drops, underruns, startup")
    b.add_argument("--game", default="pong", help="(--app) the game to run")
    b.add_argument("--seconds", type=float, default=60.0, help="(--app) how long to run")
    b.add_argument("--no-cold", action="store_true", help="(--app) skip the cold-start measurement")
    b.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                   help="the results as JSON: printed, or (--pipelines) saved to FILE")
    b.add_argument("--pipelines", action="store_true",
                   help="steps/s of the Gymnasium paths (v5 RGB and grayscale, AtariPreprocessing, SB3, EnvPool)")
    b.add_argument("--steps", type=int, default=2000, help="(--pipelines) agent steps per timed run")
    b.add_argument("--vector-envs", type=int, default=-1,
                   help="batched comparison with N environments at ale-py AtariVectorEnv's defaults, 2 threads "
                        "(default 8, 0 = skip)")
    b.add_argument("--vector-steps", type=int, default=500)
    b.add_argument("--vector-games", nargs="+", default=None,
                   help="games of the batched comparison: 'all' or ids (default pong breakout seaquest); "
                        "with --frames 0 only the batched comparison runs")
    b.add_argument("--no-blocks", action="store_true",
                   help="time the interpreter alone (by default each game's compiled hot blocks are compiled first)")
    b.add_argument("--agents", action="store_true", help="UCT decision time vs ale-py, SARSA steps/s")
    b.add_argument("--threads", action="store_true",
                   help="the vector env on 1 and N threads, quiet and beside processes spinning on the CPU")
    b.add_argument("agent_args", nargs="*", help="(--agents) options for agents.bench, after `--`")
    b.set_defaults(func=_cmd_bench)

    for name, (_, _, what) in DELEGATED.items():
        sp = sub.add_parser(name, help=what, add_help=False)
        sp.add_argument("rest", nargs=argparse.REMAINDER)
        sp.set_defaults(func=_delegate(name))
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:  # the owning module parses its own options (incl. --help)
        return _delegate(argv[0])(argparse.Namespace(rest=argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "cmd", None):
        args = parser.parse_args(["play"] + argv)
    for option in ("games", "vector_games"):  # "--games pong,breakout" reads as "--games pong breakout"
        if getattr(args, option, None):
            setattr(args, option, [g for v in getattr(args, option) for g in v.split(",") if g])
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except RomError as e:  # an unknown game or an unreadable ROM: its message, not a traceback
        print(f"arcade-lab: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
