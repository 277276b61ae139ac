"""Per-game rules (ALE's RomSettings) for the games ALE supports; see ``base.py`` for the shape."""
from __future__ import annotations

from functools import lru_cache

from .base import ACTION_MEANINGS, Game


@lru_cache(maxsize=1)
def registry() -> dict[str, tuple[int, Game]]:
    """game id -> (compiled index, Game)."""
    from . import _dispatch

    return {m.GAME.id: (i, m.GAME) for i, m in enumerate(_dispatch.MODULES)}


def get(game_id: str) -> tuple[int, Game] | None:
    return registry().get(game_id)


__all__ = ["ACTION_MEANINGS", "Game", "registry", "get"]
