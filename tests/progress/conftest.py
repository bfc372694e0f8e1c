"""Every progress test gets its own GRILL_HOME, so nothing touches the real user folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(folder))
    monkeypatch.delenv("GRILL_PACKS", raising=False)
    return folder
