"""`grill stats`: the progress figures, as a Markdown report or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from app.commands.notes import report_pack_problems, report_unreadable
from app.paths import load_packs
from app.progress.history import History, HistoryError
from app.progress.report import markdown_report
from app.progress.stats import compute_stats


def run(args: argparse.Namespace) -> int:
    try:
        with History.open() as history:
            library = load_packs()
            stats = compute_stats(history, library.cards)
    except HistoryError as error:
        print(f"grill stats: {error}", file=sys.stderr)
        return 1
    report_pack_problems("stats", library)
    report_unreadable("stats", history)
    print(
        json.dumps(stats.to_dict(), indent=2, allow_nan=False)
        if args.json
        else markdown_report(stats)
    )
    return 0
