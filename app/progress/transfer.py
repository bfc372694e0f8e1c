"""The full history as a JSON document, and reading one back with located errors.

An export carries every attempt with its id, so importing merges: attempts already present
are skipped and the same file imported twice changes nothing. Card schedules are not in the
file; they are replayed from the attempts, which gives the same state (see scheduler.py).
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from app.clock import stamp, to_utc, utc_now
from app.progress.attempt import MAX_GROWTH_BYTES_PER_STEP, MAX_PHASE_SECONDS, Attempt
from app.progress.history import History
from app.progress.records import STORED_NAMES, attempt_to_dict, from_stored

if TYPE_CHECKING:
    from pydantic import TypeAdapter

EXPORT_FORMAT = "grill-history"
EXPORT_VERSION = 1
MAX_PROBLEMS_SHOWN = 10
EARLIEST_ATTEMPT = datetime(1970, 1, 1, tzinfo=UTC)
CLOCK_SKEW = timedelta(days=1)
"""How far ahead of this machine's clock an imported attempt may be (another machine's clock, zones)."""
MAX_DIGITS = 20
"""More digits than any whole number in an export has; Python refuses to parse past 4,300."""
MAX_NESTING = 8
"""Levels below an attempt: its deepest value (a path in code.retained_paths) is three down."""


class ExportFileError(Exception):
    """A file that cannot be imported: each problem names where in the file it is."""

    def __init__(self, path: Path, problems: list[str]):
        self.path, self.problems = Path(path), problems
        super().__init__(str(self))

    def __str__(self) -> str:
        shown = [f"{self.path}: {problem}" for problem in self.problems[:MAX_PROBLEMS_SHOWN]]
        if len(self.problems) > MAX_PROBLEMS_SHOWN:
            shown.append(
                f"{self.path}: ... and {len(self.problems) - MAX_PROBLEMS_SHOWN} more problems"
            )
        return "\n".join(shown)


@dataclass(frozen=True)
class ImportResult:
    added: int
    already_present: int


def export_document(history: History, *, now: datetime) -> dict:
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": stamp(now),
        "attempts": [attempt_to_dict(a) for a in history.attempts()],
    }


def read_export(path: Path) -> list[Attempt]:
    """Every attempt in an export file, or ExportFileError listing what is wrong and where."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # reading a pipe would wait forever
            raise ExportFileError(path, ["cannot be read (it is not a plain file)"])
        raw = Path(path).read_bytes()
    except OSError as error:
        raise ExportFileError(path, [f"cannot be read ({error.strerror or error})"]) from error
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = (
            len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        )  # characters, as editors count
        raise ExportFileError(
            path,
            [
                f"line {line} column {column}: not UTF-8 text (byte "
                f"0x{raw[error.start]:02x} cannot be decoded)"
            ],
        ) from error
    try:
        document = json.loads(text, parse_int=_whole_number)
    except json.JSONDecodeError as error:
        raise ExportFileError(
            path, [f"line {error.lineno} column {error.colno}: not valid JSON ({error.msg})"]
        ) from error
    except RecursionError as error:
        raise ExportFileError(path, ["nested too deeply to be a grill export"]) from error
    _check_envelope(path, document)
    attempts, problems = [], []
    first_with_id: dict[str, int] = {}
    for index, item in enumerate(document["attempts"]):
        where = f"attempts[{index}]"
        unstorable = _unstorable(item, where)
        if unstorable:
            problems += unstorable
            continue
        attempt_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(attempt_id, str) and attempt_id in first_with_id:
            # Importing would keep the first and skip this one as "already here".
            problems.append(
                f"{where}.id: {attempt_id!r} is also the id of attempts[{first_with_id[attempt_id]}]; "
                f"each attempt has its own id"
            )
            continue
        if isinstance(attempt_id, str):
            first_with_id[attempt_id] = index
        attempt, found = _validated(item, where)
        problems += found
        if attempt is not None:
            attempts.append(attempt)
    if problems:
        raise ExportFileError(path, problems)
    return attempts


def import_file(history: History, path: Path) -> ImportResult:
    """Validate the whole file first, so a bad one leaves the history untouched."""
    attempts = read_export(path)
    added = history.merge(attempts)
    return ImportResult(added=added, already_present=len(attempts) - added)


def _check_envelope(path: Path, document: object) -> None:
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ExportFileError(
            path,
            [
                f"not a grill history export (expected a JSON object with "
                f'"format": "{EXPORT_FORMAT}"; make one with `grill export --format json`)'
            ],
        )
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ExportFileError(path, ["version: expected a whole number"])
    if version < 1:
        raise ExportFileError(
            path, [f"version: {version} is not a version grill writes (exports start at 1)"]
        )
    if version > EXPORT_VERSION:
        raise ExportFileError(
            path,
            [
                f"version: {version} was written by a newer grill (this one reads up to "
                f"{EXPORT_VERSION}); upgrade grill to import it"
            ],
        )
    if not isinstance(document.get("attempts"), list):
        raise ExportFileError(path, ["attempts: expected a list of attempts"])


