"""`grill task list|start|watch|hint|solution|open`: practise code tasks in your own editor.

The loop, as rustlings and Exercism have it: `start` writes a task's starter to a file, your
editor changes it, `watch` (or `grill check --task`) grades it as the app would and records the
attempt, `hint` gives the card's hints one at a time, `solution` shows the reference once it is
earned (`app.practice.solution`). Exit status: 0 done; 1 refused (a file that exists, a
solution not earned yet) or the history cannot be used; 2 a usage error (an unknown task, a
file that cannot be graded).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from app.clock import to_utc, utc_now
from app.wording import comes_back, count

if TYPE_CHECKING:
    from app.practice.watch import Event
    from app.progress.attempt import Attempt
    from app.progress.history import History
    from app.progress.rating import Rating
    from checkers.verdict import Verdict
    from questions.library import Library, LoadedCard
    from questions.model import CodeTask

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_GRILL = 0, 1, 2, 4

SEEN_NOTE = {
    "asked": " (the solution was shown before you had solved or tried the task)",
    "copied": " (this is the reference solution, graded after you viewed it)",
}
"""Why a recorded attempt is capped at Again by the solution having been seen."""


def run(args: argparse.Namespace) -> int:
    return {
        "list": list_tasks,
        "next": next_task,
        "start": start,
        "watch": watch,
        "hint": hint,
        "solution": solution,
        "open": open_in_app,
    }[args.task_command](args)


# -- shared ------------------------------------------------------------------------------


def load_library(command: str, packs: list[str] | None = None) -> Library | None:
    from app.commands.notes import report_pack_problems
    from app.paths import load_packs
    from questions.library import UnknownPack

    library = load_packs()
    report_pack_problems(_name(command), library)
    if packs:
        try:
            return library.only(packs)
        except UnknownPack as error:
            print(f"grill {_name(command)}: error: {error}", file=sys.stderr)
            return None
    return library


def load_task(
    command: str, card_id: str, library: Library | None = None
) -> tuple[LoadedCard, CodeTask] | None:
    """The card and its code task, or None having said (one line) why there is none."""
    from app.practice.tasks import TaskNotFound, find_task

    library = library or load_library(command)
    if library is None:
        return None
    try:
        return find_task(library, card_id)
    except TaskNotFound as error:
        print(f"grill {_name(command)}: error: {error}", file=sys.stderr)
        return None


def open_history(command: str, advice: str = "") -> History | None:
    from app.progress.history import History, HistoryError

    try:
        return History.open()
    except HistoryError as error:
        print(f"grill {_name(command)}: {error}{advice}", file=sys.stderr)
        return None


def _name(command: str) -> str:
    return command if command == "check" else f"task {command}"


def _day(moment: datetime) -> str:
    """When something happened, as the user's calendar has it: the day-start hour decides what
    a day of practice counts, not the date printed beside a check made at 1 a.m."""
    return to_utc(moment).astimezone().date().isoformat()


class Recorder:
    """Records a graded fix as an attempt, as the app's self-grade would, and remembers the
    grader's word on it for `grill task hint`. Says what it did on standard error, so standard
    output keeps the verdict (or its JSON) alone."""

    def __init__(
        self, command: str, history: History, card: LoadedCard, *, rating: Rating | None = None
    ) -> None:
        from app.ui.settings import Settings

        self.command, self.history, self.card, self.rating = command, history, card, rating
        self.level = Settings.load(history).level
        self.recorded: list[Attempt] = []

    def graded(
        self, path: str, source: str, verdict: Verdict, code_seconds: float | None = None
    ) -> None:
        from app.practice.hints import remember_check
        from app.practice.solution import pending_view, viewed_for
        from app.practice.tasks import fix_attempt, same_as_last
        from app.progress.history import HistoryError

        card_id = self.card.card.id
        say = self._say
        if verdict.exit_code == EXIT_GRILL:
            say("not recorded: grill itself could not grade it, so it says nothing of your fix")
            return
        now = utc_now()
        try:
            earlier = [a for a in self.history.attempts(card_id) if a.code is not None]
            remember_check(self.history, card_id, verdict, now)
            if same_as_last(earlier, source, verdict):
                say(
                    f"not recorded again: your last attempt ({_day(earlier[-1].started_at)}) was"
                    " this same code, graded the same"
                )
                return
            task = self.card.card.code_task
            view = pending_view(self.history, card_id)
            attempt = fix_attempt(
                self.card,
                verdict,
                source,
                level=self.level,
                started_at=now,
                rating=self.rating,
                code_seconds=code_seconds,
                solution_viewed=viewed_for(view, source, task.solution if task else ""),
            )
            self.history.record(attempt)
            due = self.history.due_dates().get(card_id)
        except HistoryError as error:
            say(f"not recorded: {error}")
            return
        self.recorded.append(attempt)
        back = f" · back {comes_back(due, now)}" if due else ""
        say(
            f"recorded an attempt on {card_id}: rated {attempt.rating.capitalize()}"
            f"{SEEN_NOTE.get(attempt.solution_viewed or '', '')}{back}"
        )
        if verdict.verdict != "clean":
            say(f"stuck? grill task hint {card_id}")

    def _say(self, text: str) -> None:
        print(f"grill {_name(self.command)}: {text}", file=sys.stderr, flush=True)


# -- list ----------------------------------------------------------------------------------


def list_tasks(args: argparse.Namespace) -> int:
    import json

    from app.practice.tasks import code_tasks, task_statuses

    library = load_library("list", args.pack)
    if library is None:
        return EXIT_USAGE
    history = open_history("list")
    if history is None:
        return EXIT_REFUSED
    with history:
        attempts = history.attempts()
    statuses = task_statuses(code_tasks(library), attempts)
    tally = {state: sum(s.state == state for s in statuses) for state in ("solved", "attempted")}
    if args.json:
        print(
            json.dumps(
                {
                    "tasks": [s.to_dict() for s in statuses],
                    "total": len(statuses),
                    "solved": tally["solved"],
                    "attempted": tally["attempted"],
                    "not_started": len(statuses) - tally["solved"] - tally["attempted"],
                },
                indent=2,
            )
        )
        return EXIT_OK
    if not statuses:
        print("No code tasks in the loaded packs.")
        return EXIT_OK
    rows = [("task", "pack", "level", "state")]
    for number, status in enumerate(statuses, 1):
        state: str = status.state
        if status.last_verdict is not None and status.last_at is not None:
            state += f" · last {status.last_verdict} {_day(status.last_at)}"
        level = status.level + (f" · ranked ×{status.ranks}" if status.ranks else "")
        rows.append((f"{number:>2}. {status.card_id}", status.pack, level, state))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
            + "  "
            + row[3]
        )
    not_started = len(statuses) - tally["solved"] - tally["attempted"]
    print(
        f"\n{tally['solved']} of {count(len(statuses), 'task')} solved · "
        f"{tally['attempted']} attempted · {not_started} not started"
    )
    print("In each pack's track order, easy before hard; the next: grill task next")
    return EXIT_OK


# -- next ----------------------------------------------------------------------------------


def next_task(args: argparse.Namespace) -> int:
    """The first task not solved yet, in track order, and the command that starts it."""
    from app.practice.tasks import code_tasks, next_task, task_statuses

    library = load_library("next", args.pack)
    if library is None:
        return EXIT_USAGE
    history = open_history("next")
    if history is None:
        return EXIT_REFUSED
    with history:
        attempts = history.attempts()
    statuses = task_statuses(code_tasks(library), attempts)
    found = next_task(statuses)
    if found is None:
        print(
            f"Every task solved ({count(len(statuses), 'task')})."
            if statuses
            else "No code tasks in the loaded packs."
        )
        return EXIT_OK
    ranked = f", ranked ×{found.ranks}" if found.ranks else ""
    solved = sum(status.state == "solved" for status in statuses)
    print(
        f"Next: {found.card_id} ({found.pack}, {found.level}{ranked}): {found.state}"
        f" · {solved} of {count(len(statuses), 'task')} solved"
    )
    print(f"Start it: grill task start {found.card_id} [DIR]")
    return EXIT_OK


# -- start ---------------------------------------------------------------------------------


def start(args: argparse.Namespace) -> int:
    from app.practice.tasks import starter_file
    from checkers.outputs import write_whole

    found = load_task("start", args.card_id)
    if found is None:
        return EXIT_USAGE
    card, task = found
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        print(f"grill task start: error: {folder}: not a folder", file=sys.stderr)
        return EXIT_USAGE
    path = folder / f"{card.card.id}.py"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_whole(path, starter_file(card, task, str(path)), replace=False)
    except FileExistsError:
        print(
            f"grill task start: {path} already exists, and grill never overwrites a file: "
            f"check it with `grill check --task {card.card.id} {path}`, or move it away to start again",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    except OSError as error:  # a full disk: nothing is left of the file, so a retry works
        print(f"grill task start: {path} cannot be written ({error.strerror})", file=sys.stderr)
        return EXIT_REFUSED
    print(f"Wrote {path}: the starter of {card.card.id} ({card.pack}, {card.card.level}).")
    print(f"Edit it in your editor, then: grill task watch {card.card.id} {path}")
    print(f"  (or once: grill check --task {card.card.id} {path})")
    return EXIT_OK


# -- watch ---------------------------------------------------------------------------------

CLEAR = "\x1b[H\x1b[2J\x1b[3J"
"""Cursor home, clear the screen and its scrollback: each verdict starts on a clean screen."""
SOLVED = "Solved: this fix keeps no graph alive and does what the task asks."
SOLVED_ROWS = 3
"""A blank row, the solved line, and the recorder's line on standard error."""
LEFT_OUT_ROWS = 2
"""A blank row and the line naming what was left out."""
NEXT_SAVE_ROWS = 2
"""The row the cursor rests on, and the `… checking` line the next save prints below."""


