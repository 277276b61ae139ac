"""What a game's compiled hot blocks gain over the interpreter: ``python tools/blocks_gain.py GAME [GAME ...]``.

For each game it compiles (or loads) the blocks (``engine/blocks.py``), then steps two environments over the
same seeded random minimal-set actions at frame skip 4, one running the interpreter alone
(``ARCADE_LAB_BLOCKS=0`` when it is made) and one with the blocks; checks that rewards, RAM and screens stay
equal for 3 000 steps; and times both in interleaved rounds (best of three, 4 000 frames each). Prints the
compile time, the share of the counted instructions the blocks hold, and the two speeds.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from arcade_lab.engine import blocks
from arcade_lab.engine.env import Env
from arcade_lab.engine.layout import FN_BLOCKS


def _env(game: str, with_blocks: bool) -> Env:
    os.environ["ARCADE_LAB_BLOCKS"] = "1" if with_blocks else "0"
    try:
        return Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
    finally:
        del os.environ["ARCADE_LAB_BLOCKS"]


def gain(game: str) -> str:
    t = time.perf_counter()
    made = blocks.prepare(game)
    seconds = time.perf_counter() - t
    plain, fast = _env(game, False), _env(game, True)
    if not fast.console.s[FN_BLOCKS]:
        return f"{game:18s} {made}"
    actions = plain.action_set()
    plan = np.random.default_rng(5).integers(len(actions), size=3000)
    for i, a in enumerate(plan):
        if plain.act(actions[a]) != fast.act(actions[a]) or not np.array_equal(plain.ram(), fast.ram()) \
                or not np.array_equal(plain.screen(), fast.screen()):
            return f"{game:18s} DIFFERENT at step {i}"
        if plain.game_over():
            plain.reset()
            fast.reset()
    best = {}
    for _ in range(3):
        for name, e in (("plain", plain), ("blocks", fast)):
            t = time.perf_counter()
            for a in plan[:1000]:
                e.act(actions[a])
                if e.game_over():
                    e.reset()
            best[name] = max(best.get(name, 0.0), 4000 / (time.perf_counter() - t))
    return (f"{game:18s} {made} in {seconds:.1f} s; same for 3000 steps; interpreter {best['plain']:.0f} f/s, "
            f"with blocks {best['blocks']:.0f} f/s ({best['blocks'] / best['plain']:.2f}x)")


if __name__ == "__main__":
    for g in sys.argv[1:] or ["pong"]:
        print(gain(g), flush=True)
