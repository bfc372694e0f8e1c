"""`grill` command line: the argument tree, and lazy dispatch to one module per command."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from app.mock.limits import MINUTES, QUESTIONS, SEED
from app.progress.rating import RATINGS
from checkers.cli import add_check_arguments, fault_line
from checkers.inputs import SECONDS, STEPS, Range
from checkers.sandbox.ending import ending, ending_cleanly
from checkers.streams import prepare_standard_streams
from checkers.verdict import DEVICES
from questions.levels import LEVELS

QUEUE_DAYS = Range("--days (how many days ahead)", 0, 3650, whole=True)

EXIT_USAGE, EXIT_GRILL = 2, 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grill",
        description="Interview practice in the terminal. With no command, opens the app.",
    )
    parser.add_argument(
        "--version", action=_PrintVersion, nargs=0, help="print grill's version and exit"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, target: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.set_defaults(target=target)
        return sub

    practice = command("practice", "app.commands.practice:run", "practise cards in the app")
    practice.add_argument("--due", action="store_true", help="start with the cards due today")
    practice.add_argument(
        "--pack", action="append", default=[], metavar="P", help="only this pack (repeatable)"
    )

    mock = command("mock", "app.commands.mock:run", "a timed mock interview")
    mock.add_argument(
        "--pack", action="append", default=[], metavar="P", help="draw from this pack (repeatable)"
    )
    mock.add_argument(
        "--level", choices=LEVELS, default="middle", help="the level you interview for"
    )
    mock.add_argument(
        "--questions",
        type=QUESTIONS.parse_whole,
        default=5,
        metavar="N",
        help="how many questions (default 5)",
    )
    mock.add_argument("--minutes", type=MINUTES.parse, metavar="M", help="overall time limit")
    mock.add_argument(
        "--seed", type=SEED.parse_whole, metavar="S", help="make the draw reproducible"
    )
    mock.add_argument(
        "--interviewer",
        action="store_true",
        help="two people: one asks and ticks, one answers aloud",
    )
    mock.add_argument("--report", metavar="FILE", help="also write the final report as Markdown")

    check = command(
        "check",
        "app.commands.check:run",
        "grade PyTorch training-loop snippets: does autograd graph pile up as they train?",
    )
    add_check_arguments(check)
    check.add_argument(
        "--no-record",
        action="store_true",
        help="with --task: do not record the attempt in the history (for CI)",
    )
    check.add_argument(
        "--rating",
        choices=RATINGS,
        help="with --task: the rating to record (default: good when clean, hard for a leak or"
        " a broken contract, again when not graded; capped by the verdict as in the app)",
    )

    add_run_arguments(
        command(
            "run",
            "app.commands.run:run",
            "run YOUR OWN training script, unsandboxed, as you would with python, and say"
            " whether autograd graph piles up as it trains",
        )
    )

    add_task_commands(
        command(
            "task",
            "app.commands.task:run",
            "practise code tasks in your own editor: list, next, start, watch, hint, solution, open",
        )
    )

    lint = command("lint", "app.commands.lint:run", "validate question packs or cards")
    lint.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="packs or card files (default: every pack grill loads)",
    )
    lint.add_argument("--json", action="store_true", help="print problems as a JSON list")
    lint.add_argument(
        "--watch",
        action="store_true",
        help="lint again each time a card or pack.yaml under the paths is saved; Ctrl+C ends",
    )
    lint.add_argument(
        "--run",
        action="store_true",
        help="also grade each code task: the starter must fail as its starter_fails says (leak,"
        " or wrong: the task's contract broken) and the solution must grade clean",
    )

    new = command(
        "new",
        "app.commands.new:run",
        "write a card skeleton to fill in (never overwrites a file)",
    )
    new.add_argument(
        "pack_dir",
        metavar="PACK_DIR",
        help="the pack's folder, made if missing; a pack.yaml and the JSON Schemas are written"
        " into it when it has none",
    )
    new.add_argument(
        "card_id",
        metavar="CARD_ID",
        help="the new card's id and file name: lower-case words joined by hyphens, such as"
        " retained-graph",
    )

    schema = command(
        "schema",
        "app.commands.schema:run",
        "copy the card and pack JSON Schemas into a pack's folder, for editors; or print the"
        " JSON Schema of the --json verdict (--verdict)",
    )
    schema.add_argument(
        "dir", nargs="?", default=None, metavar="DIR", help="the pack's folder (default: here)"
    )
    schema.add_argument(
        "--verdict",
        action="store_true",
        help="print the JSON Schema of `grill check --json` and `grill run --json` instead",
    )

    queue = command(
        "queue",
        "app.commands.queue:run",
        "the queue d practises: today's, or another day's with --days (nothing is recorded)",
    )
    queue.add_argument(
        "--days", type=QUEUE_DAYS.parse, default=0, metavar="N", help="N days ahead (default 0)"
    )
    queue.add_argument(
        "--pack", action="append", default=[], metavar="P", help="only this pack (repeatable)"
    )

    stats = command("stats", "app.commands.stats:run", "print progress figures")
    stats.add_argument("--json", action="store_true", help="as JSON")

    export = command("export", "app.commands.export:run", "export progress or the full history")
    export.add_argument(
        "--format",
        choices=("md", "json"),
        default="md",
        help="md: readable report; json: full history",
    )
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write here instead of standard output"
    )

    import_ = command(
        "import", "app.commands.import_:run", "merge a JSON export into the history (idempotent)"
    )
    import_.add_argument("file", metavar="FILE")
    return parser


def add_run_arguments(run: argparse.ArgumentParser) -> None:
    """`grill run [OPTIONS] [--] [python] SCRIPT ARGS...` (or `python -m MODULE ARGS...`)."""
    run.formatter_class = argparse.RawDescriptionHelpFormatter
    run.epilog = RUN_EPILOG
    run.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help="whose bytes the memory curve counts: cpu (the host heap) or cuda (the caching"
        " allocator); auto: cuda when available. The script itself puts its tensors where it"
        " likes",
    )
    run.add_argument(
        "--seconds",
        type=SECONDS.parse,
        default=None,
        metavar="S",
        help="stop the run after S seconds and judge what was seen (default: run to its end)",
    )
    run.add_argument(
        "--steps",
        type=STEPS.parse_whole,
        default=None,
        metavar="N",
        help="stop the run after N optimizer steps and judge what was seen",
    )
    run.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    run.add_argument(
        "script",
        nargs=argparse.REMAINDER,
        metavar="SCRIPT ARGS",
        help="the script and its arguments, as you would run it: train.py --lr 3e-4,"
        " -- python train.py ..., or -- python -m pkg.train ...",
    )


RUN_EPILOG = """\
grill run is NOT a sandbox: it runs the script in grill's own Python process, with your
rights, files, environment and packages, exactly as `python SCRIPT` would (use grill check for
code you do not trust). Steps are the run's own backward passes and optimizer steps; nothing
in the script is rewritten.

