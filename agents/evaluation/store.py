"""The one SQLite store of episodes — human sessions and agent runs alike.

Design (architecture.md, "Store"): one database in the user data folder, WAL journal, one transaction per
finished episode, schema version in ``PRAGMA user_version`` with forward migrations. An episode being
played is written as a ``recording`` row when it starts (with its start state) and completed in one
transaction when it ends; a process killed in between leaves that one row, which :meth:`Store.recover`
marks ``abandoned`` on the next start — earlier episodes are never touched.

Action traces are stored as raw ``uint8`` bytes (one ALE action id per decision), paddle traces as
``float32`` bytes, start states as :meth:`engine.State.to_bytes` blobs, so any score can be re-verified by
deterministic replay. An agent's per-decision thoughts (:mod:`agents.thought_log`) are one more blob,
read only when an episode is loaded in full (the app's replay shows them).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import fields
from pathlib import Path
from typing import Iterable

import numpy as np

from arcade_lab.agents.base import EpisodeRecord
from arcade_lab.engine.folders import data_folder

SCHEMA_VERSION = 2
DB_NAME = "arcade-lab.sqlite3"

_SCHEMA_V1 = """
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,          -- "human:<name>" or "agent:<name>"
    kind TEXT NOT NULL,                 -- human | agent | mixed
    notes TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    md5 TEXT NOT NULL,
    protocol TEXT NOT NULL,
    mode INTEGER NOT NULL,
    difficulty INTEGER NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',  -- JSON: the preset's frameskip, sticky, caps, locks
    status TEXT NOT NULL DEFAULT 'open',  -- open | finished
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    protocol TEXT NOT NULL,
    spec TEXT NOT NULL DEFAULT '{}',      -- JSON: agents, games, trials, seeds, episodes ...
    status TEXT NOT NULL DEFAULT 'running',
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE tasks (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    status TEXT NOT NULL,                 -- done | failed
    error TEXT NOT NULL DEFAULT '',
    finished_at REAL NOT NULL,
    PRIMARY KEY (run_id, key)
);
CREATE TABLE episodes (
    id INTEGER PRIMARY KEY,
    session_id INTEGER REFERENCES sessions(id),
    run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    task_key TEXT,
    status TEXT NOT NULL,                 -- recording | finished | abandoned
    verified INTEGER,                     -- NULL: not checked, 1: replay confirmed, 0: replay disagreed
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    md5 TEXT NOT NULL,
    mode INTEGER NOT NULL,
    difficulty INTEGER NOT NULL,
    protocol TEXT NOT NULL,
    seed INTEGER NOT NULL,
    score REAL NOT NULL,
    frames INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    lives_lost INTEGER NOT NULL,
    wall_time REAL NOT NULL,
    ended_by TEXT NOT NULL,
    frameskip INTEGER NOT NULL,
    repeat_action_probability REAL NOT NULL,
    max_frames INTEGER NOT NULL,
    engine_version TEXT NOT NULL,
    created_at REAL NOT NULL,
    notes TEXT NOT NULL DEFAULT '',
    controllers TEXT NOT NULL DEFAULT '', -- JSON segments [[first_step, "human:x"|"agent:y"], ...] when mixed
    extra TEXT NOT NULL DEFAULT '{}',
    actions BLOB,
    paddles BLOB,
    start_state BLOB
);
CREATE INDEX episodes_by_game ON episodes (game, protocol, player);
CREATE INDEX episodes_by_session ON episodes (session_id);
CREATE INDEX episodes_by_run ON episodes (run_id, task_key);
"""

# v2: agents' per-decision thoughts (a ThoughtLog blob); older rows have none
_V1_TO_V2 = "ALTER TABLE episodes ADD COLUMN thoughts BLOB"

# Each entry takes the schema from version i to i + 1 (index 0: empty database → v1).
MIGRATIONS: list[str] = [_SCHEMA_V1, _V1_TO_V2]
_BLOBS = ("actions", "paddles", "start_state", "thoughts")

_RECORD_FIELDS = [f.name for f in fields(EpisodeRecord)]
_SCALAR_FIELDS = [n for n in _RECORD_FIELDS if n not in _BLOBS + ("extra",)]


class StoreError(RuntimeError):
    """The database cannot be used (corrupt, from a newer Arcade Lab, not writable). Nothing is changed."""


def default_path() -> Path:
    """``$ARCADE_LAB_DATA/arcade-lab.sqlite3`` when set (tests, portable installs), else the user data folder."""
    return data_folder() / DB_NAME


def _blob(a, dtype) -> bytes | None:
    return None if a is None else np.ascontiguousarray(a, dtype=dtype).tobytes()


class Store:
    """Thread-safe (one connection, a lock) access to the episode database."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False,
                                       isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA busy_timeout = 30000")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open the score database {self.path}: {e}. The file was left as it is; "
                             "move it away to start a new one.") from e
        except OSError as e:
            raise StoreError(f"cannot create the score database {self.path}: {e}") from e

    # -- plumbing -------------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer Arcade Lab (schema {version}, this one "
                                 f"knows {SCHEMA_VERSION}); update Arcade Lab to use it")
            if version == 0:
                # an empty file, or someone else's SQLite database?
                tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise StoreError(f"{self.path} is an SQLite database but not an Arcade Lab store")
            for v in range(version, SCHEMA_VERSION):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in MIGRATIONS[v].split(";\n"):
                        if stmt.strip():
                            self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version = {v + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    def _tx(self):
        return _Transaction(self)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def check(self) -> list[str]:
        """SQLite's integrity check: an empty list when the database is sound."""
        with self._lock:
            rows = [r[0] for r in self._db.execute("PRAGMA integrity_check")]
        return [] if rows == ["ok"] else rows

    # -- players --------------------------------------------------------------------------------------
    def player(self, name: str, kind: str | None = None, notes: str | None = None) -> int:
        """Id of player ``name`` ("human:ann", "agent:uct"), created on first use."""
        kind = kind or name.split(":", 1)[0] if ":" in name else (kind or "human")
        with self._tx() as db:
            row = db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
            if row:
                if notes is not None:
                    db.execute("UPDATE players SET notes = ? WHERE id = ?", (notes, row[0]))
                return int(row[0])
            cur = db.execute("INSERT INTO players (name, kind, notes, created_at) VALUES (?, ?, ?, ?)",
                             (name, kind, notes or "", time.time()))
            return int(cur.lastrowid)

    def players(self, kind: str | None = None) -> list[dict]:
        q, args = "SELECT * FROM players", ()
        if kind:
            q, args = q + " WHERE kind = ?", (kind,)
        with self._lock:
            return [dict(r) for r in self._db.execute(q + " ORDER BY name", args)]

    # -- human sessions -------------------------------------------------------------------------------
    def new_session(self, player: str, game: str, md5: str, protocol: str, mode: int, difficulty: int,
                    settings: dict | None = None) -> int:
        self.player(player)
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO sessions (player, game, md5, protocol, mode, difficulty, settings, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (player, game, md5, protocol, int(mode), int(difficulty), json.dumps(settings or {}), time.time()))
            return int(cur.lastrowid)

    def finish_session(self, session_id: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE sessions SET status = 'finished', finished_at = ? WHERE id = ?",
                       (time.time(), session_id))

    def session(self, session_id: int) -> dict | None:
        with self._lock:
            r = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if r is None:
            return None
        d = dict(r)
        d["settings"] = json.loads(d["settings"] or "{}")
        return d

    def settings_of(self, rec) -> dict | None:
        """The settings of the session an episode was played in (None outside a session)."""
        sess = self.session(rec.session_id) if rec.session_id is not None else None
        return sess["settings"] if sess else None

    def sessions(self, game: str | None = None, player: str | None = None) -> list[dict]:
        q, args = "SELECT * FROM sessions WHERE 1", []
        if game:
            q += " AND game = ?"
            args.append(game)
        if player:
            q += " AND player = ?"
            args.append(player)
        with self._lock:
            rows = [dict(r) for r in self._db.execute(q + " ORDER BY id", args)]
        for d in rows:
            d["settings"] = json.loads(d["settings"] or "{}")
        return rows

    # -- episodes -------------------------------------------------------------------------------------
    def _row(self, rec: EpisodeRecord, status: str, session_id, run_id, task_key) -> dict:
        row = {n: getattr(rec, n) for n in _SCALAR_FIELDS}
        row.update(status=status, session_id=session_id, run_id=run_id, task_key=task_key,
                   actions=_blob(rec.actions, np.uint8), paddles=_blob(rec.paddles, np.float32),
                   start_state=rec.start_state, thoughts=rec.thoughts, extra=json.dumps(rec.extra or {}))
        if not isinstance(row["controllers"], str):
            row["controllers"] = json.dumps(row["controllers"])
        row["score"] = float(row["score"])
        return row

    def start_episode(self, rec: EpisodeRecord, session_id: int | None = None) -> int:
        """Write the row of an episode that is starting (status ``recording``): its start state is safe."""
        row = self._row(rec, "recording", session_id, None, None)
        with self._tx() as db:
            return int(db.execute(_insert(row), row).lastrowid)

    def finish_episode(self, episode_id: int, rec: EpisodeRecord) -> None:
        """Complete a ``recording`` row in one transaction."""
        row = self._row(rec, "finished", None, None, None)
        for k in ("session_id", "run_id", "task_key"):
            row.pop(k)
        sets = ", ".join(f"{k} = :{k}" for k in row)
        row["id"] = episode_id
        with self._tx() as db:
            n = db.execute(f"UPDATE episodes SET {sets} WHERE id = :id AND status = 'recording'", row).rowcount
            if n != 1:
                raise StoreError(f"episode {episode_id} is not being recorded")

    def add_episode(self, rec: EpisodeRecord, session_id: int | None = None, run_id: int | None = None,
                    task_key: str | None = None, status: str = "finished") -> int:
        """Store an episode in one transaction; its id. ``status="abandoned"``: one cut short (an agent
        detached mid-episode, ``ended_by="detached"``), kept for the record and never counted."""
        if status not in ("finished", "abandoned"):
            raise ValueError(f"an episode is added finished or abandoned, not {status!r}")
        self.player(rec.player)
        row = self._row(rec, status, session_id, run_id, task_key)
        with self._tx() as db:
            return int(db.execute(_insert(row), row).lastrowid)

    def recover(self) -> list[int]:
        """Mark episodes left ``recording`` by a process that died as ``abandoned``; their ids.
        Call once at start-up, before anything records (the app does)."""
        with self._tx() as db:
            ids = [r[0] for r in db.execute("SELECT id FROM episodes WHERE status = 'recording'")]
            db.execute("UPDATE episodes SET status = 'abandoned', ended_by = 'aborted' WHERE status = 'recording'")
        return ids

    def abandon_episode(self, episode_id: int) -> None:
        """A ``recording`` row the player walked away from (session ended mid-episode): kept for the record,
        never counted — the same mark :meth:`recover` gives a row left by a crash."""
        with self._tx() as db:
            db.execute("UPDATE episodes SET status = 'abandoned', ended_by = 'aborted' "
                       "WHERE id = ? AND status = 'recording'", (episode_id,))

    def set_verified(self, episode_id: int, ok: bool) -> None:
        with self._tx() as db:
            db.execute("UPDATE episodes SET verified = ? WHERE id = ?", (1 if ok else 0, episode_id))

    def delete_episode(self, episode_id: int) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))

    def episode(self, episode_id: int) -> EpisodeRecord | None:
        """One episode with its traces and start state (``rec.id``, ``rec.status``, ``rec.verified`` set)."""
        with self._lock:
            r = self._db.execute("SELECT * FROM episodes WHERE id = ?", (episode_id,)).fetchone()
        return None if r is None else _record(r, full=True)

    def episodes(self, *, game: str | None = None, player: str | None = None, protocol: str | None = None,
                 session_id: int | None = None, run_id: int | None = None, status: str | None = "finished",
                 since_id: int = 0, full: bool = False) -> list[EpisodeRecord]:
        """Episodes matching every given filter, oldest first. ``full`` loads traces and start states."""
        cols = "*" if full else ", ".join(c for c in _COLUMNS if c not in _BLOBS)
        q, args = f"SELECT {cols} FROM episodes WHERE id > ?", [since_id]
        for col, v in (("game", game), ("player", player), ("protocol", protocol), ("session_id", session_id),
                       ("run_id", run_id), ("status", status)):
            if v is not None:
                q += f" AND {col} = ?"
                args.append(v)
        with self._lock:
            rows = self._db.execute(q + " ORDER BY id", args).fetchall()
        return [_record(r, full=full) for r in rows]

    def agent_episodes(self, limit: int = 500) -> list[dict]:
        """The newest finished episodes an agent played outside human sessions (``arcade-lab run --store``,
        ``eval``, the app's Agents dock) that can be replayed: id, player, game, protocol, score, frames,
        steps, created_at, verified, run name, whether a human took over (``mixed``) and whether the
        agent's thoughts were kept (``thoughts``)."""
        q = ("SELECT e.id, e.player, e.game, e.protocol, e.score, e.frames, e.steps, e.created_at, e.verified, "
             "e.ended_by, e.controllers != '' AS mixed, e.thoughts IS NOT NULL AS thoughts, r.name AS run "
             "FROM episodes e LEFT JOIN runs r ON r.id = e.run_id "
             "WHERE e.session_id IS NULL AND e.player LIKE 'agent:%' AND e.status = 'finished' "
             "AND e.actions IS NOT NULL AND e.start_state IS NOT NULL ORDER BY e.id DESC LIMIT ?")
        with self._lock:
            return [dict(r) for r in self._db.execute(q, (int(limit),))]

    def uncounted(self, game: str, protocol: str | None = None, run_id: int | None = None) -> dict[str, int]:
        """How many episodes of ``game`` :meth:`scores` leaves out, by why: ``detached`` (cut short when an
        agent was detached), ``abandoned`` (a session ended, or the app closed, mid-episode) and
        ``takeover`` (finished, but a person and an agent shared it). Same filters as :meth:`scores`."""
        q, args = ("SELECT CASE WHEN status = 'finished' THEN 'takeover' WHEN ended_by = 'detached' THEN 'detached' "
                   "ELSE 'abandoned' END AS why, COUNT(*) FROM episodes WHERE game = ? "
                   "AND (status = 'abandoned' OR (status = 'finished' AND controllers != ''))", [game])
        if protocol:
            q += " AND protocol = ?"
            args.append(protocol)
        if run_id is not None:
            q += " AND run_id = ?"
            args.append(run_id)
        with self._lock:
            return {why: int(n) for why, n in self._db.execute(q + " GROUP BY why", args)}

    def scores(self, game: str, protocol: str | None = None, run_id: int | None = None) -> dict[str, np.ndarray]:
        """Finished episode scores of ``game`` per player (mixed human/agent episodes excluded), optionally
        of one evaluation run only."""
        q, args = ("SELECT player, score FROM episodes WHERE game = ? AND status = 'finished' "
                   "AND controllers = ''", [game])
        if protocol:
            q += " AND protocol = ?"
            args.append(protocol)
        if run_id is not None:
            q += " AND run_id = ?"
            args.append(run_id)
        out: dict[str, list[float]] = {}
        with self._lock:
            for p, s in self._db.execute(q + " ORDER BY id", args):
                out.setdefault(p, []).append(s)
        return {p: np.asarray(v, dtype=np.float64) for p, v in out.items()}

    # -- evaluation runs ------------------------------------------------------------------------------
    def create_run(self, name: str, protocol: str, spec: dict | None = None) -> int:
        """Id of run ``name``; an existing run of that name is returned (resume), not duplicated."""
        with self._tx() as db:
            row = db.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()
            if row:
                return int(row[0])
            return int(db.execute("INSERT INTO runs (name, protocol, spec, created_at) VALUES (?, ?, ?, ?)",
                                  (name, protocol, json.dumps(spec or {}), time.time())).lastrowid)

    def run(self, name_or_id) -> dict | None:
        col = "id" if isinstance(name_or_id, int) else "name"
        with self._lock:
            r = self._db.execute(f"SELECT * FROM runs WHERE {col} = ?", (name_or_id,)).fetchone()
        if r is None:
            return None
        d = dict(r)
        d["spec"] = json.loads(d["spec"] or "{}")
        return d

    def run_games(self, run_id: int) -> list[str]:
        """Games that have finished episodes in the run."""
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT DISTINCT game FROM episodes WHERE run_id = ? AND status = 'finished' ORDER BY game", (run_id,))]

    def runs(self) -> list[dict]:
        with self._lock:
            rows = [dict(r) for r in self._db.execute("SELECT * FROM runs ORDER BY id")]
        for d in rows:
            d["spec"] = json.loads(d["spec"] or "{}")
        return rows

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        with self._tx() as db:
            db.execute("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", (status, time.time(), run_id))

    def complete_task(self, run_id: int, key: str, records: Iterable[EpisodeRecord] = (), error: str = "") -> None:
        """A task's episodes and its done/failed mark, in one transaction (so resume never double counts)."""
        with self._tx() as db:
            db.execute("DELETE FROM episodes WHERE run_id = ? AND task_key = ?", (run_id, key))
            for rec in records:
                row = self._row(rec, "finished", None, run_id, key)
                db.execute(_insert(row), row)
            db.execute("INSERT OR REPLACE INTO tasks (run_id, key, status, error, finished_at) "
                       "VALUES (?, ?, ?, ?, ?)", (run_id, key, "failed" if error else "done", error, time.time()))
        for rec in records:
            self.player(rec.player)

    def tasks(self, run_id: int) -> dict[str, dict]:
        with self._lock:
            return {r["key"]: dict(r) for r in self._db.execute("SELECT * FROM tasks WHERE run_id = ?", (run_id,))}

    def done_tasks(self, run_id: int) -> set[str]:
        """Keys of the run's tasks that finished without error (resume skips them; failed ones rerun)."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT key FROM tasks WHERE run_id = ? AND status = 'done'",
                                                   (run_id,))}


_COLUMNS = ["id", "session_id", "run_id", "task_key", "status", "verified"] + _SCALAR_FIELDS + [
    "extra", *_BLOBS]


def _insert(row: dict) -> str:
    return f"INSERT INTO episodes ({', '.join(row)}) VALUES ({', '.join(':' + k for k in row)})"


def _record(r: sqlite3.Row, full: bool) -> EpisodeRecord:
    keys = r.keys()
    kw = {n: r[n] for n in _SCALAR_FIELDS if n in keys}
    kw["extra"] = json.loads(r["extra"] or "{}")
    if full:
        kw["actions"] = None if r["actions"] is None else np.frombuffer(r["actions"], dtype=np.uint8).copy()
        kw["paddles"] = None if r["paddles"] is None else np.frombuffer(r["paddles"], dtype=np.float32).copy()
        kw["start_state"] = r["start_state"]
        kw["thoughts"] = r["thoughts"]
    rec = EpisodeRecord(**kw)
    rec.id = r["id"]
    rec.status = r["status"]
    rec.verified = None if r["verified"] is None else bool(r["verified"])
    rec.session_id = r["session_id"]
    rec.run_id = r["run_id"]
    rec.task_key = r["task_key"]
    return rec


class _Transaction:
    """``with store._tx() as db:`` — BEGIN IMMEDIATE … COMMIT under the store's lock; ROLLBACK on error."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        self.store._lock.acquire()
        try:
            self.store._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.store._lock.release()
            raise
        return self.store._db

    def __exit__(self, exc_type, exc, tb):
        try:
            self.store._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.store._lock.release()
        return False
