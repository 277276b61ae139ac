"""One data folder: the score database, the reference tables and the app's files are found in the same place,
``$ARCADE_LAB_DATA`` when set, else the platform's user data folder; user ROMs stay in the platform's."""
from __future__ import annotations

from pathlib import Path

from arcade_lab.agents.evaluation import references, store
from arcade_lab.app import places
from arcade_lab.engine import folders, roms


def _homes() -> set[Path]:
    return {store.default_path().parent, references.user_folder().parent, places.data_dir(), folders.data_folder()}


def test_every_layer_finds_the_data_folder_in_arcade_lab_data(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path))
    assert _homes() == {tmp_path}
    assert places.screenshot_dir() == tmp_path / "screenshots"
    assert roms.user_rom_dir() == folders.platform_folder() / "roms" and tmp_path not in roms.user_rom_dir().parents


def test_without_it_every_layer_uses_the_platform_folder(monkeypatch):
    monkeypatch.delenv("ARCADE_LAB_DATA", raising=False)
    assert _homes() == {folders.platform_folder()}
    assert folders.platform_folder().name == "arcade-lab"