Under torchrun, each rank watches itself and rank 0 prints the run's verdict:
  torchrun --nproc-per-node 2 --no-python grill run train.py ARGS

exit status: 0 clean, 1 leak, 2 usage error, 3 not graded (the script raised, exited with a
failing status, or built no graph), 4 grill's own fault"""


def add_task_commands(task: argparse.ArgumentParser) -> None:
    """`grill task list|next|start|watch|hint|solution|open`."""
    tasks = task.add_subparsers(dest="task_command", metavar="TASK_COMMAND", required=True)

    def sub(name: str, help: str) -> argparse.ArgumentParser:
        return tasks.add_parser(name, help=help, description=help)

    listing = sub("list", "every code task, and where you stand on it")
    listing.add_argument(
        "--pack", action="append", default=[], metavar="P", help="only this pack (repeatable)"
    )
    listing.add_argument("--json", action="store_true", help="as JSON")

    following = sub("next", "the first task not solved yet, in each pack's track order")
    following.add_argument(
        "--pack", action="append", default=[], metavar="P", help="only this pack (repeatable)"
    )

    start = sub("start", "write a task's starter to DIR/CARD_ID.py, to fix in your own editor")
    start.add_argument("card_id", metavar="CARD_ID")
    start.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="where (default: this folder)"
    )

    watch = sub("watch", "grade FILE as a fix of the task each time you save it; Ctrl+C ends")
    watch.add_argument("card_id", metavar="CARD_ID")
    watch.add_argument("file", metavar="FILE")
    watch.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help="where to run it (auto: as the card says)",
    )
    watch.add_argument(
        "--no-record", action="store_true", help="do not record the attempt in the history"
    )
    watch.add_argument(
        "--full",
        action="store_true",
        help="every detail of each verdict (default: what fits the terminal's height)",
    )

    hint = sub("hint", "the card's next hint, one at a time; then the grader's on your last check")
    hint.add_argument("card_id", metavar="CARD_ID")
    hint.add_argument(
        "--grader",
        action="store_true",
        help="the grader's hint on your last check, whatever hints are left",
    )

    solution = sub(
        "solution",
        "the reference solution, once solved or tried with a fix of your own; with FILE, a diff"
        " against it",
    )
    solution.add_argument("card_id", metavar="CARD_ID")
    solution.add_argument("file", nargs="?", metavar="FILE")
    solution.add_argument(
        "--give-up",
        action="store_true",
        help="show it before you have solved or tried the task: your next attempt on it is"
        " recorded as Again",
    )

    opened = sub("open", "open the task in the app, with FILE's code in its editor when given")
    opened.add_argument("card_id", metavar="CARD_ID")
    opened.add_argument("file", nargs="?", metavar="FILE")


