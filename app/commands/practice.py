"""`grill` and `grill practice [--due] [--pack P]`: open the app."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.library import Library


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
    from app.paths import load_packs
    from questions.library import UnknownPack

    try:
        return load_packs().only(names)
    except UnknownPack as error:
        print(f"grill: {error}", file=sys.stderr)
        return None
