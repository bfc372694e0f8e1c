"""Loading packs as the tests look at them: one pack folder on its own, as the tests of the loader
and of `grill new` do, and the shipped packs once per test process, as the tests that take a
case per shipped card or task do. Both through `load_library`, the way grill itself loads every
pack."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.paths import SHIPPED_PACKS
from questions.library import Library, Pack, Problem
from questions.loader import load_library
from questions.model import Card


def load_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """The pack in `root` (None when its manifest is broken) and every problem found."""
    library = load_library([root])
    return (library.packs[0] if library.packs else None), library.problems


@cache
def shipped_library() -> Library:
    """Every shipped pack, read once per process: pytest collects every test file in each of
    its processes, and the files that make a case per shipped card read the packs while it
    does (each reading them again, with the pure-Python YAML parser, took 3.5 s of each
    process's 10 s of collection)."""
    return load_library([SHIPPED_PACKS])


@cache
def _shipped_cards_by_path() -> dict[Path, Card]:
    return {loaded.path: loaded.card for loaded in shipped_library().cards}


def shipped_card(path: Path) -> Card:
    """The shipped card in the file `path` (KeyError when no shipped pack loaded it)."""
    return _shipped_cards_by_path()[path.resolve()]
