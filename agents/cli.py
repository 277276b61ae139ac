"""``arcade-lab run AGENT GAME``: play episodes with one agent and print per-episode scores."""
from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arcade-lab run", description="Run an agent on a game under the ALE 2013 protocol "
        "(5 frames per action, 18 000-frame episodes, no sticky actions, full action set).")
    p.add_argument("agent", help="random, const:A, perturb:A, sarsa:{basic,bass,disco,lsh,ram,blobprost}, uct, bfs, "
                   "brute")
    p.add_argument("game", help="game id (see `arcade-lab games`) or ROM path")
    p.add_argument("--episodes", type=int, default=1, help="evaluation episodes (default 1)")
    p.add_argument("--train", type=int, default=0, help="training episodes first (learners only)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=int, default=None,
                   help="UCT simulations per decision (paper 500) / BFS frames per decision (paper 133 000)")
    p.add_argument("--depth", type=int, default=None, help="UCT horizon in frames (paper 300)")
    p.add_argument("--workers", type=int, default=None,
                   help="UCT: search this many trees at once on their own threads (root-parallel; default 1, "
                        "the sequential algorithm)")
    p.add_argument("--frames-cap", type=int, default=18_000, help="frames per episode (0 = none)")
    p.add_argument("--frameskip", type=int, default=None,
                   help="frames each decision is held (default 5; random decides every frame, as ALE 2013's)")
    p.add_argument("--minimal-actions", action="store_true", help="the game's minimal action set")
    p.add_argument("--samples", type=int, default=18_000,
                   help="screens sampled for background detection (Basic/BASS/DISCO; paper 18 000)")
    p.add_argument("--save", metavar="W", help="save learned weights (npz) after the run")
    p.add_argument("--load", metavar="W", help="load weights (npz) before the run")
    p.add_argument("--store", nargs="?", const="", default=None, metavar="DB",
                   help="write the evaluation episodes to the score store (default: the user data folder)")
    p.add_argument("--no-thoughts", dest="thoughts", action="store_false",
                   help="with --store: do not keep the agent's per-decision thoughts (root visits and values, "
                        "or Q-values) that the app shows when it replays the episode")
    return p


def run_main(argv) -> int:
    args = _parser().parse_args(list(argv))
    from arcade_lab import engine
    from arcade_lab.engine.roms import RomError

    from .base import RunConfig, Runner
    from .registry import UnknownAgent, make_agent

    if args.frameskip is not None and args.frameskip < 1:
        print(f"arcade-lab run: --frameskip takes 1 or more frames, got {args.frameskip}", file=sys.stderr)
        return 2
    explicit_skip = args.frameskip is not None
    args.frameskip = 5 if args.frameskip is None else args.frameskip
    try:
        env = engine.Env(args.game, frameskip=args.frameskip, repeat_action_probability=0.0,
                         max_num_frames_per_episode=args.frames_cap, full_action_space=not args.minimal_actions,
                         seed=args.seed)
    except (RomError, ValueError, FileNotFoundError, KeyError) as e:
        print(f"arcade-lab run: unknown or unreadable game {args.game!r}: {e}", file=sys.stderr)
        return 2
    params = {}
    kind = args.agent.split(":")[0].lower()
    if args.workers is not None:
        if kind != "uct" or args.workers < 1:
            print("arcade-lab run: --workers takes a count of 1 or more and applies to uct only", file=sys.stderr)
            return 2
        params["workers"] = args.workers
    if args.depth is not None and kind != "uct":
        print("arcade-lab run: --depth is UCT's horizon and applies to uct only", file=sys.stderr)
        return 2
    if kind in ("uct", "bfs"):
        if args.budget is not None:
            params["budget"] = args.budget
        if args.depth is not None:
            params["depth"] = args.depth
    elif kind == "sarsa":
        params["n_samples"] = args.samples
    try:
        agent = make_agent(args.agent, env, seed=args.seed, **params)
    except UnknownAgent as e:
        print(f"arcade-lab run: {e}", file=sys.stderr)
        return 2
    if explicit_skip and getattr(agent, "frames_per_action", None):
        n = int(agent.frames_per_action)
        print(f"arcade-lab run: {agent.name} decides every {'frame' if n == 1 else f'{n} frames'} whatever "
              "--frameskip says (as ALE 2013's baseline does)", file=sys.stderr)
    if args.load:
        try:
            agent.load(args.load)
        except (OSError, ValueError, KeyError) as e:
            print(f"arcade-lab run: cannot load {args.load}: {e}", file=sys.stderr)
            return 2
    cfg = RunConfig(game=env.info.id, protocol="ale2013" if args.frameskip == 5 else "custom",
                    frameskip=args.frameskip, max_frames=args.frames_cap, full_action_space=not args.minimal_actions,
                    seed=args.seed, record_thoughts=args.store is not None and args.thoughts)
    runner = Runner(cfg, env)
    store = None
    if args.store is not None:
        from .evaluation.store import Store, StoreError

        try:
            store = Store(args.store or None)
        except StoreError as e:
            print(f"arcade-lab run: {e}", file=sys.stderr)
            return 2
    learner = hasattr(agent, "learning")
    if args.train and learner:
        agent.learning = True
        cfg.record_thoughts = False  # training episodes are not stored
        for i, rec in enumerate(runner.episodes(agent, args.train), 1):
            print(f"train {i:5d}  score {rec.score:10.1f}  frames {rec.frames:6d}  {rec.wall_time:7.2f}s", flush=True)
        cfg.record_thoughts = args.store is not None and args.thoughts
    if learner:
        agent.learning = False
    scores = []
    for i, rec in enumerate(runner.episodes(agent, args.episodes), 1):
        scores.append(rec.score)
        if store is not None:
            rec.notes = f"arcade-lab run {args.agent} {args.game}"
            store.add_episode(rec)
        print(f"episode {i:5d}  score {rec.score:10.1f}  frames {rec.frames:6d}  steps {rec.steps:6d}  "
              f"{rec.wall_time:7.2f}s  ({rec.ended_by})", flush=True)
    if scores:
        print(f"{agent.name} on {env.info.id}: mean {sum(scores) / len(scores):.2f} over {len(scores)} episodes")
    if store is not None:
        print(f"stored {len(scores)} episodes in {store.path}")
        store.close()
    if args.save:
        agent.save(args.save)
        print(f"saved {args.save}")
    return 0


def main() -> int:
    return run_main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
