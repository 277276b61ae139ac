"""engine/games/_dispatch.py is generated from the game modules by tools/gen_games.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "tools" / "gen_games.py"


def _generator():
    if not GENERATOR.is_file():
        pytest.skip(f"{GENERATOR} is not here (tests run outside the source tree)")
    spec = importlib.util.spec_from_file_location("gen_games", GENERATOR)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dispatch_is_what_the_generator_writes():
    """A game module added or removed without regenerating would be missing from (or dangling in) the
    compiled dispatch; the generator's output, rendered in memory, must equal the committed file."""
    gen = _generator()
    mods = gen.game_modules()
    assert len(mods) >= 100   # the generator found the game modules, not an empty folder
    target = gen.GAMES_DIR / "_dispatch.py"
    assert target.read_text() == gen.render(mods), "stale: run python tools/gen_games.py"