class _PrintVersion(argparse.Action):
    """`--version`, looked up only when asked for (reading the installed metadata costs startup)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"grill {grill_version()}")
        parser.exit()


def grill_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("grill")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def dispatch(target: str, args: argparse.Namespace) -> int:
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)(args)


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status. A usage error is 2 (argparse's message);
    no exception of grill's own reaches the user as a traceback: one that escapes a command is
    a single line naming it, and exit status 4 (`GRILL_TRACEBACK=1` shows the traceback)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # --help, or a usage error argparse has already explained
        return exit.code if isinstance(exit.code, int) else EXIT_USAGE
    target = getattr(args, "target", "app.commands.practice:run")
    if args.command is None:
        args.due, args.pack = False, []
    try:
        with ending_cleanly():
            status = dispatch(target, args)
            sys.stdout.flush()  # a full or broken standard output fails here, not at exit
            return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`grill export | head`): not an error worth a traceback.
        _silence_stdout()
        return 0
    except Exception as error:
        return internal_error(args.command or "practice", error)


def internal_error(command: str, error: Exception) -> int:
    """One line for an exception that escaped a command (`checkers.cli.fault_line`), exit
    status 4; the traceback only when asked for (GRILL_TRACEBACK=1)."""
    if os.environ.get("GRILL_TRACEBACK"):
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, OSError):
        _silence_stdout()  # whatever is still buffered must not fail again at exit
    try:
        print(fault_line(command, error), file=sys.stderr)
    except OSError:  # standard error itself is gone
        pass
    return EXIT_GRILL


def _silence_stdout() -> None:
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no real standard output (tests capture it)
        pass


def entry() -> NoReturn:
    """The `grill` command: `main`, then, after the app ran, a quick exit.

    Once the app has closed (history and sandbox closed, the terminal restored), tearing the
    interpreter down only frees memory the system takes back anyway, module by module: a second
    or more after the app loaded its packs and the grader's parent side. So the process leaves
    at once, after flushing its output and running its exit handlers. So does a command a
    signal ended (`ending`): the stop is bounded by the clean-up, not by the teardown, which
    takes seconds more on a busy machine.
    """
    prepare_standard_streams()
    try:
        code = main()
    except SystemExit as exit:  # SIGTERM or SIGHUP (`ending_cleanly`), or the app's refusal
        if not ending():
            raise
        code = exit.code if isinstance(exit.code, int) else EXIT_GRILL
    from app.ui import terminal

    if terminal.ran or ending():
        leave_now(code)
    sys.exit(code)


def leave_now(code: int) -> NoReturn:
    """Exit without the interpreter's teardown, but with the exit handlers (the sandbox's own
    clean-up is one) and every buffered byte of output written."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
