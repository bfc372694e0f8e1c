"""`grill run [OPTIONS] [--] [python] SCRIPT ARGS...`: the user's own training script, run in
this process, unsandboxed, and judged as `grill check` judges a snippet
(`checkers.own_run`). torch is imported once the command line is known to be good.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from contextlib import nullcontext

from checkers.verdict import EXIT_USAGE
from checkers.verdict_schema import verdict_record


def run(args: argparse.Namespace) -> int:
    from checkers.own_run import CommandError, parse_command

    try:
        command = parse_command(args.script)
    except CommandError as error:
        print(f"grill run: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    interpreter = command.interpreter and shutil.which(command.interpreter)
    if interpreter and os.path.realpath(interpreter) != os.path.realpath(sys.executable):
        print(
            f"grill run: note: the script runs in grill's own Python ({sys.executable}), not"
            f" in {command.interpreter} ({interpreter}): install grill where your packages are",
            file=sys.stderr,
        )
    from checkers.own_run import Rank, ranked_verdict, run_script, stdout_to_stderr
    from checkers.report import render

    rank = Rank.from_environment()
    with stdout_to_stderr() if args.json else nullcontext():
        ran = run_script(command, device=args.device, steps=args.steps, seconds=args.seconds)
    own = verdict = ran.verdict
    if rank is not None:
        combined = ranked_verdict(verdict, ran.measured, rank, ran.source, ran.filename)
        if combined is None:  # another rank: its line; rank 0 prints the run's verdict
            print(f"grill run: rank {rank.rank}: {_summary(own)}", file=sys.stderr)
            return own.exit_code
        verdict = combined
    if args.json:
        print(json.dumps(verdict_record(verdict, file=command.target)))
    else:
        headline, _, rest = render(verdict).partition("\n")
        sys.stdout.write(headline.replace("the snippet", "the script") + "\n" + rest)
    return verdict.exit_code


def _summary(verdict: object) -> str:
    from checkers.verdict import Verdict

    assert isinstance(verdict, Verdict)
    what = verdict.message.split(". ")[0] if verdict.message else ""
    return f"{verdict.verdict} after {verdict.steps} steps" + (f": {what}" if what else "")
