"""Why a history file cannot be used, said as the user can act on it."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class HistoryError(Exception):
    """The history file cannot be used; says which file, what is wrong and what to do."""

    def __init__(self, path: Path, message: str, what_to_do: str):
        self.path, self.message, self.what_to_do = Path(path), message, what_to_do
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"Cannot use the history file {self.path}: {self.message}; {self.what_to_do}."


def damaged(path: Path) -> HistoryError:
    return HistoryError(
        path,
        "it is not a readable grill history (damaged, or not a database)",
        "grill left it untouched: move it aside to start a fresh history, "
        "or restore it from a backup",
    )


def error_for(path: Path, error: sqlite3.Error, busy_timeout_s: float) -> HistoryError:
    """Translate SQLite's failure into what the user can do about it."""
    name = getattr(error, "sqlite_errorname", "")
    if (
        name in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
        or "not a database" in str(error)
        or "malformed" in str(error)
    ):
        return damaged(path)
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM")) or "unable to open" in str(error):
        return HistoryError(
            path,
            f"it cannot be opened ({error})",
            "check the permissions of the file and its folder, or set GRILL_HOME to a folder you can use",
        )
    if name.startswith("SQLITE_READONLY"):
        return HistoryError(
            path,
            f"it cannot be written ({error})",
            "check the folder's permissions, or set GRILL_HOME to a writable folder",
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return HistoryError(
            path,
            f"another program (another grill?) has held it locked for over {busy_timeout_s:g} s",
            "close that program and try again; nothing was written",
        )
    if name.startswith("SQLITE_FULL"):
        return HistoryError(path, "the disk is full", "free some space and try again")
    return HistoryError(
        path, f"SQLite failed ({error})", "try again; if it persists, move the file aside"
    )
