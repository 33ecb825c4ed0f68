"""Client tests never touch the real home: config and data folders are per test, and the
player's name is already chosen (the first-run question has its own test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuttle_client.profile import save_name


@pytest.fixture(autouse=True)
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    save_name("Ann")
    return tmp_path
