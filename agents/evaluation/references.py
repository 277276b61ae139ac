"""Published score tables — the literature's figures beside ours — and the arithmetic that compares them.

One module for the reports, the Scores dock and the evaluation CLI. A table is a CSV (a ``game`` column, one
column per published figure, its leading ``#`` lines kept as its source) described by a ``[table.NAME]``
entry of a TOML file (resources/published.toml lists the shipped ones and documents the keys). Users add
tables with a TOML file of the same shape, or a bare CSV: every numeric column of a bare CSV is a figure, a
column named like one of our agents (``sarsa:basic`` or ``sarsa_basic``) is compared with that agent, and
``random`` plus ``human`` columns make it a human-normalisation reference set.

Comparison (``compare``): our samples of an agent on a game give mean, standard error and the 99% Student-t
interval; the published mean is *within noise* when it lies inside that interval, widened by half a printed
unit of the table (a figure printed as 21 stands for anything in [20.95, 21.05) at one decimal).
"""
from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from arcade_lab.engine.folders import data_folder

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
SHIPPED_FILE = RESOURCES / "published.toml"
DEFAULT_HUMAN = "atari57"
LEVEL = 0.99
_KNOWN_KEYS = {"title", "csv", "scores", "source", "protocol", "agents", "human", "marks", "decimals"}


class ReferenceError(ValueError):
    """A reference table or file is wrong; the message says which file and what."""


class Ref(NamedTuple):
    random: float
    human: float


@dataclass
class Table:
    name: str
    title: str
    source: str
    origin: str                                            # the file it came from
    scores: dict[str, dict[str, float]]                    # column -> game -> published score
    sets: dict[str, str] = field(default_factory=dict)     # game -> "training" / "test" where the table says
    protocol: str | None = None
    agents: dict[str, str] = field(default_factory=dict)   # our spec (or "prefix:*") -> column
    human: tuple[str, str] | None = None
    marks: tuple[str, ...] = ()
    decimals: int = 1

    @property
    def games(self) -> list[str]:
        return sorted({g for col in self.scores.values() for g in col})

    def human_reference(self) -> dict[str, Ref]:
        if self.human is None:
            return {}
        rnd, hum = (self.scores[c] for c in self.human)
        return {g: Ref(rnd[g], hum[g]) for g in rnd if g in hum}

    def mark_values(self, game: str) -> list[tuple[str, float]]:
        """(column, score) of the table's marks that have a figure for ``game``."""
        return [(c, self.scores[c][game]) for c in self.marks if game in self.scores.get(c, {})]

    def applies_to(self, protocol: str | None) -> bool:
        return self.protocol is None or protocol is None or self.protocol == protocol


# -- loading ------------------------------------------------------------------------------------------
def _game(name: str, where: str) -> str:
    from .protocols import ProtocolError, game_id

    try:
        return game_id(name.strip())
    except ProtocolError as e:
        raise ReferenceError(f"{where}: {e}") from None


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _read_csv(path: Path) -> tuple[str, dict[str, dict[str, float]], dict[str, str], int]:
    """(source lines, numeric columns, game -> set, most decimals printed) of a CSV table."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ReferenceError(f"cannot read reference table {path}: {e.strerror or e}") from None
    source = "\n".join(line.lstrip("#").strip() for line in lines if line.startswith("#"))
    rows = list(csv.DictReader(line for line in lines if line.strip() and not line.startswith("#")))
    if not rows or "game" not in rows[0]:
        raise ReferenceError(f"{path}: a reference table needs a header row with a 'game' column")
    scores: dict[str, dict[str, float]] = {}
    text_cols: set[str] = set()
    sets: dict[str, str] = {}
    decimals = 0
    for i, r in enumerate(rows, start=2):
        g = _game(r["game"], f"{path}, data row {i - 1}")
        if r.get("set"):
            sets[g] = r["set"].strip()
        for col, v in r.items():
            if col in ("game", "set") or col is None or v is None or not v.strip() or col in text_cols:
                continue
            try:
                scores.setdefault(col, {})[g] = float(v)
                decimals = max(decimals, _decimals(v.strip()))
            except ValueError:
                text_cols.add(col)    # a label column (Atari-57's "source"): not a figure
                scores.pop(col, None)
    return source, scores, sets, decimals


def _agent_key(column: str) -> str:
    """Our agent spec a bare CSV's column stands for: "sarsa_basic" → "sarsa:basic", "random" → "random"."""
    from arcade_lab.agents.registry import agent_specs

    known = set(agent_specs())
    for cand in (column, column.replace("_", ":", 1)):
        if cand.lower() in known:
            return cand.lower()
    return ""


