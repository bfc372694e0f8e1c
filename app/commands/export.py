"""`grill export`: a Markdown progress report, or the full history as JSON for `grill import`."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.clock import utc_now
from app.commands.notes import report_pack_problems, report_unreadable
from app.paths import load_packs
from app.progress.history import History, HistoryError
from app.progress.report import markdown_report
from app.progress.stats import compute_stats
from app.progress.transfer import write_export
from checkers.outputs import whole_file


def run(args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else None
    try:
        with History.open() as history:
            if output is not None and output.resolve() in _history_files(history.path):
                print(
                    f"grill export: {args.output} is the history itself (or its journal); choose another file",
                    file=sys.stderr,
                )
                return 1

            def write(out: TextIO) -> None:
                if args.format == "json":  # streamed: constant memory whatever the history's size
                    write_export(history, out, now=utc_now())
                else:
                    library = load_packs()
                    out.write(markdown_report(compute_stats(history, library.cards)))
                    report_pack_problems("export", library)

            if output is None:
                write(sys.stdout)
            else:
                try:
                    _replace(output, write)
                except OSError as error:
                    print(
                        f"grill export: cannot write {args.output}: {error.strerror or error}",
                        file=sys.stderr,
                    )
                    return 1
    except HistoryError as error:
        print(f"grill export: {error}", file=sys.stderr)
        return 1
    report_unreadable("export", history)
    if output is not None:
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


def _replace(path: Path, write: Callable[[TextIO], None]) -> None:
    """Write the file whole or not at all (`checkers.outputs`): a full disk or a kill must not
    leave a previous export half-written.

    A pipe or device (`-o /dev/stdout`) is written to directly.
    """
    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8") as file:
            write(file)
        return
    with whole_file(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        write(text)
        text.flush()
        text.detach()  # the file is whole_file's to close
