"""`grill lint`: print every problem in the given packs or cards; exit 0 when clean, 1 when not."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.paths import load_packs, pack_search_path
from app.wording import count
from questions.library import LoadedCard, Problem
from questions.lint import (
    LintReport,
    clashes,
    grade_code_tasks,
    lint_paths,
    lint_search_path,
    sort_problems,
)
from questions.loader import CARD_SUFFIX, pack_folders
from questions.model import CodeTask

if TYPE_CHECKING:
    from checkers.sandbox import Sandbox
    from checkers.verdict import Device, Verdict

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
MOST_WORKERS = 4
"""`--run` grades at most this many code tasks at once (each worker holds torch in memory)."""


BUSY_SAMPLE_S = 0.25
"""How long `--run` watches the cores before it decides how many workers to start."""


def idle_cores() -> int:
    """How many code tasks `--run` grades at once: one per core the machine leaves idle (a run
    is CPU-bound; on a busy machine more workers only share the same cores), at least one and
    at most `MOST_WORKERS`. The cores busy now, where the system says (Linux's /proc/stat);
    elsewhere the load average, which lags a minute behind: right after a test suite it read
    1.3 on two quiet cores and `--run` started one worker."""
    busy = busy_cores_now()
    if busy is None:
        busy = os.getloadavg()[0]
    idle = (os.cpu_count() or 1) - int(busy)
    return max(1, min(idle, MOST_WORKERS))


def busy_cores_now(seconds: float = BUSY_SAMPLE_S) -> float | None:
    """How many cores' worth of time was spent busy over the next `seconds`, from /proc/stat's
    first line (its idle and iowait columns are idle time); None where there is no such file."""

    def times() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as stat:
                fields = [int(field) for field in stat.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        return sum(fields), sum(fields[3:5])

    before = times()
    if before is None:
        return None
    time.sleep(seconds)
    after = times()
    if after is None or after[0] <= before[0]:
        return None
    idle_share = (after[1] - before[1]) / (after[0] - before[0])
    return (os.cpu_count() or 1) * (1.0 - idle_share)


class LintWorkers:
    """One warm grading sandbox per thread and device: a task's runs go to its thread's own
    worker, so tasks graded at once never wait for each other's runs. The first thread to
    grade on a device uses the process's shared sandbox (warm already where this process
    graded before); the others start their own, closed at the end."""

    def __init__(
        self, shared: Callable[[Device], Sandbox], make: Callable[[Device], Sandbox]
    ) -> None:
        self._shared = shared
        self._make = make
        self._local = threading.local()
        self._lock = threading.Lock()
        self._devices: set[Device] = set()
        self._opened: list[Sandbox] = []

    def own(self, device: Device) -> Sandbox:
        """This thread's sandbox for `device`, made on first use."""
        mine: dict[Device, Sandbox] = self._local.__dict__.setdefault("sandboxes", {})
        if device not in mine:
            with self._lock:
                first = device not in self._devices
                self._devices.add(device)
            mine[device] = self._shared(device) if first else self._make(device)
            if not first:
                with self._lock:
                    self._opened.append(mine[device])
        return mine[device]

    @property
    def used(self) -> int:
        """How many warm workers graded: the shared ones and those started here."""
        return len(self._devices) + len(self._opened)

    def close(self) -> None:
        for sandbox in self._opened:
            sandbox.close()


def run(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths]
    for path in paths:
        error = _usage_error(path)
        if error:
            print(f"grill lint: {path}: {error}", file=sys.stderr)
            return EXIT_USAGE
    return _watch(args, paths) if args.watch else _lint(args, paths)


WATCH_POLL_S = 0.25
"""How often `--watch` looks at the files: a save is linted again within this."""


