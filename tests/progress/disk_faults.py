"""Runs inside a private mount namespace (`unshare -m`, see test_disk_faults.py): mounts a small
tmpfs, fills it (space or inodes) or remounts it read-only, then opens a history there, and
prints what came of it as JSON. Usage: python disk_faults.py MOUNT_POINT CASE."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

from progress_factories import attempt  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
V1_ATTEMPTS = 6000
"""Enough rows that migrating the file needs megabytes: the v2 step rewrites every row and
builds the misses table and two indexes."""


def mount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], check=True)


def v1_history(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.executescript((FIXTURES / "history_v1.sql").read_text())
    rows = [
        (
            f"x{n}",
            f"card-{n % 50}",
            "practice",
            "good",
            "middle",
            f"2026-01-01T10:{n % 60:02d}:00.000000+00:00",
            json.dumps({"answer": 20}),
            "[]",
            json.dumps([f"point {k} " * 5 for k in range(4)]),
            "[]",
            "answer text " * 5,
            None,
            None,
        )
        for n in range(V1_ATTEMPTS)
    ]
    connection.executemany("INSERT INTO attempts VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    connection.commit()
    connection.close()


def current_history(path: Path) -> None:
    from app.progress.history import History

    with History.open(path) as history:
        history.record(attempt("card-1", at=datetime(2026, 1, 1, tzinfo=UTC)))


def fill_space(point: Path, leave: int) -> None:
    free = os.statvfs(point).f_bavail * os.statvfs(point).f_frsize
    with open(point / "filler", "wb") as filler:
        filler.write(b"\0" * max(free - leave, 0))


def fill_inodes(point: Path) -> None:
    (point / "fillers").mkdir()
    for n in range(1_000_000):
        try:
            (point / "fillers" / str(n)).touch()
        except OSError:
            return


def look(path: Path) -> dict:
    """The file as it is now: its bytes' hash, version and journal mode, and what lies beside it."""
    found: dict = {"files": sorted(p.name for p in path.parent.iterdir())}
    if path.exists():
        found["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        connection = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        found["version"] = connection.execute("PRAGMA user_version").fetchone()[0]
        found["journal_mode"] = "wal" if path.read_bytes()[18] == 2 else "rollback"
        found["attempts"] = connection.execute("SELECT count(*) FROM attempts").fetchone()[0]
        connection.close()
    return found


def stats(home: Path) -> dict:
    """`grill stats` on that home, through the command line's own entry point, run in this
    process: it is already a fresh one for this case alone, so a second interpreter started for
    the command would show nothing more (and cost a third of a second of CPU per case). An
    exception that escapes the entry point fails the case, as a traceback would."""
    from app.cli import main

    os.environ.update(GRILL_HOME=str(home), GRILL_PACKS="")
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
        status = main(["stats"])
    return {"status": status, "said": said.getvalue()}


def open_without_the_check_first(path: Path) -> dict:
    """Open it in process with the check before writing turned off, so the write itself fails
    (SQLite's error, diagnosed after the fact)."""
    from app.progress import history as module

    module.disk_problem = lambda *args, **kwargs: None
    try:
        module.History.open(path).close()
    except module.HistoryError as error:
        return {"status": 1, "said": str(error)}
    return {"status": 0, "said": ""}


def record_on_a_full_disk(path: Path, point: Path) -> dict:
    from app.progress.history import History, HistoryError

    with History.open(path) as history:
        fill_space(point, 0)
        try:
            for n in range(200):
                history.record(
                    attempt("card-2", at=datetime(2026, 1, 2, tzinfo=UTC), answer_text="x" * 4000)
                )
                del n
        except HistoryError as error:
            return {"status": 1, "said": str(error)}
    return {"status": 0, "said": ""}


def main() -> None:
    point, case = Path(sys.argv[1]), sys.argv[2]
    mount(point, "size=8m,nr_inodes=64" if case.startswith("inodes") else "size=8m")
    home = point / "home"
    home.mkdir()
    path = home / "history.db"
    result: dict = {}
    if case in ("full", "full-during-migration", "inodes", "inodes-during-migration", "read-only"):
        v1_history(path)
    elif case in ("read-only-current", "full-writing"):
        current_history(path)
    result["before"] = look(path)
    if case.startswith("full") and case != "full-writing":
        fill_space(point, path.stat().st_size // 2 if path.exists() else 0)
    elif case.startswith("inodes"):
        fill_inodes(point)
    elif case.startswith("read-only"):
        subprocess.run(["mount", "-o", "remount,ro", str(point)], check=True)
    if case.endswith("during-migration"):
        result.update(open_without_the_check_first(path))
    elif case == "full-writing":
        result.update(record_on_a_full_disk(path, point))
    else:
        result.update(stats(home))
    result["after"] = look(path)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
