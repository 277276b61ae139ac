"""Per-decision summaries of what an agent weighed, kept with its episode so a replay can show them.

A :class:`ThoughtLog` holds, for every decision of an episode, the agent's :class:`~agents.base.Thoughts`
(a planner's root visits and mean values per action, or a learner's Q-values), the action chosen and
the seconds the decision took. It is stored as one compact blob (:meth:`ThoughtLog.to_bytes`): a small
JSON header, then the arrays deflated: 17 to 40 bytes a decision over 18 actions as measured (UCT's
visits and values, SARSA's Q-values; 113 at most), so 60–140 kB for an 18 000-frame episode at frame
skip 5.

Recording only reads what the agent already computed (``agent.thoughts()`` has no side effects), so an
episode plays the same actions with or without its log.
"""
from __future__ import annotations

import json
import struct
import zlib

import numpy as np

MAGIC = b"ALTH"
VERSION = 1
_HEAD = struct.Struct("<4sBI")  # magic, version, header length


class ThoughtLogError(ValueError):
    """A stored thoughts blob that cannot be read (damaged, or from a newer Arcade Lab)."""


class ThoughtLog:
    """The thoughts of one episode, decision by decision (``kind``: "plan" or "q", as :class:`Thoughts`)."""

    def __init__(self):
        self.kind: str | None = None
        self.actions: list[int] = []
        self._rows: list[tuple] = []   # (visits | None, value | None, chosen, seconds, at)
        self._arrays: dict | None = None

    # -- recording ----------------------------------------------------------------------------------------
    def add(self, thoughts, chosen: int, seconds: float, at: int | None = None) -> None:
        """One decision: ``thoughts`` (a :class:`Thoughts` or None when the agent showed nothing), the action
        id chosen, its wall time, and ``at`` — the index in the episode's action trace where the decision's
        action starts (default: one trace entry per decision)."""
        at = len(self._rows) if at is None else int(at)
        self._arrays = None
        if thoughts is None:
            self._rows.append((None, None, int(chosen), float(seconds), at))
            return
        if self.kind is None:
            self.kind, self.actions = thoughts.kind, [int(a) for a in thoughts.actions]
        value = self._per_action(thoughts.actions, thoughts.value)
        visits = None if thoughts.visits is None else self._per_action(thoughts.actions, thoughts.visits)
        self._rows.append((visits, value, int(chosen), float(seconds), at))

    def _per_action(self, actions, values) -> np.ndarray:
        if list(actions) == self.actions:
            return np.asarray(values, np.float64)
        out = np.full(len(self.actions), np.nan)  # another action list: line the values up by action id
        pos = {a: i for i, a in enumerate(self.actions)}
        for a, v in zip(actions, values):
            if int(a) in pos:
                out[pos[int(a)]] = v
        return out

    def __len__(self) -> int:
        return len(self._rows) if self._arrays is None else len(self._arrays["chosen"])

    def __bool__(self) -> bool:
        return self.kind is not None and len(self) > 0

    # -- arrays -------------------------------------------------------------------------------------------
    def arrays(self) -> dict:
        """``chosen`` (uint8), ``seconds`` (float32), ``at`` (int64) per decision; ``value`` (float32,
        decisions × actions, NaN where the agent had none) and, for plans, ``visits`` (int64)."""
        if self._arrays is None:
            n, na = len(self._rows), len(self.actions)
            value = np.full((n, na), np.nan, np.float32)
            visits = np.zeros((n, na), np.int64) if self.kind == "plan" else None
            for i, (vis, val, _, _, _) in enumerate(self._rows):
                if val is not None:
                    value[i] = val
                if visits is not None and vis is not None:
                    visits[i] = vis
            self._arrays = {"chosen": np.array([r[2] for r in self._rows], np.uint8),
                            "seconds": np.array([r[3] for r in self._rows], np.float32),
                            "at": np.array([r[4] for r in self._rows], np.int64),
                            "value": value, "visits": visits}
        return self._arrays

    def decision(self, i: int) -> dict:
        """Decision ``i`` (0-based) in the shape the app draws live: kind, actions, chosen, seconds,
        decision (1-based), and visits and value (plans) or q (action values)."""
        a = self.arrays()
        t = {"kind": self.kind or "none", "actions": list(self.actions), "chosen": int(a["chosen"][i]),
             "seconds": float(a["seconds"][i]), "decision": i + 1}
        if self.kind == "plan":
            t.update(visits=a["visits"][i], value=a["value"][i].astype(np.float64))
        elif self.kind == "q":
            t["q"] = a["value"][i].astype(np.float64)
        return t

    def index_at(self, step: int) -> int:
        """The decision whose action is being played at trace index ``step`` (-1 before the first)."""
        return int(np.searchsorted(self.arrays()["at"], step, side="right")) - 1

    # -- storage ------------------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        a = self.arrays()
        n = len(a["chosen"])
        identity = bool(np.array_equal(a["at"], np.arange(n)))
        visits = a["visits"]
        vdtype = "<u2" if visits is None or visits.size == 0 or visits.max() < 1 << 16 else "<u4"
        parts = [("chosen", "|u1", a["chosen"]), ("seconds", "<f4", a["seconds"]), ("value", "<f4", a["value"])]
        if visits is not None:
            parts.append(("visits", vdtype, visits))
        if not identity:
            parts.append(("at", "<u4", a["at"]))
        body, fields = [], []
        for name, dt, arr in parts:
            arr = np.ascontiguousarray(arr, dtype=dt)
            body.append(arr.tobytes())
            fields.append([name, dt, list(arr.shape)])
        head = json.dumps({"kind": self.kind, "actions": self.actions, "n": n, "fields": fields},
                          separators=(",", ":")).encode()
        return _HEAD.pack(MAGIC, VERSION, len(head)) + head + zlib.compress(b"".join(body), 9)

    @classmethod
    def from_bytes(cls, blob: bytes) -> "ThoughtLog":
        try:
            magic, version, hlen = _HEAD.unpack_from(blob, 0)
        except struct.error:
            raise ThoughtLogError("the stored thoughts are cut short") from None
        if magic != MAGIC:
            raise ThoughtLogError("the stored thoughts are not an Arcade Lab thoughts record")
        if version > VERSION:
            raise ThoughtLogError(f"the stored thoughts are format {version}; this Arcade Lab reads "
                                  f"{VERSION} — update it to show them")
        try:
            head = json.loads(blob[_HEAD.size:_HEAD.size + hlen])
            raw = zlib.decompress(blob[_HEAD.size + hlen:])
            arrays, pos = {}, 0
            for name, dt, shape in head["fields"]:
                size = int(np.prod(shape)) * np.dtype(dt).itemsize
                if pos + size > len(raw):
                    raise ValueError("arrays longer than the data")
                arrays[name] = np.frombuffer(raw[pos:pos + size], dt).reshape(shape).copy()
                pos += size
            n = int(head["n"])
            log = cls()
            log.kind, log.actions = head["kind"], [int(x) for x in head["actions"]]
            log._arrays = {"chosen": arrays["chosen"].astype(np.uint8),
                           "seconds": arrays["seconds"].astype(np.float32),
                           "at": arrays["at"].astype(np.int64) if "at" in arrays else np.arange(n),
                           "value": arrays["value"].astype(np.float32),
                           "visits": arrays["visits"].astype(np.int64) if "visits" in arrays else None}
        except (ValueError, KeyError, TypeError, zlib.error) as e:
            raise ThoughtLogError(f"the stored thoughts are damaged ({e})") from None
        return log


def note(log: ThoughtLog | None, agent, chosen: int, seconds: float, at: int | None = None) -> None:
    """Add the decision ``agent`` just made to ``log`` (no-op without a log)."""
    if log is not None:
        fn = getattr(agent, "thoughts", None)
        log.add(fn() if callable(fn) else None, chosen, seconds, at)


def blob(log: ThoughtLog | None) -> bytes | None:
    """What an :class:`~agents.base.EpisodeRecord` keeps: the encoded log, or None when nothing was shown."""
    return log.to_bytes() if log else None
