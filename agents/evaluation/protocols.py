"""Evaluation protocols as data: the literature's settings (resources/protocols.toml) plus user TOML files.

A :class:`Protocol` fixes everything about *how* agents are run (frame skip, sticky actions, episode end,
caps, action set, trials/seeds, games); the runner and the metrics read nothing else. Each built-in protocol
carries its ``source`` — the paper and section every number comes from.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from arcade_lab import engine

BUILTIN_FILE = Path(__file__).resolve().parents[2] / "resources" / "protocols.toml"


class ProtocolError(ValueError):
    """A protocol file or option is wrong; the message says what and where."""


@dataclass(frozen=True)
class Protocol:
    name: str
    games: tuple[str, ...]                       # our game ids, in the protocol's order
    title: str = ""
    source: str = ""
    frameskip: int = 1
    repeat_action_probability: float = 0.0
    max_frames: int = 0                          # per-episode cap (0 = none)
    termination: str = "game_over"               # or "fixed_horizon"
    horizon_frames: int = 0
    full_action_space: bool = False
    trials: int = 1
    episodes: int = 1
    training_episodes: int = 0
    seeds: tuple[int, ...] = ()
    frame_thresholds: tuple[int, ...] = ()
    last_n: int = 100
    frame_budget: int = 0                        # >0: a trial plays episodes until this many frames (Machado)
    per_frame_agents: bool = False               # honour agents' per_frame flag (ALE 2013's Random)
    sets: dict = field(default_factory=dict, compare=False)  # name -> tuple of game ids

    @property
    def n_trials(self) -> int:
        return len(self.seeds) if self.seeds else self.trials

    def env_seed(self, trial: int, base_seed: int = 0) -> int:
        """The environment seed of a trial: the protocol's own list when it has one (AtariBench's 0-9)."""
        return int(self.seeds[trial]) if self.seeds else int(base_seed) + trial

    def select_games(self, spec: str | None) -> tuple[str, ...]:
        """``None``/"all" → the protocol's games; a set name ("training"); or a comma list of names."""
        if not spec or spec == "all":
            return self.games
        out: list[str] = []
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            if part in self.sets:
                out.extend(self.sets[part])
            else:
                out.append(game_id(part))
        return tuple(dict.fromkeys(out))

    def with_overrides(self, **kw) -> "Protocol":
        """A copy with some parameters changed (CLI options); ``None`` values are ignored."""
        kw = {k: v for k, v in kw.items() if v is not None}
        if "trials" in kw and self.seeds:
            # an explicit seed list fixes the trials; asking for fewer takes its prefix
            kw["seeds"] = tuple(self.seeds[: kw["trials"]]) if kw["trials"] <= len(self.seeds) else \
                tuple(self.seeds) + tuple(range(max(self.seeds) + 1, max(self.seeds) + 1 + kw["trials"] - len(self.seeds)))
        p = replace(self, **kw)
        _validate(p)
        return p

    def describe(self) -> dict:
        d = {k: getattr(self, k) for k in ("name", "title", "frameskip", "repeat_action_probability", "max_frames",
                                           "termination", "horizon_frames", "full_action_space", "per_frame_agents", "trials",
                                           "episodes", "training_episodes", "seeds", "frame_thresholds", "last_n",
                                           "frame_budget")}
        d["games"] = list(self.games)
        d["seeds"] = list(self.seeds)
        d["frame_thresholds"] = list(self.frame_thresholds)
        return d


