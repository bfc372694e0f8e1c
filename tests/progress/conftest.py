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


@pytest.fixture(scope="session")
def shared_pack_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pack-cache")


@pytest.fixture(autouse=True)
def packs_read_once(shared_pack_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands run here (stats, export, import, mock) load every shipped pack; they share
    one pack cache per process, outside GRILL_HOME, so the packs' YAML is read once rather than
    by every test (a second of CPU each time). What is tested here is the history: the cache's
    own cold and warm starts are tests/test_pack_cache.py's. A command run as a new process
    keeps its own GRILL_HOME/cache."""
    from questions.cache import PackCache

    monkeypatch.setattr("app.paths.pack_cache", lambda: PackCache(shared_pack_cache / "packs"))
