"""``arcade-lab bench --agents``: UCT decision time (ours, compiled, vs a plain-Python UCT over ale-py's
cloneState/restoreState at the same budget) and SARSA(λ) steps per second per feature set.

The Python UCT is the same algorithm (expand all children with RAM-duplicate pruning, UCB1, random
rollouts to the horizon), written the obvious way; it is the yardstick, not a product.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np


def _parser():
    p = argparse.ArgumentParser(prog="arcade-lab bench --agents")
    p.add_argument("--game", default="boxing")
    p.add_argument("--sims", type=int, default=500, help="UCT simulations per decision (paper 500)")
    p.add_argument("--depth", type=int, default=300, help="UCT horizon in frames (paper 300)")
    p.add_argument("--decisions", type=int, default=3)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="also time root-parallel UCT with this many trees at once (default: all cores; 1: skip)")
    p.add_argument("--sarsa-steps", type=int, default=300)
    p.add_argument("--samples", type=int, default=300,
                   help="background screens for Basic/BASS/DISCO (Blob-PROST needs none)")
    p.add_argument("--no-ale", action="store_true", help="skip the ale-py comparison")
    p.add_argument("--no-sarsa", action="store_true")
    return p


def python_uct_decision(ale, acts, sims, depth_steps, c=0.1, gamma=0.999, rng=None):
    """One UCT decision over ale-py, plain Python; returns (action, frames emulated)."""
    rng = rng or np.random.default_rng(0)
    root_state = ale.cloneState()
    # node: [state, reward, visits, sum, children(list|None), terminal, depth]
    root = [root_state, 0.0, 0, 0.0, None, ale.game_over(), 0]
    frames = 0
    while root[2] < sims:
        node, path = root, [root]
        leaf = None
        while True:
            if node[5] or node[6] >= depth_steps:
                leaf = node
                break
            if node[4] is None:
                kids, rams = [], []
                for a in acts:
                    ale.restoreState(node[0])
                    r = ale.act(a)
                    frames += 5
                    ram = ale.getRAM().tobytes()
                    if ram in rams:
                        continue
                    rams.append(ram)
                    kids.append([ale.cloneState(), float(r), 0, 0.0, None, ale.game_over(), node[6] + 1, a])
                node[4] = kids
            unvisited = [k for k in node[4] if k[2] == 0]
            if unvisited:
                leaf = unvisited[0]
                path.append(leaf)
                break
            ln = math.log(max(1, node[2]))
            node = max(node[4], key=lambda k: k[3] / k[2] + c * math.sqrt(ln / k[2]))
            path.append(node)
        g = 0.0
        if not leaf[5] and leaf[6] < depth_steps:
            ale.restoreState(leaf[0])
            disc = 1.0
            for _ in range(depth_steps - leaf[6]):
                g += disc * ale.act(acts[rng.integers(len(acts))])
                frames += 5
                disc *= gamma
                if ale.game_over():
                    break
        ret = g if leaf is root else leaf[1] + gamma * g
        for i in range(len(path) - 1, -1, -1):
            path[i][2] += 1
            path[i][3] += ret
            if i > 0:
                ret = (path[i - 1][1] if i - 1 > 0 else 0.0) + gamma * ret
    ale.restoreState(root_state)
    best = max(root[4], key=lambda k: k[2])
    return best[7], frames


def _ale(game):
    import ale_py

    from arcade_lab.engine import roms

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("frame_skip", 5)
    ale.loadROM(str(roms.rom_path(game)))
    for _ in range(20):
        ale.act(0)
    return ale


def bench_uct(args):
    """Decisions alternate between the two implementations so both see the same machine load."""
    from arcade_lab import engine

    from .search import UCTAgent

    env = engine.Env(args.game, frameskip=5, repeat_action_probability=0.0, max_num_frames_per_episode=18_000,
                     full_action_space=True, seed=0)
    for _ in range(20):
        env.act(0)
    UCTAgent(env, seed=0, simulations=4, depth_frames=20).decide()  # compile outside the timing
    agent = UCTAgent(env, seed=0, simulations=args.sims, depth_frames=args.depth, reuse=False)
    par = None
    if args.workers > 1:
        par = UCTAgent(env, seed=0, simulations=args.sims, depth_frames=args.depth, reuse=False, workers=args.workers)
    ale = None
    if not args.no_ale:
        try:
            ale = _ale(args.game)
        except ImportError:
            print("ale-py not installed: no comparison")
    rng = np.random.default_rng(0)
    ours_t, ours_f, their_t, their_f, par_t = [], [], [], [], []
    for _ in range(args.decisions):
        if par is not None:  # the same state as the sequential search gets
            par.decide()
            par_t.append(par.last_time)
        a = agent.decide()
        ours_t.append(agent.last_time)
        ours_f.append(agent.last_frames)
        env.act(a)
        if ale is not None:
            t = time.perf_counter()
            b, f = python_uct_decision(ale, list(ale.getLegalActionSet()), args.sims, max(1, args.depth // 5),
                                       rng=rng)
            their_t.append(time.perf_counter() - t)
            their_f.append(f)
            ale.act(b)
    ours = float(np.median(ours_t))
    print(f"UCT {args.sims} sims x {args.depth} frames on {args.game} (18 actions, no reuse), median of "
          f"{args.decisions} decisions:")
    print(f"  ours (compiled, snapshots in a matrix): {ours:7.2f} s/decision, "
          f"{np.median(ours_f) / ours:8,.0f} emulated frames/s", flush=True)
    if par_t:
        print(f"  ours, root-parallel on {args.workers} threads: {float(np.median(par_t)):7.2f} s/decision")
    if their_t:
        theirs = float(np.median(their_t))
        print(f"  plain Python over ale-py clone/restore: {theirs:7.2f} s/decision, "
              f"{np.median(their_f) / theirs:8,.0f} emulated frames/s")
        print(f"  ratio ours/ale-py: {ours / theirs:.2f}x sequential"
              + (f", {float(np.median(par_t)) / theirs:.2f}x with {args.workers} workers" if par_t else "")
              + " (goal <= 0.2x sequential)")


def bench_sarsa(args):
    from arcade_lab import engine

    from .base import Observation
    from .registry import FEATURE_SETS
    from .sarsa import SarsaAgent

    print(f"SARSA(lambda) on {args.game}, {args.sarsa_steps} steps (feature extraction + update + env step):")
    for fs in FEATURE_SETS:
        env = engine.Env(args.game, frameskip=5, repeat_action_probability=0.0,
                         max_num_frames_per_episode=18_000, seed=0)
        t = time.perf_counter()
        agent = SarsaAgent.for_env(fs, env, seed=0, n_samples=args.samples)
        agent.actions = env.action_set()
        setup = time.perf_counter() - t

        def obs():
            return Observation(screen=env.screen(), ram=env.ram(), lives=env.lives(), frame=env.episode_frame_number)

        env.reset()
        a = agent.begin_episode(obs())
        for _ in range(20):  # compile and fill the traces before timing
            a = agent.step(env.act(a), obs())
        t = time.perf_counter()
        for _ in range(args.sarsa_steps):
            r = env.act(a)
            if env.game_over():
                agent.end_episode(r)
                env.reset()
                a = agent.begin_episode(obs())
            else:
                a = agent.step(r, obs())
        dt = time.perf_counter() - t
        used = getattr(agent.features, "n_used", None)  # Blob-PROST: n_features is its slot capacity
        slots = f", {used:,} slots used" if used is not None else ""
        print(f"  {fs:<9} {args.sarsa_steps / dt:8.0f} steps/s  ({agent.features.n_features:>9,} features, "
              f"{agent.max_active:6d} max active, set-up {setup:.1f}s{slots})", flush=True)


def main(argv=None) -> int:
    args = _parser().parse_args(list(argv or []))
    bench_uct(args)
    if not args.no_sarsa:
        bench_sarsa(args)
    return 0
