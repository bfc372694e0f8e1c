"""`grill mock`: load the packs, build the timed session, run it in the app.

Everything that can be wrong with the command line (an unknown pack, a bad number, no cards
at the level) is found before the app opens and reported in one line, exit status 2. The
draw and its checks are `app.mock.setup`'s, shared with the app's `m` key.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.mock.setup import MockSetupError, build_session, cards_for
from app.wording import count

if TYPE_CHECKING:
    from app.mock.session import MockSession
    from app.progress.history import History
    from questions.library import Library

EXIT_USAGE, EXIT_HISTORY = 2, 1


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
        print(
            f"grill mock: note: only {count(len(session.cards), 'card')} fit; asked for {args.questions}",
            file=sys.stderr,
        )
    report_path = Path(args.report).expanduser() if args.report else None
    from app.ui.app import GrillApp, mock_screen
    from app.ui.terminal import run_in_terminal

    with history:
        run_in_terminal(
            GrillApp(library, history, start_screen=lambda: mock_screen(session, report_path))
        )
    return 0


def _prepare(
    args: argparse.Namespace, open_history: Callable[[], History]
) -> tuple[Library, History, MockSession]:
    """Load the packs, open the history and build the session; the history is closed on failure."""
    from app.clock import utc_now
    from app.paths import load_packs

    if args.report and Path(args.report).expanduser().is_dir():
        raise MockSetupError(
            f"--report {args.report} is a folder; give a file name such as "
            f"{Path(args.report) / 'mock.md'}"
        )
    library = load_packs()
    cards = cards_for(library, args.pack)
    history = open_history()
    try:
        session = build_session(
            cards,
            level=args.level,
            questions=args.questions,
            minutes=args.minutes,
            seed=args.seed,
            interviewer=args.interviewer,
            history=history,
            now=utc_now(),
        )
        return library, history, session
    except BaseException:
        history.close()
        raise
