"""Re-verify recorded scores by deterministic replay: ``arcade-lab replay TARGET [--verify]``.

TARGET is an episode id, ``session:ID`` (every finished episode of a session) or an exported session JSON
file (see :mod:`agents.evaluation.export`). Each episode is re-played headless from its start state (which
carries the env RNG) with its own settings and action trace, through the same
:class:`~agents.evaluation.presets.EpisodeDriver` that recorded it; score, frames, decisions and lives
lost must match exactly and the episode must end exactly where the trace ends. ``--verify`` also writes
the verdict into the store. Exit status: 0 all confirmed, 1 any mismatch, 2 bad input.
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from arcade_lab.agents.base import EpisodeRecord
from arcade_lab.engine.console import State, StateError
from arcade_lab.engine.env import Env, sticky_threshold
from arcade_lab.engine.layout import E_MAXFRAMES, E_STICKY_THRESH

from .presets import PRESETS, EpisodeDriver, Preset, preset_from_settings


@dataclass
class Verdict:
    ok: bool
    score: float = 0.0
    frames: int = 0
    steps: int = 0
    lives_lost: int = 0
    problems: list[str] = field(default_factory=list)


def preset_of(rec: EpisodeRecord, settings: dict | None = None) -> Preset:
    """The settings that drive a replay come from the record itself (not from today's preset table)."""
    base = preset_from_settings(settings) if settings else PRESETS.get(rec.protocol, PRESETS["free"])
    from dataclasses import replace

    return replace(base, key=rec.protocol, frameskip=int(rec.frameskip),
                   repeat_action_probability=float(rec.repeat_action_probability),
                   max_frames=int(rec.max_frames), horizon=int((rec.extra or {}).get("horizon", base.horizon)))


def env_for(rec: EpisodeRecord, preset: Preset) -> Env:
    from arcade_lab.engine import roms

    env = Env(rec.game, mode=None, frameskip=preset.frameskip,
              repeat_action_probability=preset.repeat_action_probability,
              max_num_frames_per_episode=preset.max_frames, seed=rec.seed)
    if env.info.md5 != rec.md5:  # the id names another dump: find the recorded cartridge by md5
        env = Env(roms.find(rec.md5).path, frameskip=preset.frameskip,
                  repeat_action_probability=preset.repeat_action_probability,
                  max_num_frames_per_episode=preset.max_frames, seed=rec.seed)
    return env


def replay_episode(rec: EpisodeRecord, settings: dict | None = None, on_step=None) -> Verdict:
    """Replay one episode; ``on_step(driver, env, action)`` after every decision (exports, the app)."""
    problems: list[str] = []
    if rec.actions is None or rec.start_state is None:
        return Verdict(False, problems=["the episode has no action trace or start state"])
    try:
        state = State.from_bytes(rec.start_state)
    except StateError as e:
        return Verdict(False, problems=[f"start state unusable: {e}"])
    if state.rng is None:
        return Verdict(False, problems=["start state lacks the environment RNG"])
    preset = preset_of(rec, settings)
    try:
        env = env_for(rec, preset)
        env.restore_state(state, whole=True)
    except Exception as e:  # a missing ROM, another ROM's state
        return Verdict(False, problems=[f"cannot set up the replay: {e}"])
    s = env.console.s
    # the start state carries its own env settings: they must be the ones the record claims
    if (env.frames_per_act != max(1, preset.frameskip)
            or int(s[E_STICKY_THRESH]) != sticky_threshold(preset.repeat_action_probability)
            or int(s[E_MAXFRAMES]) != preset.max_frames):
        problems.append("start state settings (frame skip, sticky actions, frame cap) differ from the record's")
    if env.episode_frame_number != 0 and not (rec.extra or {}).get("branched"):
        problems.append("start state is not at the start of an episode")
    if env.mode != rec.mode or env.difficulty != rec.difficulty:
        problems.append(f"start state is mode {env.mode}/difficulty {env.difficulty}, "
                        f"record says {rec.mode}/{rec.difficulty}")
    drv = EpisodeDriver(env, preset)
    drv.begin()
    acts = np.asarray(rec.actions, dtype=np.int64)
    pads = None if rec.paddles is None else np.asarray(rec.paddles, dtype=np.float32)
    if pads is not None and len(pads) != len(acts):
        problems.append("paddle trace and action trace differ in length")
        pads = None
    for i, a in enumerate(acts):
        if drv.done:
            problems.append(f"the game ended after {i} decisions but the trace has {len(acts)}")
            break
        if not 0 <= a < 18:
            problems.append(f"decision {i}: {a} is not an ALE action")
            break
        drv.step(int(a), float(pads[i]) if pads is not None else 1.0)
        if on_step is not None:
            on_step(drv, env, int(a))
    if rec.ended_by in ("game_over", "truncated") and not drv.done:
        problems.append(f"the trace ends but the episode did not ({rec.ended_by} recorded)")
    for name, got, want in (("score", drv.score, rec.score), ("frames", drv.frames, rec.frames),
                            ("decisions", drv.steps, rec.steps), ("lives lost", drv.lives_lost, rec.lives_lost)):
        if float(got) != float(want):
            problems.append(f"{name}: replay {got:g}, recorded {want:g}")
    return Verdict(not problems, drv.score, drv.frames, drv.steps, drv.lives_lost, problems)


# -- where episodes come from ---------------------------------------------------------------------------
def record_from_json(d: dict) -> EpisodeRecord:
    from dataclasses import fields

    names = {f.name for f in fields(EpisodeRecord)}
    kw = {k: v for k, v in d.items() if k in names}
    kw["actions"] = np.frombuffer(base64.b64decode(d["actions"]), dtype=np.uint8).copy() if d.get("actions") else None
    kw["paddles"] = (np.frombuffer(base64.b64decode(d["paddles"]), dtype=np.float32).copy()
                     if d.get("paddles") else None)
    kw["start_state"] = base64.b64decode(d["start_state"]) if d.get("start_state") else None
    kw["thoughts"] = base64.b64decode(d["thoughts"]) if isinstance(d.get("thoughts"), str) else None
    rec = EpisodeRecord(**kw)
    rec.id = d.get("id")
    return rec


def load_target(target: str, store=None) -> tuple[list[EpisodeRecord], dict | None, bool]:
    """(episodes, session settings, from_store) for a command-line target; ValueError when unusable."""
    p = Path(target)
    if target.lower().endswith(".json") or (p.exists() and not target.isdigit()):
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
            eps = [record_from_json(e) for e in doc["episodes"]]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{target}: not a readable Arcade Lab session export ({e})") from e
        return eps, (doc.get("session") or {}).get("settings"), False
    if store is None:
        raise ValueError("no store")
    if target.startswith("session:"):
        try:
            sid = int(target.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"{target}: expected session:<number>") from None
        sess = store.session(sid)
        if sess is None:
            raise ValueError(f"there is no session {sid}")
        return store.episodes(session_id=sid, full=True), sess["settings"], True
    try:
        eid = int(target)
    except ValueError:
        raise ValueError(f"{target}: expected an episode id, session:<id> or a .json export") from None
    rec = store.episode(eid)
    if rec is None:
        raise ValueError(f"there is no episode {eid}")
    return [rec], store.settings_of(rec), True


def replay_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="arcade-lab replay",
                                 description="Replay recorded episodes headless and confirm their scores.")
    ap.add_argument("target", help="episode id, session:ID, or an exported session .json")
    ap.add_argument("--verify", action="store_true", help="record the verdict (✔/✘) in the store")
    ap.add_argument("--db", default=None, help="store path (default: $ARCADE_LAB_DATA or the user data folder)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    from .store import Store, StoreError

    store = None
    is_file = args.target.lower().endswith(".json")
    try:
        if not is_file or args.verify:
            store = Store(args.db)
        eps, settings, from_store = load_target(args.target, store)
    except (ValueError, StoreError) as e:
        print(f"arcade-lab replay: {e}", file=sys.stderr)
        return 2
    if not eps:
        print("arcade-lab replay: nothing to replay (no finished episodes)", file=sys.stderr)
        return 2
    bad = 0
    out = []
    for rec in eps:
        v = replay_episode(rec, settings)
        bad += not v.ok
        if args.verify and from_store and store is not None and getattr(rec, "id", None) is not None:
            store.set_verified(rec.id, v.ok)
        out.append({"episode": getattr(rec, "id", None), "game": rec.game, "player": rec.player,
                    "score": rec.score, "replayed_score": v.score, "frames": rec.frames, "ok": v.ok,
                    "problems": v.problems})
        if not args.json:
            mark = "✔ verified" if v.ok else "✘ MISMATCH"
            print(f"episode {getattr(rec, 'id', '?')}: {rec.game} {rec.player} {rec.protocol} score {rec.score:g} "
                  f"(replay {v.score:g}), {rec.frames} frames (replay {v.frames}) {mark}")
            for pr in v.problems:
                print(f"    {pr}")
    if args.json:
        print(json.dumps(out, indent=1))
    elif len(eps) > 1:
        print(f"{len(eps) - bad}/{len(eps)} episodes confirmed")
    return 1 if bad else 0
