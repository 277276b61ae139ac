"""Shared fixtures: where the shared test data and ale-py's ROMs are, and skips when they are absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ARCADE_LAB_SHARED", ROOT.parent / "shared"))
TEST_DATA = SHARED / "test-data"


@pytest.fixture(scope="session")
def test_data() -> Path:
    if not TEST_DATA.is_dir():
        pytest.skip(f"shared test data not found at {TEST_DATA} (set ARCADE_LAB_SHARED)")
    return TEST_DATA


@pytest.fixture(scope="session")
def ale_roms() -> Path:
    from engine import roms

    d = roms.ale_rom_dir()
    if d is None:
        pytest.skip("ale-py is not installed: its bundled ROMs are the test ROMs")
    return d


def have_ale() -> bool:
    try:
        import ale_py  # noqa: F401
    except Exception:
        return False
    return True


requires_ale = pytest.mark.skipif(not have_ale(), reason="ale-py (the oracle) is not importable")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory, monkeypatch):
    """Score database and save states of every test live in a temporary folder, never the user's."""
    monkeypatch.setenv("ARCADE_LAB_DATA", str(tmp_path_factory.mktemp("data")))
