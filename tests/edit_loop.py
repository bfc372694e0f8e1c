"""The edit loop, `make test-fast` (pytest -m "not slow"): the first test of each test file, so
every file, and through them every module of grill, still runs, in a fraction of the suite's
time; the files below an `e2e/` folder, which run whole programs end to end, are left to
`make test` with every other test. One rule, read from where the tests are: no list of timings
to keep up to date."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

WHOLE_PROGRAMS = "e2e"
"""The folder name, at any depth below tests/, of the tests that run grill end to end."""


def in_edit_loop(paths: Iterable[PurePath]) -> list[bool]:
    """For each test in collection order, given by its file's path relative to tests/: whether
    the edit loop runs it."""
    seen: set[PurePath] = set()
    kept = []
    for path in paths:
        kept.append(path not in seen and WHOLE_PROGRAMS not in path.parts[:-1])
        seen.add(path)
    return kept
