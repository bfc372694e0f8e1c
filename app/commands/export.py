"""`grill export`: a Markdown progress report, or the full history as JSON for `grill import`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.clock import utc_now
from app.commands.notes import report_pack_problems, report_unreadable
from app.paths import pack_search_path
from app.progress.history import History, HistoryError
from app.progress.report import markdown_report
from app.progress.stats import compute_stats
from app.progress.transfer import export_document
from questions.loader import load_library


def run(args: argparse.Namespace) -> int:
    try:
        with History.open() as history:
            if args.format == "json":
                text = (
                    json.dumps(
                        export_document(history, now=utc_now()),
                        indent=1,
                        ensure_ascii=False,
                        allow_nan=False,
                    )
                    + "\n"
                )
            else:
                library = load_library(pack_search_path())
                text = markdown_report(compute_stats(history, library.cards))
                report_pack_problems("export", library)
    except HistoryError as error:
        print(f"grill export: {error}", file=sys.stderr)
        return 1
    report_unreadable("export", history)
    if not args.output:
        sys.stdout.write(text)
        return 0
    output = Path(args.output)
    if output.resolve() in _history_files(history.path):
        print(
            f"grill export: {args.output} is the history itself (or its journal); choose another file",
            file=sys.stderr,
        )
        return 1
    try:
        _replace(output, text)
    except OSError as error:
        print(
            f"grill export: cannot write {args.output}: {error.strerror or error}", file=sys.stderr
        )
        return 1
    print(
        f"Wrote the {'history' if args.format == 'json' else 'progress report'} to {args.output}.",
        file=sys.stderr,
    )
    return 0


def _history_files(history: Path) -> set[Path]:
    """The database and SQLite's files beside it: overwriting any of them loses the history."""
    database = history.resolve()
    return {
        database,
        *(database.with_name(database.name + suffix) for suffix in ("-wal", "-shm", "-journal")),
    }


def _replace(path: Path, text: str) -> None:
    """Write the file whole or not at all: a full disk must not leave a previous export half-written.

    A pipe or device (`-o /dev/stdout`) is written to directly.
    """
    if path.exists() and not path.is_file():
        path.write_text(text, encoding="utf-8")
        return
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
