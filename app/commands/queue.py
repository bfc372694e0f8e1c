"""`grill queue [--days N] [--pack P]`: the queue `d` would practise, today or N days ahead.

Anki shows only today's; seeing tomorrow's (after a day off, before a trip) took running grill
under `faketime`. Read only: nothing is recorded, and the day's new-card limits are the app's
settings.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta

from app.clock import local_day, utc_now
from app.commands.notes import report_pack_problems
from app.paths import load_packs
from app.progress.history import History, HistoryError
from app.ui.settings import Settings
from app.wording import count
from questions.library import UnknownPack


def run(args: argparse.Namespace) -> int:
    from app.cli import QUEUE_DAYS
    from checkers.inputs import OutOfRange

    try:
        days = int(QUEUE_DAYS.check(args.days))
    except OutOfRange as error:
        print(f"grill queue: error: {error}", file=sys.stderr)
        return 2
    try:
        library = load_packs().only(args.pack) if args.pack else load_packs()
    except UnknownPack as error:
        print(f"grill queue: {error}", file=sys.stderr)
        return 2
    report_pack_problems("queue", library)
    now = utc_now() + timedelta(days=days)
    packs = {pack.info.name: [card.id for card in pack.cards] for pack in library.packs}
    try:
        with History.open() as history:
            settings = Settings.load(history)
            queue = history.todays_queue(
                packs,
                now=now,
                new_per_day=settings.new_per_day,
                new_per_pack=settings.new_per_pack,
            )
    except HistoryError as error:
        print(f"grill queue: {error}", file=sys.stderr)
        return 1
    day = local_day(now)
    when = "today" if days == 0 else f"in {count(days, 'day')}"
    print(f"The queue of {day:%A %Y-%m-%d} ({when}), as d on home would practise it:")
    width = max([len(name) for name in packs] + [len("every pack")])
    for name in [*packs, None]:
        counts = queue.counts_of(name)
        print(
            f"  {(name or 'every pack').ljust(width)}  {counts.reviews} due · {counts.learning}"
            f" learning · {counts.new} new"
        )
    cards = queue.of(None)
    print(f"\n{count(len(cards), 'card')} in order: " + (", ".join(cards) if cards else "none"))
    return 0
