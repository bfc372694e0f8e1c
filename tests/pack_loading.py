"""Loading one pack folder on its own, as the tests of the loader and of `grill new` look at
it: through `load_library`, the way grill itself loads every pack."""

from __future__ import annotations

from pathlib import Path

from questions.library import Pack, Problem
from questions.loader import load_library


def load_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """The pack in `root` (None when its manifest is broken) and every problem found."""
    library = load_library([root])
    return (library.packs[0] if library.packs else None), library.problems
