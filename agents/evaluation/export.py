"""Session and episode exports: a self-contained JSON (re-verifiable with ``arcade-lab replay FILE``), a per-frame CSV
in the shape of Atari-HEAD's trial files, optional PNG frames — all produced by replaying the traces, so
an export never contains anything the recording does not prove."""
from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

from arcade_lab.agents.base import EpisodeRecord

from .replay import replay_episode

CSV_COLUMNS = ("frame", "episode", "score", "reward", "action", "lives", "paddle")


def episode_json(rec: EpisodeRecord) -> dict:
    d = rec.to_dict()
    d["id"] = getattr(rec, "id", None)
    d["verified"] = getattr(rec, "verified", None)
    d["actions"] = None if rec.actions is None else base64.b64encode(rec.actions.tobytes()).decode("ascii")
    d["paddles"] = None if rec.paddles is None else base64.b64encode(rec.paddles.tobytes()).decode("ascii")
    d["start_state"] = None if rec.start_state is None else base64.b64encode(rec.start_state).decode("ascii")
    d["thoughts"] = None if rec.thoughts is None else base64.b64encode(rec.thoughts).decode("ascii")
    return d


def session_json(store, session_id: int) -> dict:
    sess = store.session(session_id)
    if sess is None:
        raise ValueError(f"there is no session {session_id}")
    eps = store.episodes(session_id=session_id, full=True)
    scores = [e.score for e in eps]
    return {"format": "arcade-lab-session", "version": 1, "session": sess,
            "summary": {"episodes": len(eps), "mean": (sum(scores) / len(scores)) if scores else None,
                        "scores": scores},
            "episodes": [episode_json(e) for e in eps]}


def write_session(store, session_id: int, folder, *, csv_file: bool = True, png: bool = False) -> list[Path]:
    """``session-<id>.json`` (+ ``session-<id>.csv``, + ``session-<id>-frames/e<k>-<frame>.png``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    doc = session_json(store, session_id)
    out = [folder / f"session-{session_id}.json"]
    out[0].write_text(json.dumps(doc, indent=1), encoding="utf-8")
    if csv_file or png:
        eps = store.episodes(session_id=session_id, full=True)
        settings = doc["session"]["settings"]
        frames_dir = folder / f"session-{session_id}-frames"
        path = folder / f"session-{session_id}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            for k, rec in enumerate(eps, 1):
                write_episode_rows(w, rec, k, settings, frames_dir if png else None)
        if csv_file:
            out.append(path)
        else:
            path.unlink()
        if png:
            out.append(frames_dir)
    return out


def write_episode_rows(w, rec: EpisodeRecord, number: int, settings=None, png_dir: Path | None = None) -> None:
    if png_dir is not None:
        png_dir.mkdir(parents=True, exist_ok=True)
        from arcade_lab.engine.png import png_bytes

    def row(drv, env, action):
        i = drv.steps - 1
        pad = "" if rec.paddles is None else f"{float(rec.paddles[i]):g}"
        w.writerow((drv.frames, number, f"{drv.score:g}", drv.last_reward, action, env.lives(), pad))
        if png_dir is not None:
            (png_dir / f"e{number}-{drv.frames:06d}.png").write_bytes(png_bytes(env.screen_rgb()))

    replay_episode(rec, settings, on_step=row)


def write_episodes(store, episode_ids, folder, name: str, *, csv_file: bool = True) -> list[Path]:
    """Episodes outside a session's frame (an agent's): ``<name>.json`` in the session export's shape,
    re-verifiable with ``arcade-lab replay FILE`` (+ ``<name>.csv``, frame by frame, by replaying them)."""
    eps = [store.episode(i) for i in episode_ids]
    if not eps or any(e is None for e in eps):
        missing = [i for i, e in zip(episode_ids, eps) if e is None]
        raise ValueError(f"there is no episode {missing[0]}" if missing else "no episodes to export")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    scores = [e.score for e in eps]
    doc = {"format": "arcade-lab-episodes", "version": 1, "session": None,
           "summary": {"episodes": len(eps), "mean": sum(scores) / len(scores), "scores": scores},
           "episodes": [episode_json(e) for e in eps]}
    out = [folder / f"{name}.json"]
    out[0].write_text(json.dumps(doc, indent=1), encoding="utf-8")
    if csv_file:
        out.append(folder / f"{name}.csv")
        with open(out[1], "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            for k, rec in enumerate(eps, 1):
                write_episode_rows(w, rec, k, store.settings_of(rec))
    return out
