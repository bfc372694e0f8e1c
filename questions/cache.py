"""The pack cache: what a start needs of each pack file, so a start reads no card file whose
cache entry still holds.

One cache file per pack folder, `<cache folder>/<hash of the folder's real path>.json`. For
each file of the pack (the manifest and every card) it keeps what loading it found: the card's
`CardSummary` (or the manifest), its problems and where its id sits, keyed by the file's size,
modification and change times (to the nanosecond) and inode. A start looks at each file's
status (one `stat`, no read) and takes the entry when the key holds; anything else (a new,
changed or removed file) is read as without a cache, and the cache file is rewritten. The
whole card is read from its file only when it is opened (`LoadedCard.card`).

It is only ever a copy: any doubt reads the files instead. The cache file is read through the
one reader (`checkers.inputs`, capped), its first line carries the SHA-256 of the rest (a
damaged byte anywhere discards it), and the rest must be this format, this version, written
for this folder by a grill whose card rules are these (`rules_digest`: the source of the
modules that decide what a card file yields, and the Python, PyYAML and pydantic versions).
Each entry is checked field by field before use; a bad one is read from its file again. A file
changed within `RACY_NS` of when it was read could have changed again within the same clock
tick, so such an entry is trusted only once the file's bytes hash as they did.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from checkers.inputs import FileRefused, read_file
from checkers.outputs import write_whole
from questions.folders import read_pack_file
from questions.levels import IMPORTANCES, LEVELS
from questions.library import CardSummary, PackInfo, Problem

CACHE_FORMAT = "grill-pack-cache"
CACHE_VERSION = 3
MAX_CACHE_BYTES = 256 << 20
"""A pack of 100,000 cards caches to about 60 MB; a larger file is not grill's."""
RACY_NS = 2_000_000_000
"""Two seconds: the coarsest file-system clock (FAT's) that a key's times might come from."""

_RULE_MODULES = (
    "questions/model.py",
    "questions/library.py",
    "questions/levels.py",
    "questions/loader.py",
    "questions/folders.py",
    "questions/yamldoc.py",
    "questions/validation.py",
    "questions/codecheck.py",
    "questions/problems.py",
    "questions/cache.py",
    "checkers/task.py",
    "checkers/inputs.py",
)


_RULE_LIBRARIES = (("pydantic", "version.py"), ("yaml", "__init__.py"))
"""The file of each library that reading a card runs which names its version (pydantic's names
the pydantic-core it needs), read rather than imported: a start from the cache imports neither."""


@cache
def rules_digest() -> str:
    """What a card file yields depends on these: grill's loader and card model (their source),
    and the Python (what compiles), PyYAML and pydantic that run them."""
    root = Path(__file__).resolve().parents[1]
    sources: list[tuple[str, Path | None]] = [(name, root / name) for name in _RULE_MODULES]
    for package, file in _RULE_LIBRARIES:
        spec = importlib.util.find_spec(package)
        location = None if spec is None else spec.submodule_search_locations
        sources.append((package, Path(location[0]) / file if location else None))
    digest = hashlib.sha256(sys.version.encode())
    for name, path in sources:
        try:
            source = (
                b"(missing)"
                if path is None
                else read_file(path, role="grill's source", cap=1 << 22)
            )
        except (OSError, FileRefused):
            source = b"(unreadable)"  # then reading a card fails too, and says so
        digest.update(b"\0" + name.encode() + b"\0" + source)
    return digest.hexdigest()


class CachedCard(NamedTuple):
    summary: CardSummary | None
    """None when the card has problems (it is left out)."""
    problems: list[Problem]
    id_position: tuple[int, int]


@dataclass(frozen=True)
class CachedManifest:
    manifest: PackInfo | None
    problems: list[Problem]
    name_position: tuple[int, int]
    newer: bool


# One file's entry, as a JSON list (ten thousand are read on a start, so no keys):
_SIZE, _MTIME, _CTIME, _INODE, _READ_NS, _SHA256, _VALUE, _PROBLEMS, _LINE, _COLUMN = range(10)
"""`[size, mtime_ns, ctime_ns, inode, read_ns, sha256, value, problems, line, column]` and, for
the manifest, `newer` after them. `value` is the card's summary as a list in `CardSummary`'s
field order (or the manifest's, `PackInfo`'s), null when the file has problems; `line` and
`column` place the card's id (the manifest's name)."""
_ENTRY_LENGTH = {"card": 10, "manifest": 11}


