"""`grill new PACK_DIR CARD_ID`: write a card skeleton to fill in, never overwriting a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.paths import pack_cache, pack_search_path
from questions.loader import load_library
from questions.scaffold import ScaffoldError, write_card_skeleton

EXIT_OK, EXIT_REFUSED = 0, 1


def run(args: argparse.Namespace) -> int:
    pack_dir = Path(args.pack_dir)
    taken = load_library([*pack_search_path(), pack_dir], cache=pack_cache()).card(args.card_id)
    if taken is not None:
        print(
            f"grill new: the id '{args.card_id}' is already used by {taken.path}; choose another",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    try:
        written = write_card_skeleton(pack_dir, args.card_id)
    except ScaffoldError as error:
        print(f"grill new: {error}", file=sys.stderr)
        return EXIT_REFUSED
    for path in written:
        print(f"wrote {path}")
    print(f"Replace every TODO, then check the card with: grill lint {pack_dir}")
    return EXIT_OK
