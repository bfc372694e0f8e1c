"""Why a history file cannot be used, said as the user can act on it."""

from __future__ import annotations

import os
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


WRITE_MARGIN_BYTES = 1 << 20
"""Free space below which a disk counts as full for any write: SQLite's journal and WAL of one
transaction need at least this."""


def space_needed(path: Path) -> int:
    """About what rewriting the whole file needs (a migration): the rollback journal holds the
    pages as they were, the file grows by what the step adds (never more than it holds)."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return 2 * size + WRITE_MARGIN_BYTES


def disk_problem(
    path: Path, needed: int = WRITE_MARGIN_BYTES, *, space: bool = True
) -> HistoryError | None:
    """Why the file system holding `path` cannot take a write, if it cannot, each cause in its
    own words: mounted read-only, no inodes left (SQLite cannot create its journal beside the
    file), or less free space than `needed` (what root may use, for root). None when statvfs
    sees none of these, or cannot look."""
    folder = path.parent
    try:
        found = os.statvfs(folder)
    except OSError:
        return None
    if found.f_flag & os.ST_RDONLY:
        return HistoryError(
            path,
            f"the file system that holds {folder} is mounted read-only",
            "nothing was changed: remount it read-write, or set GRILL_HOME to a folder on a "
            "writable disk",
        )
    if found.f_files and not found.f_favail:
        return HistoryError(
            path,
            "the disk that holds it has no free inodes, so SQLite cannot create the journal "
            "it writes beside the file",
            "nothing was changed: delete files you do not need on that disk (many small files "
            "use up inodes) and try again",
        )
    free = (found.f_bfree if os.geteuid() == 0 else found.f_bavail) * found.f_frsize
    if space and free < needed:
        return HistoryError(
            path,
            f"the disk that holds it is full ({_size(free)} free; this needs about {_size(needed)})",
            "nothing was changed: free some space on that disk and try again",
        )
    return None


def _size(amount: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if amount >= scale:
            return f"{amount / scale:.1f} {unit}"
    return f"{amount} bytes"


def error_for(
    path: Path, error: sqlite3.Error, busy_timeout_s: float, *, needed: int = WRITE_MARGIN_BYTES
) -> HistoryError:
    """Translate SQLite's failure into what the user can do about it. A failure to write or
    to open says the disk's own cause where statvfs shows one (`disk_problem`): SQLite says
    "disk I/O error" or "unable to open" for a full disk, a read-only mount or no inodes
    alike. `needed`: the space the failed write needed (a migration's is the whole file's)."""
    name = getattr(error, "sqlite_errorname", "")
    text = str(error)
    if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")) or "disk I/O error" in text:
        found = disk_problem(path, needed)
        if found is not None:
            return found
        if name.startswith("SQLITE_FULL"):  # the space came back as the write was undone
            return HistoryError(
                path,
                "the disk that holds it is full",
                "nothing was changed: free some space on that disk and try again",
            )
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")) or "unable to open" in text:
        found = disk_problem(path, space=False)
        if found is not None:
            return found
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
    return HistoryError(
        path, f"SQLite failed ({error})", "try again; if it persists, move the file aside"
    )
