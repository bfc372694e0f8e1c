"""`grill schema [DIR]`: copy the card and manifest JSON Schemas into a pack's folder; `grill
schema --verdict`: print the JSON Schema of the `--json` verdict (`checkers.verdict_schema`).

A card's first line, `# yaml-language-server: $schema=card.schema.json`, then finds its schema
beside it wherever the pack goes (a shared repository, another machine), and editors complete
and explain every field.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from questions.scaffold import ScaffoldError, write_schemas

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run(args: argparse.Namespace) -> int:
    if args.verdict:
        if args.dir is not None:
            print("grill schema: --verdict prints the schema; it takes no DIR", file=sys.stderr)
            return EXIT_USAGE
        from checkers.verdict_schema import published

        sys.stdout.write(published())
        return EXIT_OK
    folder = Path(args.dir if args.dir is not None else ".")
    if folder.exists() and not folder.is_dir():
        print(f"grill schema: {folder} is a file, not a folder", file=sys.stderr)
        return EXIT_FAILED
    try:
        written = write_schemas(folder)
    except ScaffoldError as error:
        print(f"grill schema: {error}", file=sys.stderr)
        return EXIT_FAILED
    for path in written:
        print(f"wrote {path}")
    if not written:
        print(f"{folder / 'card.schema.json'} and pack.schema.json are up to date")
    print("Cards name it on their first line: # yaml-language-server: $schema=card.schema.json")
    return EXIT_OK
