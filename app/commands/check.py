"""`grill check FILE...`, and `grill check --task CARD_ID FILE`: a fix of a card's code task.

Plain `grill check` is the grader's own command line (`checkers/cli.py`). With `--task`, the
card is found here, since the grader reads no packs: its `TaskSpec` goes to
`checkers.cli.run_task`, which grades as the app does, and the attempt is recorded in the
history as one made in the app (unless `--no-record`).
"""

from __future__ import annotations

import argparse
import sys

from checkers.verdict import EXIT_GRILL, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    from checkers import cli

    if not args.task:
        for option in ("no_record", "rating"):
            if getattr(args, option, None):
                flag = "--" + option.replace("_", "-")
                print(f"grill check: error: {flag} goes with --task CARD_ID", file=sys.stderr)
                return EXIT_USAGE
        return cli.run(args)

    from app.commands.task import Recorder, load_task, open_history
    from checkers.api import UsageError, read_fix

    found = load_task("check", args.task)
    if found is None:
        return EXIT_USAGE
    card, task = found
    try:  # a command line that cannot run records nothing and starts no worker
        read_fix(cli.task_file(args))
    except UsageError as error:
        print(f"grill check: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.no_record:
        return cli.run_task(args, task.spec)
    history = open_history("check", "; --no-record grades it without recording")
    if history is None:
        return EXIT_GRILL
    with history:
        recorder = Recorder("check", history, card, rating=args.rating)
        return cli.run_task(args, task.spec, graded=recorder.graded)