@cache
def _attempt_adapter() -> TypeAdapter[Attempt]:
    """Built on first use: pydantic validates the Attempt dataclass and locates each error."""
    from pydantic import TypeAdapter

    return TypeAdapter(Attempt)


def _validated(item: object, where: str) -> tuple[Attempt | None, list[str]]:
    from pydantic import ValidationError

    if isinstance(item, dict) and not (isinstance(item.get("id"), str) and item["id"]):
        return None, [
            f"{where}.id: required, a non-empty string (it is what makes importing twice harmless)"
        ]
    try:
        # Strict, as JSON reads: `true` is not a number of seconds, nor 1700000000 a time.
        fields = from_stored(item) if isinstance(item, dict) else item
        attempt = _attempt_adapter().validate_json(json.dumps(fields), strict=True)
    except ValidationError as error:
        return None, [
            f"{where}{_location(_stored_loc(e['loc']))}: {e['msg']}" for e in error.errors()
        ]
    if not attempt.card_id.strip():
        return None, [f"{where}.card_id: empty; an attempt is always on a card"]
    if attempt.started_at.tzinfo is None:
        return None, [f"{where}.started_at: needs a time zone (grill writes UTC, ending in +00:00)"]
    if not _plausible(attempt.started_at):
        # Year 1 or 9999 overflows converting to UTC; a future time would outrank every real
        # attempt in the card's schedule.
        return None, [
            f"{where}.started_at: {attempt.started_at.isoformat()} is not a time an attempt can have "
            f"been made (from 1970 to today)"
        ]
    out_of_range = [
        f"{_member(f'{where}.phase_seconds', phase)}: "
        + (
            f"{seconds} is negative"
            if seconds < 0
            else f"{seconds:g} s is longer than any phase grill records (at most {MAX_PHASE_SECONDS:,} s, a year)"
        )
        for phase, seconds in attempt.phase_seconds.items()
        if not 0 <= seconds <= MAX_PHASE_SECONDS
    ]
    if (
        attempt.code is not None
        and abs(attempt.code.growth_bytes_per_step) > MAX_GROWTH_BYTES_PER_STEP
    ):
        out_of_range.append(
            f"{where}.code.growth_bytes_per_step: {attempt.code.growth_bytes_per_step:g} bytes "
            f"is more than any machine holds (at most {MAX_GROWTH_BYTES_PER_STEP:g} a step)"
        )
    return (None, out_of_range) if out_of_range else (attempt, [])


def _plausible(moment: datetime) -> bool:
    try:
        utc = to_utc(moment)
    except OverflowError:
        return False
    return EARLIEST_ATTEMPT <= utc <= utc_now() + CLOCK_SKEW


class _HugeNumber:
    """A whole number too long to be one an attempt holds, kept so its place can be reported."""

    def __init__(self, digits: int):
        self.digits = digits


def _whole_number(text: str) -> int | _HugeNumber:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_DIGITS else _HugeNumber(digits)


def _unstorable(value: object, where: str) -> list[str]:
    """What JSON allows but a history cannot hold: text with an unpaired surrogate (`\\ud800`),
    which SQLite refuses mid-import, NaN, infinite or endless numbers, which no statistic
    survives, and nesting deeper than an attempt has. Walked with a list, not recursion, so
    a value nested thousands deep is a problem in the file, not a RecursionError."""
    problems: list[str] = []
    pending: list[tuple[object, str, int]] = [(value, where, 0)]
    while pending:
        item, place, depth = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(
                    f"{place}: text with an unpaired surrogate escape, which is not valid Unicode"
                )
        elif isinstance(item, _HugeNumber):
            problems.append(
                f"{place}: a number with {item.digits:,} digits, far more than any attempt holds"
            )
        elif isinstance(item, float) and not math.isfinite(item):
            problems.append(f"{place}: {item} is not a finite number")
        elif isinstance(item, (dict, list)) and depth >= MAX_NESTING:
            problems.append(f"{place}: nested deeper than any attempt ({MAX_NESTING} levels)")
        elif isinstance(item, dict):
            children = [(key, _member(place, key)) for key in item] + [
                (child, _member(place, key)) for key, child in item.items()
            ]
            pending += [
                (child, child_place, depth + 1) for child, child_place in reversed(children)
            ]
        elif isinstance(item, list):
            pending += [
                (child, f"{place}[{index}]", depth + 1)
                for index, child in reversed(list(enumerate(item)))
            ]
    return problems


def _stored_loc(loc: tuple) -> tuple:
    """An error's place in the file: a renamed field under the name the file has it by."""
    return (STORED_NAMES.get(loc[0], loc[0]), *loc[1:]) if loc else loc


def _location(loc: tuple) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else _member("", part) for part in loc)


def _member(place: str, key: str) -> str:
    """`place.key`, or `place["odd key"]` escaped when the key is not a plain name (a newline in
    a key must not break the one-problem-per-line output)."""
    return f"{place}.{key}" if key.isidentifier() else f"{place}[{json.dumps(key)}]"
