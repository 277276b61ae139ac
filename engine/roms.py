"""ROM catalog: ale-py's bundled ROMs plus user folders, identified by md5, with per-ROM properties.

ale-py is located with importlib (its compiled extension is never imported here), so the catalog works
even where ale-py's native library cannot load. Unknown ROMs are listed too (id = file stem) and are
playable, marked as having no game rules.
"""
from __future__ import annotations

import csv
import difflib
import gzip
import hashlib
import importlib.util
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable

from . import carts
from .folders import platform_folder

ROM_SUFFIXES = (".bin", ".a26", ".rom", ".gz")
MAX_ROM_BYTES = 512 * 1024


class RomError(ValueError):
    """A ROM file that cannot be used; the message names the file and the reason."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True)
class RomProps:
    """Emulator-relevant properties (ALE's property table columns; defaults are ALE's)."""

    md5: str = ""
    type: str = "AUTO-DETECT"
    display_format: str = "AUTO-DETECT"
    ystart: int = 34
    height: int = 210
    controller_left: str = "JOYSTICK"
    controller_right: str = "JOYSTICK"
    swap_paddles: bool = False
    swap_ports: bool = False
    hmove_blanks: bool = True
    left_difficulty: str = "B"
    right_difficulty: str = "B"


@dataclass(frozen=True)
class RomEntry:
    """One row of ``resources/roms.tsv``: a ROM ALE knows about."""

    id: str
    title: str
    md5: str
    size: int
    props: RomProps
    ale_rules: bool
    ale_scheme: str
    ale_format: str
    ale_height: str


@dataclass
class RomInfo:
    """A ROM file found on disk."""

    id: str
    title: str
    path: Path
    md5: str
    size: int
    scheme: str
    props: RomProps
    supported: bool  # ALE has game rules (reward/terminal/lives) for it
    known: bool = True  # listed in our property table
    notes: list[str] = field(default_factory=list)

    @property
    def rules_label(self) -> str:
        return "ALE rules" if self.supported else "no game rules"


def _yes(v: str) -> bool:
    return v.strip().upper() == "YES"


@lru_cache(maxsize=1)
def rom_table() -> dict[str, RomEntry]:
    """md5 -> entry, from the packaged property table."""
    text = resources.files("arcade_lab.resources").joinpath("roms.tsv").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    out: dict[str, RomEntry] = {}
    for r in csv.DictReader(rows, delimiter="\t"):
        props = RomProps(
            md5=r["md5"], type=r["prop_type"], display_format=r["prop_format"],
            ystart=int(r["prop_ystart"]), height=int(r["prop_height"]),
            controller_left=r["controller_left"], controller_right=r["controller_right"],
            swap_paddles=_yes(r["swap_paddles"]), swap_ports=_yes(r["swap_ports"]),
            hmove_blanks=_yes(r["hmove_blanks"]),
            left_difficulty=r["left_difficulty"], right_difficulty=r["right_difficulty"],
        )
        out[r["md5"]] = RomEntry(
            id=r["id"], title=r["title"], md5=r["md5"], size=int(r["size"]), props=props,
            ale_rules=r["ale_rules"] == "yes", ale_scheme=r["ale_scheme"],
            ale_format=r["ale_format"], ale_height=r["ale_height"],
        )
    return out


@lru_cache(maxsize=1)
def _by_id() -> dict[str, RomEntry]:
    return {e.id: e for e in rom_table().values()}


def list_games() -> list[str]:
    """The ids of the games ALE supports (has game rules for), sorted."""
    return sorted(e.id for e in rom_table().values() if e.ale_rules)


def ale_rom_dir() -> Path | None:
    """ale-py's bundled ROM folder, found without importing ale-py's compiled extension: from the installed
    distribution's files first (so a module standing in for ``ale_py``, such as our ``ale_compat`` imported
    under that name, does not hide them), else where ``ale_py`` would be imported from."""
    import importlib.metadata

    try:
        folder = Path(importlib.metadata.distribution("ale-py").locate_file("ale_py/roms"))
        if folder.is_dir():
            return folder
    except importlib.metadata.PackageNotFoundError:
        pass
    spec = importlib.util.find_spec("ale_py")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = Path(loc) / "roms"
        if p.is_dir():
            return p
    return None


def user_rom_dir() -> Path:
    return platform_folder() / "roms"


def read_rom(path: str | os.PathLike) -> bytes:
    """The bytes of a ROM file, or RomError saying why they cannot be used."""
    p = Path(path)
    if not p.exists():
        raise unknown_game(str(path)) if _GYM_ID.fullmatch(str(path)) else RomError(p, "no such file")
    if p.is_dir():
        raise RomError(p, "is a directory, not a ROM file")
    try:
        data = p.read_bytes()
    except PermissionError:
        raise RomError(p, "cannot be read (permission denied)") from None
    except OSError as e:
        raise RomError(p, f"cannot be read ({e.strerror or e})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise RomError(p, f"is a damaged gzip file ({e})") from None
    if len(data) == 0:
        raise RomError(p, "is empty (0 bytes)")
    if len(data) > MAX_ROM_BYTES:
        raise RomError(p, f"is {len(data)} bytes, far larger than any Atari 2600 cartridge")
    scheme = carts.detect_scheme(data, hashlib.md5(data).hexdigest())
    if scheme == "unknown":
        raise RomError(p, f"has an impossible size for an Atari 2600 ROM ({len(data)} bytes)")
    if not carts.supported(scheme):
        raise RomError(p, f"uses the {scheme} bank-switching scheme, which Arcade Lab does not emulate yet")
    return data


def identify(data: bytes, path: Path | None = None) -> RomInfo:
    """Catalog entry for ROM bytes: md5 lookup in the table, else an unknown ROM named by its file."""
    md5 = hashlib.md5(data).hexdigest()
    entry = rom_table().get(md5)
    scheme = carts.detect_scheme(data, md5)
    if entry is not None:
        props = entry.props
        if props.type != "AUTO-DETECT":
            scheme = props.type
        return RomInfo(id=entry.id, title=entry.title, path=path or Path(entry.id + ".bin"), md5=md5,
                       size=len(data), scheme=scheme, props=props, supported=entry.ale_rules)
    stem = (path.name.split(".")[0] if path else md5[:8]).lower()
    # ALE also matches its rules by file stem; an edited ROM named like a game keeps that game's rules.
    by_stem = _by_id().get(stem)
    supported = by_stem is not None and by_stem.ale_rules
    notes = ["md5 not in the property table"]
    if supported:
        notes.append(f"rules of '{stem}' applied by file name (md5 differs from ALE's)")
    return RomInfo(id=stem, title=stem.replace("_", " ").title(), path=path or Path(stem + ".bin"), md5=md5,
                   size=len(data), scheme=scheme, props=RomProps(md5=md5), supported=supported,
                   known=False, notes=notes)


def load(path: str | os.PathLike) -> tuple[RomInfo, bytes]:
    data = read_rom(path)
    return identify(data, Path(path)), data


def _rom_files(folder: Path) -> Iterable[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [p for p in entries if p.is_file() and p.suffix.lower() in ROM_SUFFIXES]


def search_paths(extra: Iterable[str | os.PathLike] = ()) -> list[Path]:
    paths = []
    d = ale_rom_dir()
    if d:
        paths.append(d)
    paths.append(user_rom_dir())
    paths.extend(Path(e) for e in extra)
    return paths


def scan(extra: Iterable[str | os.PathLike] = (), errors: list | None = None) -> list[RomInfo]:
    """All ROMs in ale-py's folder, the user folder and any extra folders/files; bad files are skipped
    (and reported into ``errors`` when given)."""
    found: dict[Path, RomInfo] = {}
    for base in search_paths(extra):
        files = [base] if base.is_file() else _rom_files(base) if base.is_dir() else []
        if not base.exists() and errors is not None and base != user_rom_dir():
            errors.append(RomError(base, "no such file or folder"))
        for f in files:
            try:
                info, _ = load(f)
            except RomError as e:
                if errors is not None:
                    errors.append(e)
                continue
            found[f.resolve()] = info
    return sorted(found.values(), key=lambda i: (i.id, str(i.path)))


# ``ALE/Breakout-v5``, ``BreakoutNoFrameskip-v4``: a Gymnasium id, not a game id or a ROM path
_GYM_ID = re.compile(r"(?:[A-Za-z]+/)?([A-Za-z0-9]+?)(?:NoFrameskip|Deterministic)?-v\d+")


def unknown_game(query: str) -> RomError:
    """The error for a game id no ROM has, naming the id meant where it is plain: a CamelCase name
    (``MsPacman``), a Gymnasium id (``ALE/MsPacman-v5``) or a near miss."""
    ids = _by_id()
    m = _GYM_ID.fullmatch(query)
    name = m.group(1) if m else query
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    squashed = {i.replace("_", ""): i for i in ids}
    meant = next((c for c in (snake, name.lower()) if c in ids), None) or squashed.get(snake.replace("_", ""))
    if meant is None:
        close = difflib.get_close_matches(snake, list(ids), n=1, cutoff=0.75)
        meant = close[0] if close else None
    what = f"'{query}' is a Gymnasium id (for gym.make), not a game id" if m else f"unknown game id '{query}'"
    hint = f": did you mean '{meant}'? (game ids are snake_case" if meant else " (game ids are snake_case"
    return RomError(query, f"{what}{hint}; see `arcade-lab games`)")


def rom_path(game: str) -> Path:
    """Path of the bundled (or user-folder) ROM for a game id."""
    entry = _by_id().get(game)
    if entry is None:
        raise unknown_game(game)
    for base in search_paths():
        for suffix in (".bin", ".a26", ".rom"):
            p = base / (game + suffix)
            if p.is_file():
                return p
    raise RomError(game, "the ROM file was not found in ale-py's ROM folder or the user ROM folder")


def find(query: str | os.PathLike) -> RomInfo:
    """A ROM by game id, md5 or path."""
    q = str(query)
    p = Path(q)
    if p.suffix.lower() in ROM_SUFFIXES or os.sep in q or p.exists():
        info, _ = load(p)
        return info
    if q in _by_id():
        return load(rom_path(q))[0]
    ql = q.lower()
    if len(ql) == 32 and all(c in "0123456789abcdef" for c in ql):
        entry = rom_table().get(ql)
        if entry is not None:
            return load(rom_path(entry.id))[0]
        for info in scan():
            if info.md5 == ql:
                return info
        raise RomError(q, "no ROM with this md5 was found")
    raise unknown_game(q)