class WatchView:
    """Shows the watch's events: on a terminal each verdict on a cleared screen, cut to its
    height unless `full`, elsewhere (a pipe, a log) whole, one after the other under a rule;
    records the session's attempt."""

    def __init__(
        self, card: LoadedCard, path: Path, recorder: Recorder | None, *, full: bool = False
    ) -> None:
        self.card, self.path, self.recorder, self.full = card, path, recorder, full
        self.tty = sys.stdout.isatty()
        self.started = time.monotonic()
        self.last: tuple[str, Verdict] | None = None
        """The session's attempt: the last text graded and its verdict, until one is clean."""
        self.solved: tuple[str, Verdict] | None = None
        self.recorded = False

    def show(self, event: Event) -> None:
        from app.practice.watch import Graded, Grading, Unusable

        card_id = self.card.card.id
        if isinstance(event, Grading):
            note = "saved again: checking the new version" if event.again else "checking"
            self._write(f"… {note} {self.path}\n")
            return
        self._new_screen()
        stamp = datetime.now().strftime("%H:%M:%S")
        footer = (
            f"\nWatching {self.path}: every save checks it again · grill task hint {card_id}"
            " · Ctrl+C ends\n"
        )
        if isinstance(event, Graded):
            solves = self._graded(event.source, event.verdict)  # recorded before it is shown
            checked = f"{card_id} · {self.path} · checked at {stamp} in {event.seconds:.2f} s"
            self._write(self._verdict_screen(event.verdict, checked, footer, solves))
            if solves:
                self._write(f"\n{SOLVED}\n")
        elif isinstance(event, Unusable):
            self._write(f"{card_id} · {stamp}\n\nNot checked: {event.message}\n")
        else:
            self._write(f"{card_id} · {stamp}\n\ngrill could not grade it: {event.message}\n")
        self._write(footer)

    def _verdict_screen(self, verdict: Verdict, checked: str, footer: str, solves: bool) -> str:
        """The headline, the line saying what was checked when, and the details: on a terminal,
        those that fit its height (`--full`, or a pipe, gets them all)."""
        import shutil

        from app.practice.watch_screen import fit, rows
        from checkers.report import ESSENTIAL, sections

        (_, headline), *details = sections(verdict)
        top = f"{headline}\n{checked}\n\n"
        if self.full or not self.tty:
            return top + "\n\n".join(text for _, text in details) + "\n"
        size = shutil.get_terminal_size()
        below = rows(footer, size.columns) + (SOLVED_ROWS if solves else 0)
        budget = size.lines - rows(top, size.columns) - below - LEFT_OUT_ROWS - NEXT_SAVE_ROWS
        fitted = fit(details, ESSENTIAL, budget, size.columns)
        left_out = (
            f"\n\n(left out to fit the screen: {', '.join(fitted.left_out)}; --full shows all)"
            if fitted.left_out
            else ""
        )
        return top + fitted.text + left_out + "\n"

    def _graded(self, source: str, verdict: Verdict) -> bool:
        """Keep the verdict as the session's attempt; True when it solves the task (the attempt
        is recorded then)."""
        if verdict.exit_code == EXIT_GRILL:
            return False
        if self.solved is None:
            self.last = (source, verdict)
        if verdict.verdict == "clean" and self.solved is None:
            self.solved = (source, verdict)
            self._record()
            return True
        return False

    def finish(self) -> None:
        """At the end: the session's attempt, if it is not recorded yet (Ctrl+C may have come
        while it was): the first clean verdict, else the last one."""
        self._record()

    def _record(self) -> None:
        if self.recorder is None or self.recorded or self.last is None:
            return
        source, verdict = self.last
        self.recorder.graded(str(self.path), source, verdict, time.monotonic() - self.started)
        self.recorded = True

    def _new_screen(self) -> None:
        self._write(CLEAR if self.tty else "\n" + "─" * 80 + "\n")

    def _write(self, text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()


def watch(args: argparse.Namespace) -> int:
    from app.practice.watch import Watch
    from checkers.api import UsageError, grade_task, grading_sandbox, read_fix
    from checkers.cli import task_on
    from checkers.sandbox import SandboxError

    found = load_task("watch", args.card_id)
    if found is None:
        return EXIT_USAGE
    card, task = found
    path = Path(args.file)
    try:
        read_fix(path)
    except UsageError as error:
        print(f"grill task watch: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    history = None
    if not args.no_record:
        history = open_history("watch", "; --no-record watches without recording")
        if history is None:
            return EXIT_REFUSED
    spec = task_on(task.spec, args.device)
    sandbox = grading_sandbox(spec.grading.device)
    recorder = Recorder("watch", history, card) if history else None
    view = WatchView(card, path, recorder, full=args.full)
    try:
        print(f"Starting the sandbox to watch {path} (Ctrl+C ends)…", flush=True)
        try:
            sandbox.start()
        except SandboxError as error:
            print(f"grill task watch: the sandbox could not start: {error}", file=sys.stderr)
            return EXIT_GRILL

        def grade(source: str) -> Verdict:
            return grade_task(source, spec, sandbox=sandbox, filename=str(path))

        try:
            Watch(path, grade, sandbox.cancel, view.show).run()
        except KeyboardInterrupt:
            pass
        finally:  # Ctrl+C, or SIGTERM and SIGHUP (SystemExit): the worker stops, the attempt stays
            sandbox.close()
            view.finish()
        print(f"\nStopped watching {path}.", flush=True)
        return EXIT_OK
    finally:
        sandbox.close()
        if history is not None:
            history.close()


# -- hint ----------------------------------------------------------------------------------


def hint(args: argparse.Namespace) -> int:
    from app.practice.hints import hints_shown, last_check, record_hints_shown
    from app.progress.history import HistoryError

    found = load_task("hint", args.card_id)
    if found is None:
        return EXIT_USAGE
    card, task = found
    card_id = card.card.id
    history = open_history("hint")
    if history is None:
        return EXIT_REFUSED
    hints = task.hints
    with history:
        try:
            shown = hints_shown(history, card_id)
            if not args.grader and shown < len(hints):
                record_hints_shown(history, card_id, shown + 1)  # recorded, then shown
                print(f"Hint {shown + 1} of {len(hints)}: {hints[shown]}")
                if shown + 1 == len(hints):
                    print(
                        "\nThat was the card's last hint; `grill task hint` now gives the grader's"
                        " hint on your last check."
                    )
                else:
                    print(f"\n`grill task hint {card_id}` again for the next one.")
                return EXIT_OK
            if not args.grader:
                print(f"The card's {count(len(hints), 'hint')}, all shown:")
                for number, text in enumerate(hints, 1):
                    print(f"{number}. {text}")
                print()
            checked = last_check(history, card_id)
        except HistoryError as error:
            print(f"grill task hint: {error}", file=sys.stderr)
            return EXIT_REFUSED
    if checked is None:
        print(
            "The grader's hint answers a check of your fix, and there is none yet: "
            f"grill check --task {card_id} FILE"
        )
    elif checked.verdict == "clean":
        print(f"Your last check ({_day(checked.at)}) was clean: {checked.message}")
    else:
        print(f"The grader on your last check ({checked.verdict}, {_day(checked.at)}):")
        print(checked.hint or checked.message)
    return EXIT_OK


# -- solution ------------------------------------------------------------------------------


def solution(args: argparse.Namespace) -> int:
    """The reference solution once earned (`app.practice.solution`), or on `--give-up`, which
    caps the next attempt at Again; the view is kept in the history either way."""
    from app.practice.solution import earned_by, graded_fixes, record_view
    from app.practice.tasks import strip_header
    from app.progress.history import HistoryError
    from checkers.api import UsageError, read_fix

    found = load_task("solution", args.card_id)
    if found is None:
        return EXIT_USAGE
    card, task = found
    card_id = card.card.id
    yours = None
    if args.file is not None:
        try:
            yours = strip_header(read_fix(args.file, parse=False))
        except UsageError as error:
            print(f"grill task solution: error: {error}", file=sys.stderr)
            return EXIT_USAGE
    history = open_history("solution")
    if history is None:
        return EXIT_REFUSED
    with history:
        try:
            earned = earned_by(graded_fixes(history.attempts(card_id)), task.starter)
            if earned is None and not args.give_up:
                print(
                    "grill task solution: the reference solution opens once you have solved the "
                    "task or graded a fix of your own (a change to the starter): "
                    f"grill check --task {card_id} FILE. `grill task solution {card_id} "
                    "--give-up` shows it now, and your next attempt on it is recorded as Again.",
                    file=sys.stderr,
                )
                return EXIT_REFUSED
            record_view(history, card_id, asked=earned is None, at=utc_now())
        except HistoryError as error:
            print(f"grill task solution: {error}", file=sys.stderr)
            return EXIT_REFUSED
    if earned is None:
        print(
            f"grill task solution: shown before you solved or tried {card_id}: your next attempt"
            " on it is recorded as Again.",
            file=sys.stderr,
        )
    if yours is None:
        sys.stdout.write(task.solution.rstrip("\n") + "\n")
        return EXIT_OK
    lines = list(
        difflib.unified_diff(
            yours.splitlines(),
            task.solution.splitlines(),
            str(args.file),
            "reference solution",
            lineterm="",
        )
    )
    if not lines:
        print(f"{args.file} is the reference solution, line for line.")
        return EXIT_OK
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    styles = {"-": "\x1b[31m", "+": "\x1b[32m", "@": "\x1b[36m"}
    for line in lines:
        style = styles.get(line[:1], "") if colour else ""
        print(f"{style}{line}\x1b[0m" if style else line)
    return EXIT_OK


# -- open ----------------------------------------------------------------------------------


def open_in_app(args: argparse.Namespace) -> int:
    from app.practice.tasks import strip_header
    from checkers.api import UsageError, read_fix

    library = load_library("open")
    found = load_task("open", args.card_id, library)
    if found is None:
        return EXIT_USAGE
    card, _ = found
    code = None
    if args.file is not None:
        try:  # a file that does not parse yet is fine: the app is where it gets fixed
            code = strip_header(read_fix(args.file, parse=False))
        except UsageError as error:
            print(f"grill task open: error: {error}", file=sys.stderr)
            return EXIT_USAGE
    from app.ui.app import GrillApp
    from app.ui.screens.practice import PracticeScreen
    from app.ui.terminal import run_in_terminal

    def screen() -> PracticeScreen:
        return PracticeScreen([card], code=code, code_from=args.file)

    run_in_terminal(GrillApp(library, then=screen))
    return EXIT_OK
