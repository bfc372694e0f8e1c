"""`grill check FILE...` and `python -m checkers FILE...`: one parser, one output format.

One file is graded by a worker that starts cold (the snippet pays its own first-use costs, as
under plain Python); several are graded one after the other by one warm worker. Each gets its
verdict, and the exit status is the worst of them.

`grill check --task CARD_ID FILE` grades FILE as a fix of a card's code task (`run_task`): the
card is read on the app's side (`app/commands/check.py`), which hands the task's `TaskSpec` in,
since the grader reads no packs; `python -m checkers` therefore refuses `--task`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from checkers.inputs import RANKS, SECONDS, STEPS
from checkers.verdict import DEVICES, EXIT_GRILL, EXIT_USAGE
from checkers.verdict_schema import verdict_record

if TYPE_CHECKING:
    from checkers.task import TaskSpec
    from checkers.verdict import Verdict

Graded = Callable[[str, str, "Verdict"], None]
"""Called with the file, the source graded and its verdict, before the verdict is printed."""

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
        type=SECONDS.parse,
        default=None,
        metavar="S",
        help="time budget per file (default 60): the run is watched to its end"
        " or for this long, and the verdict says which",
    )
    parser.add_argument(
        "--steps",
        type=STEPS.parse_whole,
        default=None,
        metavar="N",
        help="stop watching after N optimizer steps (default: run to the end)",
    )
    parser.add_argument(
        "--ranks",
        type=RANKS.parse_whole,
        default=None,
        metavar="N",
        help="run each file as N ranks, as torchrun --nproc-per-node N would (1 to 16):"
        " torch.distributed on gloo, every rank graded, hangs named",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per file, one per line"
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="print where the time went (worker start, compile, run, measure) on stderr",
    )
    parser.add_argument(
        "--task",
        metavar="CARD_ID",
        help="grade FILE as a fix of this card's code task: no graph kept, and the task's"
        " contract held against its reference solution (grill check only)",
    )


def run(args: argparse.Namespace) -> int:
    """Grade each file; print its report (or JSON line); return the worst exit status.

    No exception of grill's own reaches the user: a sandbox that cannot start (no CUDA device
    for `--device cuda`, say) is one plain line and exit 4, and so is any other fault."""
    try:
        return _run(args)
    except Exception as exc:  # a fault of grill's own: say so, with its own exit status
        return _fault(exc)


def fault_line(command: str, error: Exception, while_doing: str = "") -> str:
    """The one line for an exception that escaped a command (`grill COMMAND: ...`), whichever
    command: an OSError (a full disk, standard output on /dev/full) says what the system said;
    anything else is a bug in grill, and says so."""
    if isinstance(error, OSError):
        where = f" ({error.filename})" if error.filename else ""
        return f"grill {command}: {error.strerror or error}{where}; the command stopped there"
    return (
        f"grill {command}: internal error{while_doing} ({type(error).__name__}: {error}); this "
        "is a bug in grill: please report it (GRILL_TRACEBACK=1 prints where it happened)"
    )


def _fault(error: Exception, while_doing: str = "") -> int:
    if os.environ.get("GRILL_TRACEBACK"):
        traceback.print_exception(error, file=sys.stderr)
    print(fault_line("check", error, while_doing), file=sys.stderr)
    return EXIT_GRILL


def _run(args: argparse.Namespace) -> int:
    from checkers.api import (
        UsageError,
        checked_budget,
        checked_ranks,
        checked_source,
        grade_source,
        grading_sandbox,
        read_snippet,
    )
    from checkers.report import render
    from checkers.sandbox import SandboxError
    from checkers.verdict import Verdict

    if getattr(args, "task", None):
        print(
            "error: --task needs the question packs, which the grader alone does not read;"
            f" use: grill check --task {args.task} FILE",
            file=sys.stderr,
        )
        return EXIT_USAGE
    ranks = getattr(args, "ranks", None)
    try:  # every usage error is found before a worker starts (seconds of torch import)
        checked_budget(args.seconds, args.steps)
        if ranks is not None:
            checked_ranks(ranks)
        sources = [(path, checked_source(read_snippet(path), path)) for path in args.files]
    except UsageError as exc:
        print(f"grill check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    worst = 0
    # Ranked runs use a warm worker even for one file: each rank starts from it.
    sandbox = grading_sandbox(args.device, warm=len(sources) > 1 or ranks is not None)
    try:
        try:
            sandbox.start()
        except SandboxError as exc:
            print(f"grill check: {exc}", file=sys.stderr)
            if args.json:  # each file still gets its line, saying why it was not graded
                for path, _ in sources:
                    failed = Verdict.not_graded("error", args.device, str(exc), kind=exc.kind)
                    print(json.dumps(verdict_record(failed, file=path)))
            return EXIT_GRILL
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
                    ranks=ranks,
                )
            except Exception as exc:  # a fault of grill's own: say so, with its own exit status
                return _fault(exc, f" while grading {path}")
            if args.json:
                print(json.dumps(verdict_record(verdict, file=path)))
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
    finally:
        sandbox.close()
    return worst


def task_file(args: argparse.Namespace) -> str:
    """The one FILE of `--task`, from a command line that can grade a task; UsageError if not."""
    from checkers.api import UsageError

    if len(args.files) != 1:
        raise UsageError(f"--task grades one file, not {len(args.files)}")
    for option in ("seconds", "steps"):
        if getattr(args, option, None) is not None:
            raise UsageError(
                f"--{option} does not apply to --task: a task runs with its card's budget,"
                " as in the app, so a fix and the reference solution do the same work"
            )
    if getattr(args, "ranks", None) is not None:
        raise UsageError(
            "--ranks does not apply to --task: a task runs with as many ranks as its card"
            " says (its grading's `ranks`), as in the app"
        )
    return str(args.files[0])


def task_on(spec: TaskSpec, device: str) -> TaskSpec:
    """The task run on `device`, where that is `cpu` or `cuda`; `auto` keeps the card's own
    choice, as the app does when its setting is `auto`."""
    if device == "auto":
        return spec
    return spec.model_copy(update={"grading": spec.grading.model_copy(update={"device": device})})


def run_task(args: argparse.Namespace, spec: TaskSpec, *, graded: Graded | None = None) -> int:
    """`grill check --task CARD_ID FILE`: grade FILE as the app grades a fix of the task (the
    same verdict, messages and exit status); `graded` then sees the verdict (to record it)."""
    from checkers.api import UsageError, grade_task, grading_sandbox, read_fix
    from checkers.report import render

    try:  # every usage error is found before a worker starts
        path = task_file(args)
        source = read_fix(path)
    except UsageError as exc:
        print(f"grill check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    spec = task_on(spec, args.device)
    started = time.monotonic()
    # Warm: the fix, the reference solution and (for a peak budget) the starter run on it.
    with grading_sandbox(spec.grading.device) as sandbox:
        try:
            verdict = grade_task(source, spec, sandbox=sandbox, filename=path)
        except Exception as exc:  # a fault of grill's own: say so, with its own exit status
            print(
                f"grill check: internal error while grading {path}: {type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
            return EXIT_GRILL
        if graded is not None:  # recorded first: an output that fails loses no attempt
            graded(path, source, verdict)
        if args.json:
            print(json.dumps(verdict_record(verdict, file=path, task=args.task)))
        else:
            sys.stdout.write(render(verdict))
        sys.stdout.flush()
        if args.timings:
            print_timings(
                path,
                sandbox.timings,
                verdict.extra.get("timings", {}),
                time.monotonic() - started,
            )
    return verdict.exit_code


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