# -- game names ---------------------------------------------------------------------------------------
# Papers spell games their own way ("H.E.R.O.", "Up'n Down", "James Bond 007"); we compare letters and
# digits only, and keep a few aliases where the words themselves differ.
_ALIASES = {
    "jamesbond007": "jamesbond", "upanddown": "up_n_down", "montezumasrevenge": "montezuma_revenge",
    "kungfu": "kung_fu_master", "privateeye": "private_eye", "pitfallii": "pitfall2", "riverraid": "riverraid",
    "spaceinvader": "space_invaders", "yarsrevenge": "yars_revenge", "mspac": "ms_pacman",
}


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def game_id(name: str) -> str:
    """Our id for a game name in any usual spelling; ProtocolError naming close matches when unknown."""
    ids = engine.list_games()
    if name in ids:
        return name
    table = {_squash(g): g for g in ids}
    key = _squash(name)
    if key in table:
        return table[key]
    if key in _ALIASES:
        return _ALIASES[key]
    import difflib

    close = difflib.get_close_matches(name.lower().replace(" ", "_"), ids, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ProtocolError(f"unknown game {name!r}{hint}; `arcade-lab games` lists the supported ones")


# -- loading ------------------------------------------------------------------------------------------
_INT_KEYS = ("frameskip", "max_frames", "horizon_frames", "trials", "episodes", "training_episodes", "last_n",
             "frame_budget")
_KNOWN = set(_INT_KEYS) | {"title", "source", "repeat_action_probability", "termination", "full_action_space",
                           "per_frame_agents",
                           "seeds", "frame_thresholds", "games", "sets"}


def _validate(p: Protocol) -> None:
    where = f"protocol {p.name!r}"
    if p.frameskip < 1:
        raise ProtocolError(f"{where}: frameskip must be >= 1")
    if not 0.0 <= p.repeat_action_probability <= 1.0:
        raise ProtocolError(f"{where}: repeat_action_probability must be in [0, 1]")
    if p.termination not in ("game_over", "fixed_horizon"):
        raise ProtocolError(f"{where}: termination must be 'game_over' or 'fixed_horizon', not {p.termination!r}")
    if p.termination == "fixed_horizon" and p.horizon_frames <= 0:
        raise ProtocolError(f"{where}: a fixed_horizon protocol needs horizon_frames > 0")
    if p.max_frames < 0 or p.frame_budget < 0 or p.trials < 1 or p.episodes < 1 or p.training_episodes < 0:
        raise ProtocolError(f"{where}: max_frames, training_episodes must be >= 0; trials, episodes >= 1")
    if not p.games:
        raise ProtocolError(f"{where}: no games")


def _from_table(name: str, t: dict, origin: str) -> Protocol:
    unknown = set(t) - _KNOWN
    if unknown:
        raise ProtocolError(f"{origin}: protocol {name!r} has unknown keys {sorted(unknown)}")
    kw: dict = {}
    for k in _INT_KEYS:
        if k in t:
            if not isinstance(t[k], int) or isinstance(t[k], bool):
                raise ProtocolError(f"{origin}: protocol {name!r}: {k} must be an integer, got {t[k]!r}")
            kw[k] = t[k]
    for k in ("title", "source", "termination"):
        if k in t:
            kw[k] = str(t[k]).strip()
    if "repeat_action_probability" in t:
        kw["repeat_action_probability"] = float(t["repeat_action_probability"])
    for k in ("full_action_space", "per_frame_agents"):
        if k in t:
            kw[k] = bool(t[k])
    for k in ("seeds", "frame_thresholds"):
        if k in t:
            kw[k] = tuple(int(x) for x in t[k])
    try:
        sets = {s: tuple(game_id(g) for g in games) for s, games in (t.get("sets") or {}).items()}
        games: list[str] = []
        for g in t.get("games", []):
            games.extend(sets[g] if g in sets else (game_id(g),))
    except ProtocolError as e:
        raise ProtocolError(f"{origin}: protocol {name!r}: {e}") from None
    p = Protocol(name=name, games=tuple(dict.fromkeys(games)), sets=sets, **kw)
    _validate(p)
    return p


def load_file(path) -> dict[str, Protocol]:
    """Every ``[protocol.NAME]`` table of a TOML file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ProtocolError(f"cannot read protocol file {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProtocolError(f"protocol file {path} is not valid TOML: {e}") from None
    tables = data.get("protocol")
    if not isinstance(tables, dict) or not tables:
        raise ProtocolError(f"{path}: no [protocol.NAME] tables")
    return {name: _from_table(name, t, str(path)) for name, t in tables.items()}


_BUILTIN: dict[str, Protocol] | None = None


def builtin() -> dict[str, Protocol]:
    global _BUILTIN
    if _BUILTIN is None:
        _BUILTIN = load_file(BUILTIN_FILE)
    return dict(_BUILTIN)


def get(name: str, protocol_file=None) -> Protocol:
    """Protocol ``name`` from ``protocol_file`` (if given) or the built-ins."""
    table = builtin()
    if protocol_file:
        table.update(load_file(protocol_file))
    if name not in table:
        raise ProtocolError(f"unknown protocol {name!r}; known: {', '.join(sorted(table))}")
    return table[name]