def load_csv(path) -> Table:
    """A bare CSV as a table named after the file (see the module docstring for what its columns mean)."""
    path = Path(path)
    source, scores, sets, decimals = _read_csv(path)
    if not scores:
        raise ReferenceError(f"{path}: no numeric column besides 'game'")
    agents = {k: c for c in scores if (k := _agent_key(c))}
    human = ("random", "human") if {"random", "human"} <= set(scores) else None
    title = source.splitlines()[0] if source else path.stem
    return Table(path.stem, title, source, str(path), scores, sets, None, agents, human, tuple(scores), decimals)


def _inline_scores(t: dict, where: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for col, per_game in t.items():
        if not isinstance(per_game, dict):
            raise ReferenceError(f"{where}: scores.{col} must be a table of game = score")
        for g, v in per_game.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ReferenceError(f"{where}: scores.{col}.{g} must be a number, got {v!r}")
            out.setdefault(col, {})[_game(g, where)] = float(v)
    return out


def _from_toml(name: str, t: dict, folder: Path, origin: str) -> Table:
    where = f"{origin}, [table.{name}]"
    unknown = set(t) - _KNOWN_KEYS
    if unknown:
        raise ReferenceError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; known: "
                             f"{', '.join(sorted(_KNOWN_KEYS))}")
    if ("csv" in t) == ("scores" in t):
        raise ReferenceError(f"{where}: give exactly one of csv = \"FILE\" and a [table.{name}.scores] table")
    source, sets, decimals = "", {}, 1
    if "csv" in t:
        csv_path = folder / str(t["csv"])
        source, scores, sets, decimals = _read_csv(csv_path)
        origin = str(csv_path)
    else:
        scores = _inline_scores(t["scores"], where)
    agents = {str(k): str(v) for k, v in dict(t.get("agents", {})).items()}
    human = tuple(t["human"]) if "human" in t else None
    marks = tuple(t.get("marks", scores))
    named = list(agents.values()) + list(human or ()) + list(marks)
    missing = [c for c in named if c not in scores]
    if missing:
        raise ReferenceError(f"{where}: no numeric column {', '.join(map(repr, missing))}; the table has "
                             f"{', '.join(scores) or 'none'}")
    if human is not None and len(human) != 2:
        raise ReferenceError(f"{where}: human must be [random column, human column]")
    return Table(name, str(t.get("title", name)), str(t.get("source", source)), origin, scores, sets,
                 t.get("protocol"), agents, human, marks, int(t.get("decimals", decimals)))


