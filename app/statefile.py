"""Save-state files and slots, Qt-free (the snapshots panel and the window sit on top of this).

One file per state, ``*.a26s``:

    magic  b"ALSAVE\\r\\n"         (the \\r\\n catches text-mode mangling, as PNG's signature does)
    u16 format version, u16 reserved
    u32 n + header (UTF-8 JSON: rom md5, game, title, frame, mode, difficulty, label, created, ...)
    u32 n + engine State bytes   (engine.State.to_bytes(): itself versioned and checksummed; env RNG inside)
    u32 n + screen buffers       (zlib: both frame buffers, so the picture after loading is exact)
    u32 n + PNG screenshot       (the thumbnail; decodable by anything)
    32-byte SHA-256 of all of the above

Files are written to a temporary name and renamed, so a crash never leaves half a state over a good one.
Everything that can go wrong with a file (truncated, corrupt, other ROM, newer format) raises
:class:`StateFileError` with a sentence a person can act on; nothing is modified by a failed load.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from arcade_lab.engine import __version__ as ENGINE_VERSION
from arcade_lab.engine.console import State, StateError
from arcade_lab.engine.png import png_bytes  # noqa: F401 (re-exported: the panel and tests use it from here)

from .places import data_dir

MAGIC = b"ALSAVE\r\n"
FORMAT_VERSION = 1
SUFFIX = ".a26s"
N_SLOTS = 10


class StateFileError(StateError):
    """A save-state file that cannot be used here; the message says why."""


# -- one file --------------------------------------------------------------------------------------------
@dataclass
class SaveState:
    """A decoded save-state file."""

    header: dict
    state: State
    fb: np.ndarray                 # (2, n) uint8 screen buffers
    png: bytes = b""
    path: Path | None = field(default=None, compare=False)

    @property
    def md5(self) -> str:
        return self.state.md5

    @property
    def label(self) -> str:
        return self.header.get("label", "")

    @property
    def frame(self) -> int:
        return int(self.header.get("frame", 0))

    @property
    def created(self) -> float:
        return float(self.header.get("created", 0.0))

    def check_rom(self, md5: str, title: str = "") -> None:
        """Refuse a state made for another cartridge (the machine would crash or show garbage)."""
        if self.md5 == md5:
            return
        theirs = self.header.get("title") or self.header.get("game") or ""
        if theirs and title and theirs != title:
            raise StateFileError(f"This state was saved for {theirs}, not for {title}: open {theirs} first.")
        # the same title on both sides is another ROM of the game (a revision, a PAL copy): the files tell
        raise StateFileError(f"This state was saved for another ROM{' of ' + theirs if theirs else ''} (md5 "
                             f"{self.md5[:8]}…), not for the one loaded (md5 {md5[:8]}…): open that ROM first.")


def encode(st: SaveState) -> bytes:
    header = dict(st.header)
    header.setdefault("engine_version", ENGINE_VERSION)
    header.setdefault("created", time.time())
    header["rom_md5"] = st.state.md5
    hb = json.dumps(header, sort_keys=True).encode("utf-8")
    fb = np.ascontiguousarray(st.fb, dtype=np.uint8)
    fbz = struct.pack("<II", *fb.shape) + zlib.compress(fb.tobytes(), 6)
    body = MAGIC + struct.pack("<HH", FORMAT_VERSION, 0)
    for part in (hb, st.state.to_bytes(), fbz, st.png):
        body += struct.pack("<I", len(part)) + part
    return body + hashlib.sha256(body).digest()


def decode(blob: bytes, path: Path | None = None) -> SaveState:
    where = f" ({path.name})" if path is not None else ""
    if len(blob) < len(MAGIC) + 4 or blob[:len(MAGIC)] != MAGIC:
        raise StateFileError(f"Not an Arcade Lab save state{where}.")
    version, _ = struct.unpack_from("<HH", blob, len(MAGIC))
    if version != FORMAT_VERSION:
        raise StateFileError(f"This save state{where} uses format version {version}; this Arcade Lab reads "
                             f"version {FORMAT_VERSION}. Use a newer Arcade Lab to load it.")
    if len(blob) < len(MAGIC) + 4 + 32:
        raise StateFileError(f"The save state{where} is truncated.")
    body, digest = blob[:-32], blob[-32:]
    parts, pos = [], len(MAGIC) + 4
    for _ in range(4):
        if pos + 4 > len(body):
            raise StateFileError(f"The save state{where} is truncated.")
        (n,) = struct.unpack_from("<I", body, pos)
        pos += 4
        if pos + n > len(body):
            raise StateFileError(f"The save state{where} is truncated.")
        parts.append(body[pos:pos + n])
        pos += n
    if pos != len(body) or hashlib.sha256(body).digest() != digest:
        raise StateFileError(f"The save state{where} is damaged (checksum mismatch); it was not loaded.")
    try:
        header = json.loads(parts[0].decode("utf-8"))
        state = State.from_bytes(parts[1])
        rows, n = struct.unpack_from("<II", parts[2], 0)
        fb = np.frombuffer(zlib.decompress(parts[2][8:]), dtype=np.uint8).reshape(rows, n).copy()
    except StateError as e:
        raise StateFileError(f"The save state{where} cannot be used: {e}.") from e
    except (ValueError, struct.error, zlib.error, UnicodeDecodeError) as e:
        raise StateFileError(f"The save state{where} is damaged: {e}.") from e
    if not isinstance(header, dict) or header.get("rom_md5") != state.md5:
        raise StateFileError(f"The save state{where} is damaged (header and machine disagree).")
    return SaveState(header, state, fb, parts[3], path)


def write(path: Path, st: SaveState) -> Path:
    """Atomic: a temporary file renamed over the target, so the old state survives a crash mid-write."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(encode(st))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def read(path) -> SaveState:
    path = Path(path)
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise StateFileError(f"Cannot read {path}: {e.strerror or e}.") from e
    return decode(blob, path)


