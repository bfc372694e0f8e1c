"""`grill check FILE` and `python -m checkers FILE`: one parser, one output format."""

from __future__ import annotations

import argparse
import json
import sys


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a Python file with a training loop")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where to run it (auto: CUDA when available)")
    parser.add_argument("--steps", type=int, default=None, metavar="N",
                        help="training-loop iterations to observe")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")


def run(args: argparse.Namespace) -> int:
    """Grade args.file; print the report (or one JSON object); return the exit status."""
    from checkers.api import UsageError, grade_file
    from checkers.report import render
    from checkers.verdict import EXIT_USAGE

    try:
        verdict = grade_file(args.file, device=args.device, steps=args.steps)
    except UsageError as exc:
        print(f"grill check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(verdict.to_dict()))
    else:
        sys.stdout.write(render(verdict))
    return verdict.exit_code
