"""`grill check FILE...` and `python -m checkers FILE...`: one parser, one output format.

One file is graded by a worker that starts cold (the snippet pays its own first-use costs, as
under plain Python); several are graded one after the other by one warm worker. Each gets its
verdict, and the exit status is the worst of them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping

from checkers.verdict import DEVICES

EXIT_STATUS = """\
exit status, the worst over the files:
  0  clean: no graph kept alive as training goes on
  1  leak, or wrong (a code task's contract broken)
  2  usage error (a file that cannot be read, a bad option)
  3  not graded: the snippet's own error, a refusal, a time or memory limit, no graph built,
     or tampering with the grader
  4  grill's own fault: the sandbox would not start, no CUDA device, an internal error"""


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EXIT_STATUS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="Python files with a training loop"
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help="where to run it (auto: CUDA when available)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        metavar="S",
        help="time budget per file (default 60): the run is watched to its end"
        " or for this long, and the verdict says which",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        metavar="N",
        help="stop watching after N optimizer steps (default: run to the end)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per file, one per line"
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="print where the time went (worker start, compile, run, measure) on stderr",
    )


def run(args: argparse.Namespace) -> int:
    """Grade each file; print its report (or JSON line); return the worst exit status."""
    from checkers.api import UsageError, checked_budget, grade_source, grading_sandbox, read_snippet
    from checkers.report import render
    from checkers.verdict import EXIT_GRILL, EXIT_USAGE

    try:  # every usage error is found before a worker starts (seconds of torch import)
        checked_budget(args.seconds, args.steps)
        sources = [(path, read_snippet(path)) for path in args.files]
    except UsageError as exc:
        print(f"grill check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    worst = 0
    with grading_sandbox(args.device, warm=len(sources) > 1) as sandbox:
        for index, (path, source) in enumerate(sources):
            started = time.monotonic()
            try:
                verdict = grade_source(
                    source,
                    filename=path,
                    device=args.device,
                    seconds=args.seconds,
                    steps=args.steps,
                    sandbox=sandbox,
                )
            except Exception as exc:  # a fault of grill's own: say so, with its own exit status
                print(
                    f"grill check: internal error while grading {path}: {type(exc).__name__}: {exc}",
                    file=sys.stderr,
                )
                return EXIT_GRILL
            if args.json:
                print(json.dumps({"file": path, **verdict.to_dict()}))
            else:
                if len(sources) > 1:
                    sys.stdout.write(f"== {path}\n")
                sys.stdout.write(render(verdict))
            sys.stdout.flush()
            if args.timings:
                print_timings(
                    path,
                    sandbox.timings if index == 0 else {},
                    verdict.extra.get("timings", {}),
                    time.monotonic() - started,
                )
            worst = max(worst, verdict.exit_code)
    return worst


def print_timings(
    path: str, worker: dict[str, float], run: Mapping[str, float], wall: float
) -> None:
    """One line per file on stderr: the worker's start (first file only), then the run."""
    parts = [
        f"{name} {seconds:.2f}s"
        for name, seconds in [*worker.items(), *run.items()]
        if isinstance(seconds, (int, float))
    ]
    print(f"timings {path}: {', '.join(parts)}; wall {wall:.2f}s", file=sys.stderr)
