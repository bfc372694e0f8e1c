"""Where grill keeps user data and finds packs.

`GRILL_HOME` overrides the per-OS data directory (tests, several profiles), and then holds the
cache too; `GRILL_PACKS` adds pack folders, separated by os.pathsep.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from questions.cache import PackCache
    from questions.library import Library

SHIPPED_PACKS = Path(__file__).resolve().parent.parent / "questions"


def data_dir() -> Path:
    home = os.environ.get("GRILL_HOME")
    return (
        Path(home).expanduser()
        if home
        else Path(platformdirs.user_data_dir("grill", appauthor=False))
    )


def cache_dir() -> Path:
    """The pack cache's folder: `GRILL_HOME/cache` when GRILL_HOME is set, else the per-OS
    cache folder (`~/.cache/grill` on Linux). Deleting it is always safe."""
    home = os.environ.get("GRILL_HOME")
    return (
        Path(home).expanduser() / "cache"
        if home
        else Path(platformdirs.user_cache_dir("grill", appauthor=False))
    )


def pack_cache() -> PackCache:
    """What a start needs of each pack file, kept between runs (`questions.cache`)."""
    from questions.cache import PackCache

    return PackCache(cache_dir() / "packs")


def load_packs(*more: Path) -> Library:
    """Every pack grill loads (`pack_search_path`, and `more`), through the pack cache: the one
    way the app and every command but `grill lint` load them, so that none reads a card file
    whose cache entry holds (`grill task list` read ten thousand, for seconds, when it forgot
    the cache)."""
    from questions.loader import load_library

    return load_library([*pack_search_path(), *more], cache=pack_cache())


def user_packs_dir() -> Path:
    return data_dir() / "packs"


def history_path() -> Path:
    return data_dir() / "history.db"


def pack_search_path() -> list[Path]:
    """Shipped packs first, then the user's folder, then each `GRILL_PACKS` entry."""
    extra = [Path(p).expanduser() for p in os.environ.get("GRILL_PACKS", "").split(os.pathsep) if p]
    return [SHIPPED_PACKS, user_packs_dir(), *extra]
