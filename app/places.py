"""Where the app keeps what it writes: scores and save states (``data_dir``), settings and screenshots.
``$ARCADE_LAB_DATA``, when set, holds all of them (tests, portable installs)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from arcade_lab.engine.folders import data_folder, portable_folder

ORG = "ArcadeLab"
data_dir = data_folder  # scores and save states: the one data folder every layer uses


def screenshot_dir() -> Path:
    """``$ARCADE_LAB_DATA/screenshots`` when that is set, else the user's pictures folder."""
    from platformdirs import user_pictures_dir

    folder = portable_folder()
    return folder / "screenshots" if folder else Path(user_pictures_dir()) / "Arcade Lab"


def app_settings() -> QSettings:
    """``$ARCADE_LAB_DATA/settings.ini`` when that is set, else the platform's place for settings."""
    folder = portable_folder()
    if folder:
        return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(ORG, "arcade-lab")
