"""Where the app keeps what it writes: scores and save states (``data_dir``), settings and screenshots.
``$ARCADE_LAB_DATA``, when set, holds all of them (tests, portable installs)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

ORG = "ArcadeLab"


def _portable() -> Path | None:
    """``$ARCADE_LAB_DATA`` when set: the one folder that then holds everything."""
    env = os.environ.get("ARCADE_LAB_DATA")
    return Path(env) if env else None


def data_dir() -> Path:
    """``$ARCADE_LAB_DATA`` when set (tests, portable installs), else the user data folder (as the store)."""
    from platformdirs import user_data_dir

    return _portable() or Path(user_data_dir("arcade-lab", appauthor=False))


def screenshot_dir() -> Path:
    """``$ARCADE_LAB_DATA/screenshots`` when that is set, else the user's pictures folder."""
    from platformdirs import user_pictures_dir

    folder = _portable()
    return folder / "screenshots" if folder else Path(user_pictures_dir()) / "Arcade Lab"


def app_settings() -> QSettings:
    """``$ARCADE_LAB_DATA/settings.ini`` when that is set, else the platform's place for settings."""
    folder = _portable()
    if folder:
        return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(ORG, "arcade-lab")
