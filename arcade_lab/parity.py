"""Oracle harness: step our engine and ale-py's ALEInterface in lockstep and report the first difference.

Both start from ``loadROM`` with the same settings (frame skip, repeat_action_probability, seed) and are fed
the same seeded, uniformly random actions from the game's minimal set (paddle strength 1). Every step
compares screen (palette indices), RAM, reward, game over, lives and frame numbers. On a mismatch a
side-by-side diff PNG and the action trace are written.
"""
from __future__ import annotations

import json
import os
import struct
import sys
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

LEDGER = Path(__file__).resolve().parent.parent / "tests" / "parity_ledger.json"


@dataclass
class Result:
    game: str
    seed: int
    frames: int                 # steps compared and equal
    ok: bool
    first_diff: int | None = None
    what: list[str] = field(default_factory=list)
    detail: str = ""
    mode: int | None = None
    difficulty: int | None = None
    seconds: float = 0.0


def write_png(path: Path, rgb: np.ndarray) -> None:
    """Minimal PNG writer (8-bit RGB), so the engine needs no imaging library."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].astype(np.uint8).tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    path.write_bytes(png)


def _diff_image(ours: np.ndarray, theirs: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """ALE | ours | differences (red), each scaled 2x horizontally like the TV."""
    a = palette[theirs]
    b = palette[ours]
    d = np.zeros_like(a)
    mask = ours != theirs
    d[mask] = (255, 0, 0)
    d[~mask] = (a[~mask] // 4)
    gap = np.full((a.shape[0], 4, 3), 128, np.uint8)
    img = np.concatenate([a, gap, b, gap, d], axis=1)
    return np.repeat(img, 2, axis=1)


def _make_ale(rom: Path, seed: int, frameskip: int, sticky: float, mode, difficulty):
    import ale_py

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", int(seed))
    ale.setFloat("repeat_action_probability", float(sticky))
    ale.setInt("frame_skip", int(frameskip))
    ale.loadROM(str(rom))
    if mode is not None:
        ale.setMode(mode)
    if difficulty is not None:
        ale.setDifficulty(difficulty)
    return ale


def compare_game(game: str, frames: int, seed: int = 0, *, frameskip: int = 1, sticky: float = 0.0,
                 mode: int | None = None, difficulty: int | None = None, out: Path | None = None,
                 env_seed: int | None = None, excursions: int = 0) -> Result:
    """Lockstep ``frames`` steps of one game. With a mode/difficulty, both engines switch to it and reset.

    ``excursions=N`` makes, on average once every N steps, a planner's excursion in both engines: clone
    the state, play 1-8 random steps, restore (without the RNG, as ALE's ``cloneState`` does). Under
    sticky actions the excursion's last action stays the one the next sticky draw repeats, in ALE and
    in ours; the trace marks an excursion's steps between -2 and -3."""
    from .engine import roms
    from .engine.env import Env

    t0 = time.time()
    rom = roms.rom_path(game)
    env_seed = seed if env_seed is None else env_seed
    ale = _make_ale(rom, env_seed, frameskip, sticky, mode, difficulty)
    env = Env(game, frameskip=frameskip, repeat_action_probability=sticky, seed=env_seed, mode=mode,
              difficulty=difficulty)
    res = Result(game=game, seed=seed, frames=0, ok=True, mode=mode, difficulty=difficulty)
    if mode is not None or difficulty is not None:
        ale.reset_game()
        env.reset()
    ale_actions = list(ale.getMinimalActionSet())
    actions = [int(a.value) if hasattr(a, "value") else int(a) for a in ale_actions]
    rng = np.random.default_rng(seed)
    trace: list[int] = []

    def check(step: int, r_ale=0, r_env=0) -> bool:
        what = []
        detail = []
        sa, se = ale.getScreen(), env.screen()
        if sa.shape != se.shape:
            what.append("screen-shape")
            detail.append(f"screen {sa.shape} vs ours {se.shape}")
        elif not np.array_equal(sa, se):
            ys, xs = np.nonzero(sa != se)
            what.append("screen")
            detail.append(f"{len(ys)} px in rows {ys.min()}-{ys.max()}, cols {xs.min()}-{xs.max()}")
        ra, re_ = ale.getRAM(), env.ram()
        if not np.array_equal(ra, re_):
            idx = np.nonzero(ra != re_)[0]
            what.append("ram")
            detail.append("RAM " + ", ".join(f"${0x80 + i:02X}: {ra[i]:02X}/{re_[i]:02X}" for i in idx[:6]))
        if r_ale != r_env:
            what.append("reward")
            detail.append(f"reward {r_ale} vs ours {r_env}")
        if ale.game_over() != env.game_over():
            what.append("game_over")
            detail.append(f"game over {ale.game_over()} vs ours {env.game_over()}")
        if ale.lives() != env.lives():
            what.append("lives")
            detail.append(f"lives {ale.lives()} vs ours {env.lives()}")
        if ale.getEpisodeFrameNumber() != env.episode_frame_number or ale.getFrameNumber() != env.frame_number:
            what.append("frame_number")
            detail.append(f"frames {ale.getFrameNumber()}/{ale.getEpisodeFrameNumber()} vs ours "
                          f"{env.frame_number}/{env.episode_frame_number}")
        if what:
            res.ok = False
            res.first_diff = step
            res.what = what
            res.detail = "; ".join(detail)
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                stem = f"{game}-seed{seed}" + (f"-m{mode}" if mode is not None else "") + \
                       (f"-d{difficulty}" if difficulty is not None else "")
                if sa.shape == se.shape:
                    write_png(out / f"{stem}-step{step}.png", _diff_image(se, sa, env.console.palette()))
                (out / f"{stem}-actions.json").write_text(json.dumps(
                    {"game": game, "seed": seed, "frameskip": frameskip, "sticky": sticky, "mode": mode,
                     "difficulty": difficulty, "first_diff_step": step, "what": what, "detail": res.detail,
                     "actions": trace}))
            return False
        return True

    def excursion() -> None:
        a_state, e_state = ale.cloneState(), env.clone_state()
        trace.append(-2)
        for _ in range(int(rng.integers(1, 9))):
            k = int(rng.integers(len(actions)))
            trace.append(actions[k])
            ale.act(ale_actions[k])
            env.act(actions[k])
        ale.restoreState(a_state)
        env.restore_state(e_state)
        trace.append(-3)

    if check(0):
        for step in range(1, frames + 1):
            if excursions and rng.random() < 1.0 / excursions:
                excursion()
            k = int(rng.integers(len(actions)))
            trace.append(actions[k])
            r_ale = ale.act(ale_actions[k])
            r_env = env.act(actions[k])
            if not check(step, r_ale, r_env):
                break
            res.frames = step
            if ale.game_over():
                ale.reset_game()
                env.reset()
                trace.append(-1)  # marks a reset in the trace
                if not check(step):
                    break
    res.seconds = round(time.time() - t0, 2)
    return res


def _run_one(job):
    game, frames, seed, kw = job
    try:
        return compare_game(game, frames, seed, **kw)
    except Exception as e:  # a crash in one game is a result, not the end of the run
        return Result(game=game, seed=seed, frames=0, ok=False, what=["error"], detail=f"{type(e).__name__}: {e}",
                      mode=kw.get("mode"), difficulty=kw.get("difficulty"))


def load_ledger() -> dict:
    if LEDGER.exists():
        return json.loads(LEDGER.read_text())
    return {}


def main(args) -> int:
    from .engine import list_games
    from .engine.env import Env

    try:
        import ale_py  # noqa: F401
    except Exception as e:
        print(f"ale-py (the oracle) cannot be imported: {e}", file=sys.stderr)
        return 2
    all_games = list_games()
    games = all_games if args.games == ["all"] else args.games
    unknown = [g for g in games if g not in all_games]
    if unknown:
        print(f"unknown or unsupported game ids: {', '.join(unknown)}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else None
    jobs = []
    for g in games:
        for seed in args.seed:
            kw = dict(frameskip=args.frameskip, sticky=args.sticky, out=out,
                      excursions=args.excursions)
            if args.all_modes:
                env = Env(g, repeat_action_probability=0.0, seed=0)
                for m in env.available_modes():
                    for d in env.available_difficulties():
                        jobs.append((g, args.frames, seed, dict(kw, mode=m, difficulty=d)))
            else:
                jobs.append((g, args.frames, seed, kw))
    results: list[Result] = []
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as ex:
            for r in ex.map(_run_one, jobs):
                _print_row(r)
                results.append(r)
    else:
        for j in jobs:
            r = _run_one(j)
            _print_row(r)
            results.append(r)
    per_game: dict[str, bool] = {}
    for r in results:
        per_game[r.game] = per_game.get(r.game, True) and r.ok
    n_ok = sum(per_game.values())
    print(f"{n_ok}/{len(all_games) if args.games == ['all'] else len(per_game)} games frame-exact "
          f"({args.frames} steps, seeds {args.seed}, frameskip {args.frameskip}, sticky {args.sticky}"
          f"{', all modes/difficulties' if args.all_modes else ''}"
          f"{f', an excursion every ~{args.excursions} steps' if args.excursions else ''})")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps([asdict(r) for r in results], indent=1))
    if args.update_ledger:
        ledger = load_ledger()
        for g, ok in per_game.items():
            frames = min(r.frames for r in results if r.game == g)
            if ok:
                ledger[g] = max(frames, ledger.get(g, 0))
            else:
                ledger.pop(g, None)
        LEDGER.write_text(json.dumps(dict(sorted(ledger.items())), indent=1) + "\n")
        print(f"ledger updated: {len(ledger)} games in {LEDGER}")
    return 0 if n_ok == len(per_game) else 1


def _print_row(r: Result) -> None:
    tag = f"{r.game}" + (f" m{r.mode}" if r.mode is not None else "") + (f" d{r.difficulty}" if r.difficulty is not None else "")
    if r.ok:
        print(f"{tag:<28} seed {r.seed}: match ({r.frames} steps, {r.seconds}s)", flush=True)
    else:
        print(f"{tag:<28} seed {r.seed}: DIFFERS at step {r.first_diff} [{', '.join(r.what)}] {r.detail}", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
