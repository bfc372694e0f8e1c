"""`grill check FILE...` and `python -m checkers FILE...`: one parser, one output format.

Several files are graded one after the other by one warm worker; each gets its verdict, and
the exit status is the worst of them.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="Python files with a training loop")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where to run it (auto: CUDA when available)")
    parser.add_argument("--seconds", type=float, default=None, metavar="S",
                        help="time budget per file (default 60): the run is watched to its end"
                             " or for this long, and the verdict says which")
    parser.add_argument("--steps", type=int, default=None, metavar="N",
                        help="stop watching after N optimizer steps (default: run to the end)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per file, one per line")


def run(args: argparse.Namespace) -> int:
    """Grade each file; print its report (or JSON line); return the worst exit status."""
    from checkers.api import UsageError, grade_file
    from checkers.report import render
    from checkers.verdict import EXIT_GRILL, EXIT_USAGE

    worst = 0
    for path in args.files:
        try:
            verdict = grade_file(path, device=args.device, seconds=args.seconds, steps=args.steps)
        except UsageError as exc:
            print(f"grill check: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except Exception as exc:  # a fault of grill's own: say so, with its own exit status
            print(f"grill check: internal error while grading {path}: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
            return EXIT_GRILL
        if args.json:
            print(json.dumps({"file": path, **verdict.to_dict()}))
        else:
            if len(args.files) > 1:
                sys.stdout.write(f"== {path}\n")
            sys.stdout.write(render(verdict))
        sys.stdout.flush()
        worst = max(worst, verdict.exit_code)
    return worst
