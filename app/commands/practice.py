"""`grill` and `grill practice [--due] [--pack P]`: open the app."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.model import Library


def run(args: argparse.Namespace) -> int:
    from app.ui.app import GrillApp
    from app.ui.terminal import run_in_terminal

    library = None
    if args.pack:
        library = _library_of(args.pack)
        if library is None:
            return 2
    run_in_terminal(GrillApp(library, start_with_due=args.due))
    return 0


def _library_of(names: list[str]) -> Library | None:
    """Packs named on the command line; loading them first lets a wrong name fail before the app opens."""
    from app.paths import pack_search_path
    from questions.loader import load_library
    from questions.model import Library

    library = load_library(pack_search_path())
    known = {pack.manifest.name for pack in library.packs}
    unknown = [name for name in names if name not in known]
    if unknown:
        print(
            f"grill: no pack named {', '.join(map(repr, unknown))}; "
            f"loaded packs: {', '.join(sorted(known)) or 'none'}",
            file=sys.stderr,
        )
        return None
    return Library(
        packs=[p for p in library.packs if p.manifest.name in names], problems=library.problems
    )
