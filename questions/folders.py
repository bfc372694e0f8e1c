"""What a folder holds, read once, with a folder that cannot be read reported as a Problem; and
a pack file's bytes, read through grill's one reader.

`Path.exists()` and `is_file()` raise PermissionError inside a folder the user may not enter,
and `glob()` quietly finds nothing in one the user may enter but not list (mode 0311): the
loader reads every folder through here instead, so neither crashes nor silences it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from checkers.inputs import read_file
from questions.library import Problem

MAX_FILE_BYTES = 1_000_000
"""The largest card or manifest read: a card is a few KB, and composing tens of MB of YAML takes
gigabytes."""
SKIPPED_PREFIXES = (".", "_")
"""Folders named like `.git` or `_drafts` are never searched for packs or cards."""


@dataclass(frozen=True)
class Listing:
    folder: Path
    files: tuple[Path, ...]
    """Every entry that is not a folder (plain files, pipes, broken links), by name."""
    folders: tuple[Path, ...]
    """Every entry that is a folder, links followed, by name."""
    file_names: frozenset[str]
    """The names of `files`: a pack folder holds ten thousand."""

    def holds(self, name: str) -> bool:
        return name in self.file_names


def list_folder(folder: Path, problems: list[Problem]) -> Listing | None:
    """The folder's entries, or None with a problem at the folder when it cannot be read."""
    try:
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda entry: entry.name)
    except OSError as error:
        problems.append(unreadable_folder(folder, error))
        return None
    files: list[Path] = []
    folders: list[Path] = []
    for entry in entries:
        (folders if _is_folder(entry) else files).append(folder / entry.name)
    return Listing(folder, tuple(files), tuple(folders), frozenset(path.name for path in files))


def searched(folder: Path) -> bool:
    return not folder.name.startswith(SKIPPED_PREFIXES)


def unreadable_folder(folder: Path, error: OSError) -> Problem:
    return Problem(
        str(folder),
        1,
        1,
        f"cannot read this folder: {error.strerror}",
        "check its permissions, or remove it from GRILL_PACKS",
    )


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link into a folder that cannot be entered: read as a file, which reports it
        return False


def read_pack_file(path: Path) -> bytes:
    """A card's or manifest's bytes: folders, pipes and devices are refused without being read
    (reading a pipe would wait forever), and so are files too large to be a card
    (`checkers.inputs.FileRefused`)."""
    return read_file(path, role="a card or manifest", cap=MAX_FILE_BYTES)
