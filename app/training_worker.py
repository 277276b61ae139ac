"""The SARSA(λ) training process (Qt-free: it runs in a spawned child, away from the GUI).

The child builds the paper's agent for the game, plays learning episodes under the ALE 2013 protocol
(frame skip 5, no sticky actions, an episode frame cap) and streams one message per event to the GUI:

    ("status", text)                      # what it is doing (sampling the background takes a while)
    ("episode", n, score, frames)         # one learning episode finished
    ("saved", path)                       # weights written (on request, and always when stopping)
    ("error", text)
    ("stopped", episodes)

It stops between episodes when ``stop`` is set, saving its weights first, so "resume" is a new process
that loads them.
"""
from __future__ import annotations

import traceback


def train_main(cfg: dict, q, stop, save) -> None:
    try:
        _train(cfg, q, stop, save)
    except BaseException as e:  # tell the GUI why, rather than dying silently
        q.put(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"))
        q.put(("stopped", 0))


def _train(cfg: dict, q, stop, save) -> None:
    from arcade_lab import engine
    from arcade_lab.agents.base import RunConfig, Runner
    from arcade_lab.agents.registry import make_agent

    fpa = int(cfg.get("frameskip", 5))
    env = engine.Env(cfg["game"], frameskip=fpa, repeat_action_probability=0.0,
                     max_num_frames_per_episode=int(cfg.get("max_frames", 18_000)), seed=int(cfg.get("seed", 0)))
    weights_in = cfg.get("weights_in")
    q.put(("status", "sampling screens for the background…" if not weights_in else "loading weights…"))
    params = dict(cfg.get("params", {}))
    n_samples = int(cfg.get("n_samples", 18_000))
    if weights_in:
        n_samples = min(n_samples, 200)  # the weights file brings its background
    agent = make_agent(f"sarsa:{cfg['features']}", env, int(cfg.get("seed", 0)), n_samples=n_samples, **params)
    agent.actions = env.action_set()
    if weights_in:
        agent.load(weights_in)
    runner = Runner(RunConfig(game=env.info.id, protocol="ale2013", frameskip=fpa,
                              max_frames=int(cfg.get("max_frames", 18_000)), seed=int(cfg.get("seed", 0)),
                              record_actions=False, record_start_state=False), env)
    out = cfg["weights_out"]
    n = int(cfg.get("first_episode", 0))
    q.put(("status", "training"))
    import multiprocessing as mp

    parent = mp.parent_process()
    # a GUI that crashed cannot stop us: end with it rather than train on as an orphan
    while not stop.is_set() and (parent is None or parent.is_alive()):
        rec = runner.run_episode(agent)
        n += 1
        q.put(("episode", n, float(rec.score), int(rec.frames)))
        if save.is_set():
            save.clear()
            agent.save(out)
            q.put(("saved", out))
    agent.save(out)
    q.put(("saved", out))
    q.put(("stopped", n))
