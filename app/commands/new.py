"""`grill new PACK_DIR CARD_ID`: write a card skeleton to fill in, never overwriting a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.paths import load_packs, pack_search_path, user_packs_dir
from questions.scaffold import ScaffoldError, write_card_skeleton

EXIT_OK, EXIT_REFUSED = 0, 1


def run(args: argparse.Namespace) -> int:
    pack_dir = Path(args.pack_dir)
    taken = load_packs(pack_dir).card(args.card_id)
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
    print(where_it_loads(pack_dir))
    return EXIT_OK


def where_it_loads(pack_dir: Path) -> str:
    """Whether grill will load the pack, and if not, how to make it."""
    pack = pack_dir.resolve()
    for place in pack_search_path():
        place = place.expanduser().resolve()
        if pack in (place, *([place / pack.name] if pack.parent == place else [])):
            return (
                f"grill loads this pack from {place} (GRILL_PACKS or {user_packs_dir()}); its "
                "cards appear in the app once grill lint finds no problem in them."
            )
    return (
        f"grill does not load packs from {pack.parent} yet. Move the pack into "
        f"{user_packs_dir()}, or name it in GRILL_PACKS: export GRILL_PACKS={pack}"
    )
