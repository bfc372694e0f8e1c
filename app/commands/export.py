"""`grill export`: a Markdown progress report, or the full history as JSON for `grill import`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.paths import pack_search_path
from app.progress.clock import utc_now
from app.progress.history import History, HistoryError
from app.progress.report import markdown_report
from app.progress.stats import compute_stats
from app.progress.transfer import export_document
from questions.loader import load_library


def run(args: argparse.Namespace) -> int:
    try:
        with History.open() as history:
            if args.format == "json":
                text = json.dumps(export_document(history, now=utc_now()), indent=1, ensure_ascii=False) + "\n"
            else:
                text = markdown_report(compute_stats(history, load_library(pack_search_path()).cards))
    except HistoryError as error:
        print(f"grill export: {error}", file=sys.stderr)
        return 1
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"grill export: cannot write {args.output}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"Wrote the {'history' if args.format == 'json' else 'progress report'} to {args.output}.", file=sys.stderr)
    return 0
