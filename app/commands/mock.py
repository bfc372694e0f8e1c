"""`grill mock`: draw the questions, build the timed session, run it in the app.

Everything that can be wrong with the command line (an unknown pack, a bad number, no cards
at the level) is found before the app opens and reported in one line, exit status 2.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from app.mock.draw import Standing, draw, eligible
from app.mock.session import MockSession
from questions.model import Library, LoadedCard

EXIT_USAGE, EXIT_HISTORY = 2, 1


class MockSetupError(Exception):
    """The command line asks for a mock that cannot be built; the message says why."""


def cards_for(library: Library, pack_names: Sequence[str]) -> list[LoadedCard]:
    """The cards of the named packs (all packs when none is named)."""
    known = {pack.manifest.name for pack in library.packs}
    unknown = [name for name in pack_names if name not in known]
    if unknown:
        raise MockSetupError(f"no pack named {', '.join(map(repr, unknown))}; "
                             f"loaded packs: {', '.join(sorted(known)) or 'none'}")
    return [c for c in library.cards if not pack_names or c.pack in pack_names]


def build_session(args: argparse.Namespace, cards: Sequence[LoadedCard],
                  standings: dict[str, Standing] | None = None) -> MockSession:
    """Draw the questions for these arguments and wrap them in a session ready to start."""
    if args.questions < 1:
        raise MockSetupError(f"--questions must be at least 1, not {args.questions}")
    if args.minutes is not None and args.minutes <= 0:
        raise MockSetupError(f"--minutes must be positive, not {args.minutes:g}")
    if not eligible(cards, args.level):
        raise MockSetupError(f"no card at {args.level} level or below in the chosen packs")
    chosen = draw(cards, args.questions, level=args.level, rng=random.Random(args.seed),
                  standings=standings)
    return MockSession(chosen, level=args.level, mode="interviewer" if args.interviewer else "candidate",
                       minutes=args.minutes, seed=args.seed)


def start_screen(session: MockSession, report_path: Path | None):
    if session.mode == "interviewer":
        from app.ui.screens.mock_interviewer import MockInterviewerScreen

        return MockInterviewerScreen(session, report_path=report_path)
    from app.ui.screens.mock import MockScreen

    return MockScreen(session, report_path=report_path)


def run(args: argparse.Namespace) -> int:
    from app.commands.notes import report_pack_problems
    from app.progress.history import History, HistoryError

    try:
        library, history, session = _prepare(args, History.open)
    except (MockSetupError, HistoryError) as error:
        print(f"grill mock: {error}", file=sys.stderr)
        return EXIT_USAGE if isinstance(error, MockSetupError) else EXIT_HISTORY
    report_pack_problems("mock", library)
    if len(session.cards) < args.questions:
        print(f"grill mock: note: only {len(session.cards)} card(s) fit; asked for {args.questions}",
              file=sys.stderr)
    report_path = Path(args.report).expanduser() if args.report else None
    from app.ui.app import GrillApp

    with history:
        GrillApp(library, history, start_screen=lambda: start_screen(session, report_path)).run()
    return 0


def _prepare(args: argparse.Namespace, open_history):
    """Load the packs, open the history and build the session; the history is closed on failure."""
    from app.mock.draw import standings_from
    from app.paths import pack_search_path
    from questions.loader import load_library

    if args.report and Path(args.report).expanduser().is_dir():
        raise MockSetupError(f"--report {args.report} is a folder; give a file name such as "
                             f"{Path(args.report) / 'mock.md'}")
    library = load_library(pack_search_path())
    cards = cards_for(library, args.pack)
    history = open_history()
    try:
        standings = standings_from(history, [c.card.id for c in cards], datetime.now(timezone.utc))
        return library, history, build_session(args, cards, standings)
    except BaseException:
        history.close()
        raise
