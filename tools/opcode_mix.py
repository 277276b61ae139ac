"""Which 6502 opcodes games execute, for ``cpu_gen.MEASURED``: ``python tools/opcode_mix.py [GAME ...]``.

Each game (default: every game with ALE rules) plays 100 random steps at frame skip 4, then its next
FRAMES frames run with the loop stepped one instruction at a time from Python, counting the opcode at the
program counter before each (a wait loop ``_timer_wait`` skips counts once, as in the compiled loop).
Prints the opcodes most frequent first, each game weighted equally, with the share the first 64 (the
inlined cases) cover; ``--json FILE`` saves the per-game shares. Opcodes fetched outside the cartridge
(code run from RAM) are counted apart: no case order changes their cost.
"""
from __future__ import annotations

import argparse
import collections
import json

import numpy as np


def game_mix(game: str, frames: int) -> dict[int, float]:
    """Shares of the opcodes ``game`` executes over ``frames`` frames (key -1: code outside the cartridge)."""
    from arcade_lab.engine import machine
    from arcade_lab.engine.carts import S_FE
    from arcade_lab.engine.cpu import _top_page_byte
    from arcade_lab.engine.cpu_exec import execute
    from arcade_lab.engine.env import Env
    from arcade_lab.engine.layout import (ACC_OBJS, C_PAGE, C_SCHEME, CYC, DEFER_CLK, EX_FATAL, EX_STOP, EXEC, PC,
                                          T_CURLINE, T_FRAMES, T_FRAMESTART, T_GREYED, T_LASTUPD, T_LINESLAST,
                                          T_PARTIAL)

    env = Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
    actions = env.action_set()
    rng = np.random.default_rng(0)
    for _ in range(100):
        env.act(actions[rng.integers(len(actions))])
    c = env.console
    s, rom, fb = c.s, c.rom, c.fb

    def opcode(pc: int) -> int:
        if not pc & 0x1000:
            return -1
        if s[C_SCHEME] == S_FE:
            return int(rom[pc & 0x3FFF])
        base = s[C_PAGE + ((pc >> 6) & 63)]
        return int(rom[base + (pc & 63)]) if base >= 0 else max(-1, int(_top_page_byte(s, rom, pc)))

    counts: collections.Counter[int] = collections.Counter()
    for _ in range(frames):  # machine._run_frame_impl, one instruction per call
        if not s[T_PARTIAL]:
            machine._start_frame(s)
        s[T_PARTIAL] = 1
        s[DEFER_CLK] = -(1 << 40)
        while True:
            counts[opcode(int(s[PC]))] += 1
            execute(s, rom, fb, 1, False)
            if s[EXEC] & (EX_STOP | EX_FATAL):
                break
        if s[DEFER_CLK] > s[T_LASTUPD]:
            machine.update_frame(s, fb, s[DEFER_CLK], False)
        if s[ACC_OBJS]:
            machine.flush_coverage(s)
        s[T_CURLINE] = (s[CYC] * 3 - s[T_FRAMESTART]) // 228
        s[T_LINESLAST] = s[T_CURLINE]
        s[T_FRAMES] += 1
        s[T_GREYED] = 0
        s[T_PARTIAL] = 0
        if s[EXEC] & EX_FATAL:
            break
    total = sum(counts.values())
    return {op: n / total for op, n in counts.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", nargs="*")
    p.add_argument("--frames", type=int, default=10)
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args()
    if not args.games:
        from arcade_lab.engine.roms import list_games
        args.games = list_games()
    mixes = {g: game_mix(g, args.frames) for g in args.games}
    mean: collections.Counter[int] = collections.Counter()
    for mix in mixes.values():
        for op, share in mix.items():
            mean[op] += share / len(mixes)
    order = [op for op, _ in mean.most_common() if op >= 0]
    print(f"{len(order)} opcodes over {len(mixes)} games; outside the cartridge {100 * mean[-1]:.2f} %; "
          f"the first 64 cover {100 * sum(mean[op] for op in order[:64]):.2f} %")
    print(", ".join(f"0x{op:02X}" for op in order))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({g: {str(op): v for op, v in mix.items()} for g, mix in mixes.items()}, f, indent=1)


if __name__ == "__main__":
    main()
