"""The checks an existing history file passes before grill uses it, and before grill writes to it.

Every command opens the file through `check_usable`, which looks read-only: SQLite's
`PRAGMA quick_check` reads every page and verifies the structure of every table and index, so
a damaged page is found wherever it is, not only when a query happens to reach it (at 100,000
attempts, about 100 MB: 0.1 s here). It does not match index entries against their rows;
damage confined to an index entry passes it, and only the queries that use that entry fail.
So before its first write a command also runs `check_before_writing`, the full
`integrity_check`, which does (0.64 s at 100,000 attempts, 15 ms at 5,000): a file any command
refuses is never written by another. Measured over copies of a history with a page or a few
bytes damaged in `tests/progress/test_damaged_history.py` and docs/progress.md.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from app.progress.errors import HistoryError, damaged, error_for
from app.progress.schema import APPLICATION_ID, SCHEMA_VERSION, schema_version
from checkers.inputs import describe_mode

SQLITE_COMPANIONS = ("-journal", "-wal", "-shm")
"""What SQLite keeps beside a database and opens with it: the rollback journal, the write-ahead
log, and the log's index."""


def check_file_kinds(path: Path) -> os.stat_result | None:
    """The history file's status, None when there is none yet; HistoryError when it, or a file
    SQLite keeps beside it, is not a plain file. SQLite would say 'disk I/O error' for a folder,
    and on a named pipe it reads, and waits, for ever: its reads retry when a signal arrives,
    so not even SIGTERM ends the wait."""
    found = None
    for suffix in ("", *SQLITE_COMPANIONS):
        companion = path.with_name(path.name + suffix)
        try:
            status = companion.stat()
        except FileNotFoundError:
            continue
        except OSError as error:
            raise HistoryError(
                path,
                f"its folder cannot be read ({error.strerror})",
                "check the folder's permissions, or set GRILL_HOME to a folder you can use",
            ) from error
        if not stat.S_ISREG(status.st_mode):
            what = describe_mode(status.st_mode)
            raise HistoryError(
                path,
                f"it is {what}, not a history file"
                if not suffix
                else f"{companion.name} beside it, where SQLite keeps the file's journal, is "
                f"{what}, not a plain file",
                f"grill left {'it' if not suffix else 'both'} untouched: move "
                f"{'it' if not suffix else companion.name} aside, or set GRILL_HOME to another "
                "folder",
            )
        if not suffix:
            found = status
    return found


class _HotJournal(Exception):
    """A crash interrupted a write and left its rollback journal, which a read-only look cannot undo."""


def check_usable(path: Path, busy_timeout_s: float) -> None:
    """Raise HistoryError unless the existing, non-empty file at `path` is a history grill can use.

    The one change it may make is the one SQLite makes on any open that may write: a journal
    left by a crash in the middle of a write is rolled back (see `_roll_back`), then the
    restored file is checked like any other.
    """
    try:
        _inspect(path, busy_timeout_s)
    except _HotJournal:
        _roll_back(path, busy_timeout_s)
        _inspect(path, busy_timeout_s)


def _inspect(path: Path, busy_timeout_s: float) -> None:
    try:
        probe = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout_s
        )
    except sqlite3.Error as error:
        raise error_for(path, error, busy_timeout_s) from error
    try:
        application_id = probe.execute("PRAGMA application_id").fetchone()[0]
        version = schema_version(probe)
        has_tables = probe.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        _check_identity(path, application_id, version, has_tables)
        verdict = probe.execute("PRAGMA quick_check(1)").fetchone()[0]
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorname", "") == "SQLITE_READONLY_ROLLBACK":
            raise _HotJournal from error
        raise error_for(path, error, busy_timeout_s) from error
    finally:
        probe.close()
    if verdict != "ok":
        raise damaged(path)


def _check_identity(path: Path, application_id: int, version: int, has_tables: bool) -> None:
    if application_id != APPLICATION_ID and (version or has_tables):
        raise HistoryError(
            path,
            "it is an SQLite database, but not one grill wrote",
            "grill left it untouched: point GRILL_HOME at another folder, or move the file aside",
        )
    if version > SCHEMA_VERSION:
        raise HistoryError(
            path,
            f"it was written by a newer grill (schema version {version}; "
            f"this grill reads up to {SCHEMA_VERSION})",
            "upgrade grill to use it; grill left the file untouched",
        )
    if version < 0 or (version == 0 and has_tables):
        # grill sets the version in the same transaction that creates its tables.
        raise HistoryError(
            path,
            f"its schema version {version} is not one grill ever wrote",
            "grill left it untouched: move it aside to start a fresh history, "
            "or restore it from a backup",
        )


def _roll_back(path: Path, busy_timeout_s: float) -> None:
    """Let SQLite undo the interrupted write, as it does on the first read of any connection
    that may write: the journal holds the pages as they were before that write began, so the
    file returns to its last committed state (SQLite's own crash recovery)."""
    try:
        connection = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout_s
        )
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
            raise damaged(path) from error
        raise HistoryError(
            path,
            f"a crash interrupted a write and left {path.name}-journal, which SQLite "
            f"must roll back before the file can be read, and it cannot ({error})",
            "check that you can write to the file and its folder (SQLite rolls the journal "
            "back and deletes it), then try again",
        ) from error


def check_before_writing(connection: sqlite3.Connection, path: Path) -> None:
    """Raise HistoryError unless the full `integrity_check` passes (see the module's docstring)."""
    if connection.execute("PRAGMA integrity_check(1)").fetchone()[0] != "ok":
        raise damaged(path)
