"""Where the app keeps what it writes: scores and save states (``data_dir``), settings and screenshots.
``$ARCADE_LAB_DATA``, when set, holds all of them (tests, portable installs)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

ORG = "ArcadeLab"


def data_dir() -> Path:
    """``$ARCADE_LAB_DATA`` when set (tests, portable installs), else the user data folder (as the store)."""
    env = os.environ.get("ARCADE_LAB_DATA")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("arcade-lab", appauthor=False))


def screenshot_dir() -> Path:
    """``$ARCADE_LAB_DATA/screenshots`` when that is set (a portable install keeps everything in it), else
    the user's pictures folder."""
    if os.environ.get("ARCADE_LAB_DATA"):
        return data_dir() / "screenshots"
    from platformdirs import user_pictures_dir

    return Path(user_pictures_dir()) / "Arcade Lab"


def app_settings() -> QSettings:
    """``$ARCADE_LAB_DATA/settings.ini`` when that is set, else the platform's place for settings."""
    if os.environ.get("ARCADE_LAB_DATA"):
        return QSettings(str(data_dir() / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(ORG, "arcade-lab")
