"""``arcade-lab atari-bench``: run AtariBench for one model and store the episodes."""
from __future__ import annotations

import argparse
import json
import sys

from .clients import ENV_ENDPOINT, ENV_MODEL, OpenAIChatClient, RandomClient
from .games import GAME_IDS, resolve
from .harness import BenchConfig, default_run_name, run_bench, scores_table
from .prompt import MEMORY_MODES, STRUCTURED


def parse_seeds(text: str) -> list[int]:
    """"0-9", "0,3,5", "0-4,7" -> seeds; ValueError with the offending piece otherwise."""
    out: list[int] = []
    for piece in text.split(","):
        piece = piece.strip()
        try:
            if "-" in piece[1:]:
                a, b = piece.split("-", 1)
                lo, hi = int(a), int(b)
                if hi < lo:
                    raise ValueError
                out += range(lo, hi + 1)
            else:
                out.append(int(piece))
        except ValueError:
            raise ValueError(f"bad seed range {piece!r} (want e.g. 0-9 or 0,3,5)") from None
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arcade-lab atari-bench",
                                description="AtariBench: a vision-language model plays 20 Atari games through an "
                                            "OpenAI-compatible chat-completions endpoint.")
    p.add_argument("--model", help=f"model name (or ${ENV_MODEL}); 'random' plays the random baseline offline")
    p.add_argument("--endpoint", help=f"base URL, e.g. http://localhost:8000/v1 (or ${ENV_ENDPOINT})")
    p.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    p.add_argument("--games", default="all", help="comma-separated game ids or titles, or 'all' (the 20)")
    p.add_argument("--seeds", default="0-9", help="seeds, e.g. 0-9 or 0,3,5")
    p.add_argument("--horizon-seconds", type=float, default=30.0)
    p.add_argument("--memory", choices=MEMORY_MODES, default=STRUCTURED)
    p.add_argument("--history", type=int, default=3, help="K: recent-history clips (structured_history)")
    p.add_argument("--reward-history", type=int, default=3, help="R: reward/life-loss clips (structured_history)")
    p.add_argument("--max-actions", type=int, default=10)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per model request")
    p.add_argument("--retries", type=int, default=2)
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--max-tokens", type=int, default=1024)
    p.add_argument("--keep-prompts", choices=("all", "first", "none"), default="first")
    p.add_argument("--db", help="episode store (default: the user data folder's store)")
    p.add_argument("--no-store", action="store_true", help="do not write to the store")
    p.add_argument("--run-name", help="store run name (same name = resume)")
    p.add_argument("--json", help="also write the records (without start states) as JSON lines to this file")
    return p


def atari_bench_main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        games = list(GAME_IDS) if args.games.strip().lower() == "all" else [resolve(g) for g in args.games.split(",") if g.strip()]
        seeds = parse_seeds(args.seeds)
        cfg = BenchConfig(horizon_seconds=args.horizon_seconds, memory=args.memory, k_recent=args.history,
                          k_reward=args.reward_history, max_actions=args.max_actions, keep_prompts=args.keep_prompts)
        if args.model == "random":
            client = RandomClient(seed=0, max_len=1)
        else:
            client = OpenAIChatClient(args.endpoint, args.model, args.api_key, timeout=args.timeout,
                                      retries=args.retries, temperature=args.temperature, max_tokens=args.max_tokens)
    except ValueError as e:
        print(f"atari-bench: {e}", file=sys.stderr)
        return 2
    store = None
    if not args.no_store:
        from arcade_lab.agents.evaluation.store import Store

        store = Store(args.db)
    run_name = args.run_name or default_run_name(client, cfg)
    out = open(args.json, "a") if args.json else None
    print(f"AtariBench: model {client.name}, {len(games)} games x {len(seeds)} seeds, {cfg.horizon_seconds:g} s, "
          f"{cfg.memory}" + (f", run {run_name!r}" if store else ""), file=sys.stderr)

    def progress(rec):
        ab = rec.extra.get("atari_bench", {})
        print(f"{rec.game:<16} seed {rec.seed}: score {rec.score:g}  turns {ab.get('turns')}  "
              f"invalid {ab.get('invalid_replies')}  {rec.ended_by}{'  ' + rec.notes if rec.notes else ''}",
              file=sys.stderr, flush=True)
        if out is not None:
            d = rec.to_dict()
            out.write(json.dumps(d, default=str) + "\n")
            out.flush()

    try:
        records = run_bench(client, games, seeds, cfg, store=store, run_name=run_name, progress=progress)
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    finally:
        if out is not None:
            out.close()
        if store is not None:
            store.close()
    table = scores_table(records)
    for game, players in table.items():
        for player, by_seed in players.items():
            v = list(by_seed.values())
            mean = sum(v) / len(v)
            print(f"{game:<16} {player:<30} mean {mean:9.2f} over {len(v)} seeds")
    failed = sum(r.ended_by == "failed" for r in records)
    return 1 if failed else 0
