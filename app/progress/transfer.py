"""The full history as a JSON document, and reading one back with located errors.

An export carries every attempt with its id, so importing merges: attempts already present
are skipped and the same file imported twice changes nothing. Card schedules are not in the
file; they are replayed from the attempts, which gives the same state (see scheduler.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path

from app.progress.attempt import Attempt
from app.progress.clock import stamp, to_utc, utc_now
from app.progress.history import History
from app.progress.records import attempt_to_dict

EXPORT_FORMAT = "grill-history"
EXPORT_VERSION = 1
MAX_PROBLEMS_SHOWN = 10
EARLIEST_ATTEMPT = datetime(1970, 1, 1, tzinfo=timezone.utc)
CLOCK_SKEW = timedelta(days=1)
"""How far ahead of this machine's clock an imported attempt may be (another machine's clock, zones)."""


class ExportFileError(Exception):
    """A file that cannot be imported: each problem names where in the file it is."""

    def __init__(self, path: Path, problems: list[str]):
        self.path, self.problems = Path(path), problems
        super().__init__(str(self))

    def __str__(self) -> str:
        shown = [f"{self.path}: {problem}" for problem in self.problems[:MAX_PROBLEMS_SHOWN]]
        if len(self.problems) > MAX_PROBLEMS_SHOWN:
            shown.append(f"{self.path}: ... and {len(self.problems) - MAX_PROBLEMS_SHOWN} more problems")
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
    if Path(path).exists() and not Path(path).is_file():  # reading a pipe would wait forever
        raise ExportFileError(path, ["cannot be read (it is not a plain file)"])
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExportFileError(path, [f"cannot be read ({error})"]) from error
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ExportFileError(path, [f"line {error.lineno} column {error.colno}: not valid JSON ({error.msg})"]) from error
    except RecursionError as error:
        raise ExportFileError(path, ["nested too deeply to be a grill export"]) from error
    _check_envelope(path, document)
    attempts, problems = [], []
    for index, item in enumerate(document["attempts"]):
        unstorable = _unstorable(item, f"attempts[{index}]")
        if unstorable:
            problems += unstorable
            continue
        attempt, found = _validated(item, f"attempts[{index}]")
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
        raise ExportFileError(path, [f"not a grill history export (expected a JSON object with "
                                     f"\"format\": \"{EXPORT_FORMAT}\"; make one with `grill export --format json`)"])
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ExportFileError(path, ["version: expected a whole number"])
    if version > EXPORT_VERSION:
        raise ExportFileError(path, [f"version: {version} was written by a newer grill (this one reads up to "
                                     f"{EXPORT_VERSION}); upgrade grill to import it"])
    if not isinstance(document.get("attempts"), list):
        raise ExportFileError(path, ["attempts: expected a list of attempts"])


@cache
def _attempt_adapter():
    """Built on first use: pydantic validates the Attempt dataclass and locates each error."""
    from pydantic import TypeAdapter

    return TypeAdapter(Attempt)


def _validated(item: object, where: str) -> tuple[Attempt | None, list[str]]:
    from pydantic import ValidationError

    if isinstance(item, dict) and not (isinstance(item.get("id"), str) and item["id"]):
        return None, [f"{where}.id: required, a non-empty string (it is what makes importing twice harmless)"]
    try:
        attempt = _attempt_adapter().validate_python(item)
    except ValidationError as error:
        return None, [f"{where}{_location(e['loc'])}: {e['msg']}" for e in error.errors()]
    if attempt.started_at.tzinfo is None:
        return None, [f"{where}.started_at: needs a time zone (grill writes UTC, ending in +00:00)"]
    if not _plausible(attempt.started_at):
        # Year 1 or 9999 overflows converting to UTC; a future time would outrank every real
        # attempt in the card's schedule.
        return None, [f"{where}.started_at: {attempt.started_at.isoformat()} is not a time an attempt can have "
                      f"been made (from 1970 to today)"]
    negative = [f"{where}.phase_seconds.{phase}: {seconds} is negative" for phase, seconds in attempt.phase_seconds.items()
                if seconds < 0]
    return (None, negative) if negative else (attempt, [])


def _plausible(moment: datetime) -> bool:
    try:
        utc = to_utc(moment)
    except OverflowError:
        return False
    return EARLIEST_ATTEMPT <= utc <= utc_now() + CLOCK_SKEW


def _unstorable(value: object, where: str) -> list[str]:
    """What JSON allows but a history cannot hold: text with an unpaired surrogate (`\\ud800`),
    which SQLite refuses mid-import, and NaN or infinite numbers, which no statistic survives."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return [f"{where}: text with an unpaired surrogate escape, which is not valid Unicode"]
    elif isinstance(value, float) and not math.isfinite(value):
        return [f"{where}: {value} is not a finite number"]
    elif isinstance(value, dict):
        return [problem for key, item in value.items()
                for problem in _unstorable(key, where) + _unstorable(item, f"{where}.{key}")]
    elif isinstance(value, list):
        return [problem for index, item in enumerate(value) for problem in _unstorable(item, f"{where}[{index}]")]
    return []


def _location(loc: tuple) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