def load_toml(path) -> dict[str, Table]:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ReferenceError(f"cannot read reference file {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ReferenceError(f"{path}: not valid TOML: {e}") from None
    tables = data.get("table")
    if not isinstance(tables, dict) or not tables:
        raise ReferenceError(f"{path}: no [table.NAME] tables")
    return {n: _from_toml(n, t, path.parent, str(path)) for n, t in tables.items()}


def load_file(path) -> dict[str, Table]:
    """The tables of one user file: a TOML file of [table.NAME] entries, or a bare CSV."""
    path = Path(path)
    if path.suffix.lower() == ".toml":
        return load_toml(path)
    if path.suffix.lower() == ".csv":
        t = load_csv(path)
        return {t.name: t}
    raise ReferenceError(f"{path}: a reference table is a .toml or .csv file")


def user_folder() -> Path:
    """``references/`` in the data folder, beside the score database: tables found there are loaded
    everywhere, the Scores dock included."""
    return data_folder() / "references"


def load_all(extra: Iterable = (), folder: Path | None = None, user: bool = True) -> dict[str, Table]:
    """The shipped tables, then the user folder's (``folder``, default user_folder(); none when not
    ``user``), then ``extra`` files; a later table replaces one of the same name."""
    out = load_toml(SHIPPED_FILE)
    folder = user_folder() if folder is None else folder
    if user and folder.is_dir():
        for p in sorted(folder.iterdir()):
            if p.suffix.lower() in (".toml", ".csv"):
                out.update(load_file(p))
    for p in extra:
        out.update(load_file(p))
    return out


def human_sets(tables: Mapping[str, Table]) -> dict[str, Table]:
    """The tables that can human-normalise, by name."""
    return {n: t for n, t in tables.items() if t.human is not None}


def human_reference(name: str = DEFAULT_HUMAN, tables: Mapping[str, Table] | None = None) -> dict[str, Ref]:
    """{game: Ref(random, human)} of reference set ``name`` (atari57, nature2015, or a user table)."""
    tables = load_all() if tables is None else tables
    sets = human_sets(tables)
    if name not in sets:
        raise ReferenceError(f"no human reference set {name!r}; known: {', '.join(sets) or 'none'}")
    return sets[name].human_reference()


# -- comparison ---------------------------------------------------------------------------------------
def interval(samples: Sequence[float], level: float = LEVEL) -> tuple[float, float, float, float]:
    """(mean, standard error, low, high): the two-sided Student-t interval at ``level`` (NaN bounds when
    fewer than two samples)."""
    v = np.asarray(samples, float)
    mean = float(v.mean())
    if v.size < 2:
        return mean, float("nan"), float("nan"), float("nan")
    from .distributions import t_ppf

    se = float(v.std(ddof=1) / math.sqrt(v.size))
    half = t_ppf(0.5 + level / 2, v.size - 1) * se
    return mean, se, mean - half, mean + half


@dataclass(frozen=True)
class Comparison:
    table: str
    agent: str              # our agent, or "const:*" for the best of our const:A agents
    policy: str             # whose samples: the agent itself, or the best const:A on this game
    pool: int               # agents the best was chosen from (1 for a single agent)
    game: str
    set: str
    n: int
    mean: float
    se: float
    low: float
    high: float
    published: float
    ratio: float            # ours / published; NaN when the published figure is 0
    within: bool | None     # None when the interval is undefined (n < 2)


def _policy(agent: str, samples: Mapping[str, Mapping[str, np.ndarray]], game: str) -> tuple[str, int]:
    """The agent whose samples stand for ``agent`` on ``game``: itself, or for "const:*" the const:A with the
    highest mean (the paper's best-of-18); ("", 0) when the run has none."""
    if not agent.endswith(":*"):
        return (agent, 1) if game in samples.get(agent, {}) else ("", 0)
    prefix = agent[:-1]
    pool = {a: float(np.mean(s[game])) for a, s in samples.items() if a.startswith(prefix) and game in s}
    return (max(pool, key=pool.get), len(pool)) if pool else ("", 0)


def compare(samples: Mapping[str, Mapping[str, Sequence[float]]], table: Table, level: float = LEVEL
            ) -> list[Comparison]:
    """Our samples (agent -> game -> scores) beside ``table``'s figures, for every agent the table maps and
    every game both have."""
    tol = 0.5 * 10.0 ** -table.decimals
    out = []
    for agent, col in table.agents.items():
        for game in sorted(table.scores[col]):
            policy, pool = _policy(agent, samples, game)
            if not policy:
                continue
            v = np.asarray(samples[policy][game], float)
            mean, se, lo, hi = interval(v, level)
            pub = table.scores[col][game]
            within = None if v.size < 2 else bool(lo - tol <= pub <= hi + tol)
            ratio = mean / pub if pub != 0 else float("nan")
            out.append(Comparison(table.name, agent, policy, pool, game, table.sets.get(game, ""), int(v.size),
                                  mean, se, lo, hi, pub, ratio, within))
    return out


def within_noise(rows: Iterable[Comparison]) -> dict[str, tuple[int, int]]:
    """agent -> (games whose published mean is inside our interval, games with an interval)."""
    out: dict[str, list[int]] = {}
    for r in rows:
        k = out.setdefault(r.agent, [0, 0])
        if r.within is not None:
            k[0] += r.within
            k[1] += 1
    return {a: (k, n) for a, (k, n) in out.items()}


def agent_label(agent: str, pool: int | None = None) -> str:
    """"const:*" → "const (best of 18)"; other agents as they are."""
    if not agent.endswith(":*"):
        return agent
    return f"{agent[:-2]} (best of {pool})" if pool else f"{agent[:-2]} (best)"
