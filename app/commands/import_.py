"""`grill import FILE`: merge a JSON export into the history; importing it again changes nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands.notes import report_unreadable
from app.progress.history import History, HistoryError
from app.progress.transfer import ExportFileError, import_file


def run(args: argparse.Namespace) -> int:
    try:
        with History.open() as history:
            result = import_file(history, Path(args.file))
    except (HistoryError, ExportFileError) as error:
        print(f"grill import: {error}", file=sys.stderr)
        return 1
    report_unreadable("import", history)
    print(
        f"Imported {result.added} new attempts from {args.file} ({result.already_present} were already here)."
    )
    return 0