class PackCache:
    """The cache folder; `folder(root)` is one pack folder's part of it."""

    def __init__(self, location: Path):
        self.location = Path(location)

    def folder(self, root: Path) -> FolderCache:
        real = os.path.realpath(root)
        name = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return FolderCache(self.location / f"{name}.json", real)


class FolderCache:
    """One pack folder's entries: read once, looked up per file, saved when anything changed."""

    def __init__(self, path: Path, real_root: str):
        self.path, self.real_root = path, real_root
        self.entries: dict[str, list[Any]] = _read_entries(path, real_root)
        self.kept: dict[str, list[Any]] = {}
        """The entries this load used or made: what `save` writes (files gone are dropped)."""
        self.changed = False

    # -- looking up -----------------------------------------------------------------------

    def _entry(
        self, path: Path, name: str, kind: str
    ) -> tuple[list[Any] | None, os.stat_result | None]:
        """The entry for `path` (named `name`) when the file is as it was when the entry was
        made, and the file's status (None when it cannot be had)."""
        try:
            status = os.stat(path)
        except OSError:
            return None, None
        entry = self.entries.get(name)
        if (
            type(entry) is not list
            or len(entry) != _ENTRY_LENGTH[kind]
            or entry[_SIZE] != status.st_size
            or entry[_MTIME] != status.st_mtime_ns
            or entry[_CTIME] != status.st_ctime_ns
            or entry[_INODE] != status.st_ino
            or type(entry[_READ_NS]) is not int
            or not stat.S_ISREG(status.st_mode)
        ):
            return None, status
        changed_at = max(status.st_mtime_ns, status.st_ctime_ns)
        if changed_at >= entry[_READ_NS] - RACY_NS:
            # Changed close to when it was read: it may have changed again since, within the
            # same clock tick. Trust the entry only if the bytes are still those it was made of.
            try:
                raw = read_pack_file(path)
            except (OSError, FileRefused):
                return None, status
            if hashlib.sha256(raw).hexdigest() != entry[_SHA256]:
                return None, status
            now = time.time_ns()
            if changed_at < now - RACY_NS:  # settled now: trusted without a read next time
                entry = [*entry[:_READ_NS], now, *entry[_READ_NS + 1 :]]
                self.changed = True
        return entry, status

    def card(self, path: Path) -> tuple[CachedCard | None, os.stat_result | None]:
        """The cached card for `path` when its entry holds, and the status just taken."""
        name = path.name
        entry, status = self._entry(path, name, "card")
        if entry is None:
            return None, status
        found = _cached_card(entry, str(path))
        if found is not None:
            self.kept[name] = entry
        return found, status

    def manifest(self, path: Path) -> tuple[CachedManifest | None, os.stat_result | None]:
        entry, status = self._entry(path, path.name, "manifest")
        if entry is None:
            return None, status
        found = _cached_manifest(entry, str(path))
        if found is not None:
            self.kept[path.name] = entry
        return found, status

    # -- remembering ------------------------------------------------------------------------

    def remember_card(
        self,
        path: Path,
        status: os.stat_result | None,
        digest: str | None,
        summary: CardSummary | None,
        problems: list[Problem],
        id_position: tuple[int, int],
    ) -> None:
        value = (
            None
            if summary is None
            else [*summary[:5], list(summary.tags), list(summary.key_points), *summary[7:]]
        )
        self._remember(
            path, status, digest, problems, [value, *_problems_json(problems), *id_position]
        )

    def remember_manifest(
        self,
        path: Path,
        status: os.stat_result | None,
        digest: str | None,
        found: CachedManifest,
    ) -> None:
        value = None if found.manifest is None else list(found.manifest)
        self._remember(
            path,
            status,
            digest,
            found.problems,
            [value, *_problems_json(found.problems), *found.name_position, found.newer],
        )

    def _remember(
        self,
        path: Path,
        status: os.stat_result | None,
        digest: str | None,
        problems: list[Problem],
        values: list[Any],
    ) -> None:
        if status is None or digest is None or any(p.path != str(path) for p in problems):
            return  # not a file read whole (or a problem elsewhere): read it again next time
        key = [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
        self.kept[path.name] = [*key, time.time_ns(), digest, *values]
        self.changed = True

    def save(self) -> None:
        """Write the entries this load kept, whole or not at all, when any changed; a cache
        that cannot be written (a full or read-only disk) is simply not written."""
        if not self.changed and self.kept.keys() == self.entries.keys():
            return
        body = json.dumps(
            {
                "format": CACHE_FORMAT,
                "version": CACHE_VERSION,
                "rules": rules_digest(),
                "folder": self.real_root,
                "files": self.kept,
            },
            separators=(",", ":"),
        ).encode()
        header = f"{CACHE_FORMAT} {CACHE_VERSION} {hashlib.sha256(body).hexdigest()}\n".encode()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_whole(self.path, header + body)
        except OSError:
            pass


def _read_entries(path: Path, real_root: str) -> dict[str, list[Any]]:
    """The entries of a cache file that passes every check, else none."""
    try:
        raw = read_file(path, role="the pack cache", cap=MAX_CACHE_BYTES)
    except (OSError, FileRefused):
        return {}
    header, _, body = raw.partition(b"\n")
    try:
        name, version, digest = header.decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        return {}
    if (name, version) != (CACHE_FORMAT, str(CACHE_VERSION)):
        return {}
    if hashlib.sha256(body).hexdigest() != digest:
        return {}
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(document, dict):
        return {}
    expected = {
        "format": CACHE_FORMAT,
        "version": CACHE_VERSION,
        "rules": rules_digest(),
        "folder": real_root,
    }
    if any(document.get(field) != value for field, value in expected.items()):
        return {}
    files = document.get("files")
    return files if isinstance(files, dict) else {}


# -- entries checked field by field ---------------------------------------------------------


def _problems_json(problems: list[Problem]) -> list[Any]:
    return [[[p.line, p.column, p.message, p.hint] for p in problems]]


def _whole(value: object) -> bool:
    return type(value) is int


def _texts(value: object) -> bool:
    return type(value) is list and _STR_ONLY.issuperset(map(type, value))


_STR_ONLY = frozenset({str})
_SUMMARY_TYPES = (str, str, str, str, int, list, list, int, int, bool, int)
"""The type of each of `CardSummary`'s fields as the cache stores them (tuples as lists)."""
_LEVEL_NAMES, _IMPORTANCE_NAMES = frozenset(LEVELS), frozenset(IMPORTANCES)


def _summary(value: object) -> CardSummary | None:
    """Checked at the speed of ten thousand a start: every field's type at once, then what is
    not a plain type."""
    if type(value) is not list or tuple(map(type, value)) != _SUMMARY_TYPES:
        return None
    card_id, question, level, importance, frequency, tags, points, basic, solid, task, ranks = value
    if (
        level not in _LEVEL_NAMES
        or importance not in _IMPORTANCE_NAMES
        or not _texts(tags)
        or not _texts(points)
    ):
        return None
    return CardSummary(
        card_id,
        question,
        level,
        importance,
        frequency,
        tuple(tags),
        tuple(points),
        basic,
        solid,
        task,
        ranks,
    )


def _problems(data: object, path: str) -> list[Problem] | None:
    if type(data) is not list:
        return None
    found = []
    for item in data:
        if not (
            type(item) is list
            and len(item) == 4
            and _whole(item[0])
            and _whole(item[1])
            and type(item[2]) is str
            and type(item[3]) is str
        ):
            return None
        found.append(Problem(path, item[0], item[1], item[2], item[3]))
    return found


def _position(entry: list[Any]) -> tuple[int, int] | None:
    line, column = entry[_LINE], entry[_COLUMN]
    return (line, column) if _whole(line) and _whole(column) else None


def _cached_card(entry: list[Any], path: str) -> CachedCard | None:
    problems = [] if entry[_PROBLEMS] == [] else _problems(entry[_PROBLEMS], path)
    position = _position(entry)
    summary = None if entry[_VALUE] is None else _summary(entry[_VALUE])
    if problems is None or position is None:
        return None
    if (summary is None) == (not problems):  # a card loads exactly when it has no problem
        return None
    return CachedCard(summary, problems, position)


def _cached_manifest(entry: list[Any], path: str) -> CachedManifest | None:
    problems = _problems(entry[_PROBLEMS], path)
    position = _position(entry)
    newer = entry[_COLUMN + 1]
    if problems is None or position is None or type(newer) is not bool:
        return None
    manifest = None
    if entry[_VALUE] is not None:
        manifest = _pack_info(entry[_VALUE])
        if manifest is None:
            return None
    if (manifest is None) == (not problems):
        return None
    return CachedManifest(manifest, problems, position, newer)


def _pack_info(value: object) -> PackInfo | None:
    if type(value) is not list or len(value) != len(PackInfo._fields):
        return None
    *texts, track = value
    if not _texts(texts) or not _texts(track):
        return None
    return PackInfo._make([*texts, tuple(track)])


def hashing(into: list[str]) -> Callable[[bytes], None]:
    """A `seen` callback for the YAML reader: the SHA-256 of the bytes it read."""
    return lambda raw: into.append(hashlib.sha256(raw).hexdigest())
