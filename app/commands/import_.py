"""`grill import FILE`: merge a JSON export into the history; importing it again changes nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands.notes import report_unreadable
from app.progress.history import History, HistoryError
from app.progress.transfer import ExportFileError, import_file
from app.wording import count


def run(args: argparse.Namespace) -> int:
    try:
        with History.open() as history:
            result = import_file(history, Path(args.file))
    except (HistoryError, ExportFileError) as error:
        print(f"grill import: {error}", file=sys.stderr)
        return 1
    report_unreadable("import", history)
    for kind, fields in result.dropped.items():
        named = ", ".join(f"{name} ({count(times, 'attempt')})" for name, times in fields.items())
        print(
            f"grill import: note: dropped from {kind} attempts the fields this grill does not"
            f" know: {named}",
            file=sys.stderr,
        )
    print(
        f"Imported {result.added} new attempts from {args.file} ({result.already_present} were already here)."
    )
    return 0