def _watch(args: argparse.Namespace, paths: list[Path]) -> int:
    """Lint again whenever a file under the paths changes, on a cleared screen on a terminal,
    until Ctrl+C (exit 0): an author's loop as `grill task watch` is a candidate's."""
    import time

    roots = paths or pack_search_path()
    shown = ", ".join(str(p) for p in paths) or "every pack grill loads"
    seen: object = None
    try:
        while True:
            current = _files_state(roots)
            if current != seen:
                seen = current
                if sys.stdout.isatty():
                    sys.stdout.write("\x1b[H\x1b[2J\x1b[3J")
                _lint(args, paths)
                print(f"\nWatching {shown}: every save lints again · Ctrl+C ends", flush=True)
            time.sleep(WATCH_POLL_S)
    except KeyboardInterrupt:
        print(f"\nStopped watching {shown}.", flush=True)
        return EXIT_CLEAN


def _files_state(roots: list[Path]) -> list[tuple[str, int, int]]:
    """Each card and manifest under `roots` (files, or folders walked), with its size and
    modification time: what a save changes."""
    found = []
    for root in roots:
        walked = [(str(root.parent), [], [root.name])] if root.is_file() else os.walk(root)
        for folder, _, names in walked:
            for name in names:
                if name.endswith(CARD_SUFFIX):
                    path = os.path.join(folder, name)
                    try:
                        status = os.stat(path)
                    except OSError:
                        continue
                    found.append((path, status.st_size, status.st_mtime_ns))
    return sorted(found)


def _lint(args: argparse.Namespace, paths: list[Path]) -> int:
    if paths:
        report = lint_paths(paths)
        report.problems = sort_problems(report.problems + clashes(report.cards, load_packs()))
    else:
        report = lint_search_path(pack_search_path())
    problems = report.problems
    if args.run:
        try:
            from checkers.api import (  # only for --run
                grade_task,
                grading_sandbox,
                shared_sandbox,
                worker_device,
            )
        except ImportError as error:
            print(f"grill lint --run: the grader is not available ({error})", file=sys.stderr)
            return EXIT_USAGE
        workers = LintWorkers(shared_sandbox, grading_sandbox)

        def grade(source: str, task: CodeTask) -> Verdict:
            sandbox = workers.own(worker_device(task.spec.grading.device))
            return grade_task(source, task.spec, sandbox=sandbox, filename="<code task>")

        start = time.monotonic()
        try:
            graded = grade_code_tasks(report.cards, grade, _show_progress, workers=idle_cores())
        finally:
            workers.close()
        problems = sort_problems(problems + graded)
        tasks = sum(1 for loaded in report.cards if loaded.card.code_task)
        print(
            f"graded {count(tasks, 'code task')} in {time.monotonic() - start:.0f} s"
            f" on {count(workers.used, 'warm worker')}",
            file=sys.stderr,
        )
    problems = [replace(p, path=_shown(p.path)) for p in problems]
    if args.json:
        print(json.dumps([p.to_dict() for p in problems], indent=2))
    else:
        for problem in problems:
            print(problem)
        print(_summary(report, problems))
    return EXIT_PROBLEMS if problems else EXIT_CLEAN


def _usage_error(path: Path) -> str:
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "no such file or folder"
    except OSError as error:
        return f"cannot be reached ({error.strerror})"
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return "not a plain file or folder (a pipe, socket or device)"
    if stat.S_ISREG(mode) and path.suffix != CARD_SUFFIX:
        return f"not a card file (cards end in {CARD_SUFFIX})"
    if stat.S_ISDIR(mode):
        found: list[
            Problem
        ] = []  # a folder of cards without pack.yaml, or one that cannot be read, is a lint problem
        if not pack_folders(path, found) and not found:
            return "no pack here (no pack.yaml in it or in its sub-folders)"
    return ""


def _shown(path: str) -> str:
    """Paths under the working folder are shown relative to it, as a user would type them."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _summary(report: LintReport, problems: list[Problem]) -> str:
    checked = f"{count(len(report.cards), 'card')} loaded"
    if not problems:
        return f"no problems; {checked}"
    files = len({p.path for p in problems})
    return f"{count(len(problems), 'problem')} in {count(files, 'file')}; {checked}"


def _show_progress(card: LoadedCard, part: str) -> None:
    print(f"grading {card.card.id} {part}...", file=sys.stderr, flush=True)
