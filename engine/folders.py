"""Where Arcade Lab keeps what its users make and add: one data folder, ``$ARCADE_LAB_DATA`` when that is set
(tests, portable installs), else the platform's user data folder. Scores, reference tables and the app's save
states all live under ``data_folder()``; each layer finds its files there without importing the others."""
from __future__ import annotations

import os
from pathlib import Path


def portable_folder() -> Path | None:
    """``$ARCADE_LAB_DATA`` when set: the one folder that then holds everything."""
    env = os.environ.get("ARCADE_LAB_DATA")
    return Path(env) if env else None


def platform_folder() -> Path:
    """The platform's user data folder for Arcade Lab (whatever ``$ARCADE_LAB_DATA`` says)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("arcade-lab", appauthor=False))


def data_folder() -> Path:
    return portable_folder() or platform_folder()