# -- sessions <-> files ---------------------------------------------------------------------------------
def from_session(sess, label: str = "") -> SaveState:
    """A save state of a running :class:`app.session.PlaySession` (call on the emulator thread)."""
    snap = sess.snapshot()
    state = State(sess.info.md5, snap.state.copy(), snap.rng.copy())
    rgb = sess.palette()[sess.screen()]
    header = {"game": sess.info.id, "title": sess.info.title, "frame": snap.frame, "mode": sess.env.mode,
              "difficulty": sess.difficulty, "label": label, "created": time.time(), "color": bool(snap.color),
              "prev_reset": bool(snap.prev_reset), "engine_version": ENGINE_VERSION}
    return SaveState(header, state, snap.fb, png_bytes(rgb))


def to_session(st: SaveState, sess) -> None:
    """Load ``st`` into ``sess`` after checking it belongs to the loaded ROM (emulator thread)."""
    from .session import Snapshot

    st.check_rom(sess.info.md5, sess.info.title)
    if st.state.rng is None:
        raise StateFileError("This save state has no environment RNG; it cannot be resumed exactly.")
    h = sess.console.height * 160
    fb = np.zeros((2, h), np.uint8)
    n = min(h, st.fb.shape[1])
    fb[:, :n] = st.fb[:2, :n]
    sess.restore(Snapshot(st.state.data.copy(), st.state.rng.copy(), fb, bool(st.header.get("color", True)),
                          bool(st.header.get("prev_reset", False))))


# -- slots ---------------------------------------------------------------------------------------------
@dataclass
class Entry:
    """One file in a game's state folder, for listings (``state`` is None when the file is unreadable)."""

    slot: int
    path: Path
    state: SaveState | None
    error: str = ""


class Slots:
    """Numbered save-state slots per ROM: ``<data>/states/<md5>/slot-<n>.a26s``."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else data_dir() / "states"

    def folder(self, md5: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{32}", md5):
            raise StateFileError(f"not a ROM md5: {md5!r}")
        return self.root / md5

    def path(self, md5: str, slot: int) -> Path:
        return self.folder(md5) / f"slot-{int(slot)}{SUFFIX}"

    def save(self, md5: str, slot: int, st: SaveState) -> Path:
        st.check_rom(md5)
        return write(self.path(md5, slot), st)

    def load(self, md5: str, slot: int, title: str = "") -> SaveState:
        p = self.path(md5, slot)
        if not p.exists():
            raise StateFileError(f"Slot {slot} is empty.")
        st = read(p)
        st.check_rom(md5, title)
        return st

    def entries(self, md5: str) -> list[Entry]:
        d = self.folder(md5)
        out = []
        for p in sorted(d.glob(f"slot-*{SUFFIX}")) if d.is_dir() else []:
            m = re.fullmatch(r"slot-(\d+)" + re.escape(SUFFIX), p.name)
            if not m:
                continue
            try:
                out.append(Entry(int(m.group(1)), p, read(p)))
            except StateFileError as e:
                out.append(Entry(int(m.group(1)), p, None, str(e)))
        return sorted(out, key=lambda e: e.slot)

    def free_slot(self, md5: str) -> int:
        """The lowest empty slot (F5/F7 and Game ▸ State slot reach 0 to ``N_SLOTS`` - 1, no more)."""
        used = {e.slot for e in self.entries(md5)}
        n = 0
        while n in used:
            n += 1
        if n >= N_SLOTS:
            raise StateFileError(f"all {N_SLOTS} slots of this game hold states: delete one (Save states dock) "
                                 "to make room")
        return n

    def rename(self, md5: str, slot: int, label: str) -> None:
        st = self.load(md5, slot)
        st.header["label"] = label
        write(self.path(md5, slot), st)

    def delete(self, md5: str, slot: int) -> None:
        self.path(md5, slot).unlink(missing_ok=True)

    def export(self, md5: str, slot: int, dest) -> Path:
        st = self.load(md5, slot)
        return write(Path(dest), st)

    def import_file(self, src, md5: str | None = None, title: str = "") -> tuple[str, int]:
        """Copy a state file into its ROM's folder (first free slot); refuses it for another ``md5`` (the
        game ``title``)."""
        st = read(src)
        if md5 is not None:
            st.check_rom(md5, title)
        slot = self.free_slot(st.md5)
        write(self.path(st.md5, slot), st)
        return st.md5, slot
