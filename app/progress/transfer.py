"""The full history as a JSON document, and reading one back with located errors.

An export carries every attempt with its id, so importing merges: attempts already present
are skipped and the same file imported twice changes nothing. Card schedules are not in the
file; they are replayed from the attempts, which gives the same state (see scheduler.py).
Version 2 adds the rest of the user's state after the attempts (`app.progress.user_state`:
settings, hint progress, suspended and buried cards, drafts); version 1 files still import.
"""

from __future__ import annotations

import json
import math
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NoReturn, TextIO, cast

from app.clock import stamp, to_utc, utc_now
from app.practice.drafts import Drafts
from app.progress.attempt import MAX_GROWTH_BYTES_PER_STEP, MAX_PHASE_SECONDS, Attempt
from app.progress.history import History
from app.progress.records import STORED_NAMES, attempt_from_dict, attempt_to_dict, from_stored
from app.progress.user_state import UserState, current_state, merge_state, read_state
from checkers.inputs import FileRefused, opened_file

if TYPE_CHECKING:
    from pydantic import TypeAdapter

EXPORT_FORMAT = "grill-history"
EXPORT_VERSION = 2
MAX_PROBLEMS_SHOWN = 10
MAX_PROBLEMS_KEPT = 1_000
"""Problems held in full; a file with millions of bad attempts has the rest counted."""
MAX_EXPORT_BYTES = 16 << 30
"""The largest export read (16 GiB, ten times a history of a million attempts): an import is
streamed, so the cap bounds its time, not its memory."""
MAX_ATTEMPT_CHARS = 32 << 20
"""The longest one attempt may be in an export: its code is a snippet of at most 1 MB, which
JSON may write six times as long, and its answer text is shorter still."""
READ_CHUNK = 1 << 20
EARLIEST_ATTEMPT = datetime(1970, 1, 1, tzinfo=UTC)
CLOCK_SKEW = timedelta(days=1)
"""How far ahead of this machine's clock an imported attempt may be (another machine's clock, zones)."""
MAX_DIGITS = 20
"""More digits than any whole number in an export has; Python refuses to parse past 4,300."""
MAX_NESTING = 8
"""Levels below an attempt: its deepest value (a path in code.retained_paths) is three down."""


class ExportFileError(Exception):
    """A file that cannot be imported: each problem names where in the file it is. `problems`
    holds the first `MAX_PROBLEMS_KEPT`; `more` counts the rest."""

    def __init__(self, path: Path, problems: list[str], more: int = 0):
        self.path, self.problems, self.more = Path(path), problems, more
        super().__init__(str(self))

    def __str__(self) -> str:
        shown = [f"{self.path}: {problem}" for problem in self.problems[:MAX_PROBLEMS_SHOWN]]
        hidden = len(self.problems) - len(shown) + self.more
        if hidden:
            shown.append(f"{self.path}: ... and {hidden:,} more problems")
        return "\n".join(shown)


@dataclass(frozen=True)
class ImportResult:
    added: int
    already_present: int
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    """Fields this grill does not know, left out on import: per attempt kind (`mode`), each
    field (`code.x` inside the code result) and how many attempts had it."""


def export_document(history: History, *, now: datetime, drafts: Drafts | None = None) -> dict:
    """The whole export as one value: for small histories and tests. `grill export` streams
    the same document with `write_export`."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": stamp(now),
        "attempts": [attempt_to_dict(a) for a in history.iter_attempts()],
        **current_state(history, drafts or Drafts()),
    }


def write_export(
    history: History, out: TextIO, *, now: datetime, drafts: Drafts | None = None
) -> int:
    """Write the export to `out` one attempt at a time, in constant memory whatever the
    history's size; the text is exactly `json.dumps(export_document(...), indent=1,
    ensure_ascii=False)` plus a newline. Returns how many attempts it wrote."""
    out.write(
        "{\n"
        f' "format": {_dumps(EXPORT_FORMAT)},\n'
        f' "version": {_dumps(EXPORT_VERSION)},\n'
        f' "exported_at": {_dumps(stamp(now))},\n'
        ' "attempts": ['
    )
    written = 0
    for attempt in history.iter_attempts():
        text = _dumps(attempt_to_dict(attempt)).replace("\n", "\n  ")
        out.write(f"{',' if written else ''}\n  {text}")
        written += 1
    out.write("\n ]" if written else "]")
    for name, value in current_state(history, drafts or Drafts()).items():
        out.write(f",\n {_dumps(name)}: {_dumps(value).replace(chr(10), chr(10) + ' ')}")
    out.write("\n}\n")
    return written


def _dumps(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, allow_nan=False)


def read_export(path: Path) -> list[Attempt]:
    """Every attempt in an export file, or ExportFileError listing what is wrong and where.
    (The list is the file's size in memory: `import_file` never builds it.)"""
    with _Staging(path) as staged:
        _stage(path, staged)
        return list(staged.attempts())


def import_file(history: History, path: Path, drafts: Drafts | None = None) -> ImportResult:
    """Validate the whole file first, so a bad one leaves the history untouched; then merge
    the attempts, then the rest of the state (version 2).

    Constant memory whatever the file's size: the file is read once, as a stream, and each
    attempt that passes is kept in a private temporary SQLite file (`_Staging`) until the end
    of the file says whether it may be merged at all.
    """
    with _Staging(path) as staged:
        count = _stage(path, staged)
        added = history.merge(staged.attempts())
        dropped: dict[str, dict[str, int]] = {}
        for (kind, name), times in sorted(staged.dropped.items()):
            dropped.setdefault(kind, {})[name] = times
    merge_state(history, drafts or Drafts(), staged.state)
    return ImportResult(added=added, already_present=count - added, dropped=dropped)


class _Staging:
    """Validated attempts of one file, and every id the file uses, in a private temporary
    database SQLite deletes when it closes (`sqlite3.connect("")`): the page cache stays
    small, the rest goes to the temporary folder."""

    def __init__(self, path: Path):
        self.path = path
        self.connection = sqlite3.connect("", isolation_level=None)
        self.connection.execute(
            "CREATE TABLE staged (id TEXT PRIMARY KEY, place INTEGER NOT NULL, body TEXT)"
        )
        self.connection.execute("BEGIN")
        self.state = UserState()
        """The rest of the user's state the file holds, once it is read and checked."""
        self.dropped: Counter[tuple[str, str]] = Counter()
        """(attempt kind, field) -> how many kept attempts had a field this grill drops."""

    def __enter__(self) -> _Staging:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.connection.close()

    def clear(self) -> None:
        self.connection.execute("DELETE FROM staged")
        self.dropped.clear()

    def first_place(self, attempt_id: str, place: int) -> int | None:
        """Claim `attempt_id` for attempts[place]; the place that claimed it first, if another did."""
        cursor = self.connection.execute(
            "INSERT INTO staged (id, place) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            (attempt_id, place),
        )
        if cursor.rowcount:
            return None
        row = self.connection.execute(
            "SELECT place FROM staged WHERE id = ?", (attempt_id,)
        ).fetchone()
        return int(row[0])

    def keep(self, attempt: Attempt, given: dict) -> None:
        """Keep `attempt`, validated from `given`, and count what of `given` it leaves out."""
        kept = attempt_to_dict(attempt)
        self.dropped.update((attempt.mode, name) for name in _unknown_fields(given, kept))
        self.connection.execute(
            "UPDATE staged SET body = ? WHERE id = ?",
            (json.dumps(kept, ensure_ascii=False), attempt.id),
        )

    def attempts(self) -> Iterator[Attempt]:
        """The kept attempts, in the file's order."""
        rows = self.connection.execute(
            "SELECT body FROM staged WHERE body IS NOT NULL ORDER BY place"
        )
        for (body,) in rows:
            yield attempt_from_dict(json.loads(body))


class _Problems:
    """The problems found so far: the first `MAX_PROBLEMS_KEPT` in full, the rest counted."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.more = 0

    def add(self, found: list[str]) -> None:
        room = MAX_PROBLEMS_KEPT - len(self.kept)
        self.kept += found[:room]
        self.more += max(len(found) - room, 0)

    def __bool__(self) -> bool:
        return bool(self.kept)


def _stage(path: Path, staged: _Staging) -> int:
    """Read the export at `path` once, as a stream, into `staged`: every attempt is checked and
    every problem placed as before (a byte that is not UTF-8 anywhere in the file outranks a
    JSON error, which outranks what is wrong with the envelope, which outranks what is wrong
    with the attempts). Returns how many attempts the file holds; ExportFileError otherwise."""
    problems = _Problems()
    count = 0

    def attempt_found(index: int, item: object) -> None:
        nonlocal count
        count = index + 1
        where = f"attempts[{index}]"
        unstorable = _unstorable(item, where)
        if unstorable:
            problems.add(unstorable)
            return
        attempt_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(attempt_id, str):
            first = staged.first_place(attempt_id, index)
            if first is not None:
                # Importing would keep the first and skip this one as "already here".
                problems.add(
                    [
                        f"{where}.id: {attempt_id!r} is also the id of attempts[{first}]; "
                        f"each attempt has its own id"
                    ]
                )
                return
        attempt, found = _validated(item, where)
        problems.add(found)
        if attempt is not None and not problems:
            staged.keep(attempt, cast(dict, item))  # (validated: a JSON object)

    def attempts_restart() -> None:
        nonlocal count
        staged.clear()  # JSON keeps the last of two equal keys, and so does this
        problems.kept.clear()
        problems.more = 0
        count = 0

    try:
        with opened_file(path, role="an export", cap=MAX_EXPORT_BYTES) as file:
            envelope = _ExportReader(file, attempt_found, attempts_restart).read()
    except FileRefused as refused:
        raise ExportFileError(
            path, [f"cannot be read ({refused.reason}; {refused.rule})"]
        ) from None
    except OSError as error:
        raise ExportFileError(path, [f"cannot be read ({error.strerror or error})"]) from error
    except _Fatal as fatal:
        raise ExportFileError(path, [fatal.problem]) from None
    except sqlite3.Error as error:
        raise ExportFileError(
            path,
            [
                f"cannot be checked: the temporary folder ({tempfile.gettempdir()}) has no room "
                f"for the attempts checked so far ({error})"
            ],
        ) from error
    _check_envelope(path, envelope)
    staged.state, state_problems = read_state(envelope)
    problems.add(state_problems)
    if problems:
        raise ExportFileError(path, problems.kept, more=problems.more)
    return count


class _Fatal(Exception):
    """What stops reading the file: bytes that are not UTF-8, or text that is not JSON."""

    def __init__(self, problem: str):
        super().__init__(problem)
        self.problem = problem


_WHITESPACE = " \t\n\r"
_NEAR_THE_END = 16
"""Characters from the end of the text read so far within which a scan may have been cut short."""


class _ExportReader:
    """A JSON document read as a stream: the top-level object's members one by one, and the
    members of its `attempts` list one by one, each handed over as soon as it is read, so no
    more than one attempt (at most `MAX_ATTEMPT_CHARS`) and one chunk are held at a time.

    Each value is parsed by Python's own JSON scanner (`raw_decode`), so values read exactly
    as `json.loads` reads them; the errors say what `json.loads` says, placed by line and
    column in the whole file.
    """

    def __init__(
        self,
        file: BinaryIO,
        attempt_found: Callable[[int, object], None],
        attempts_restart: Callable[[], None],
    ):
        self.file = file
        self.attempt_found, self.attempts_restart = attempt_found, attempts_restart
        self.decoder = json.JSONDecoder(parse_int=_whole_number)
        self.text = ""
        self.pos = 0
        self.eof = False
        self.pending = b""
        self.line, self.column = 1, 0
        """Where `text[0]` sits: its line, and the characters before it on that line."""
        self.end_line, self.end_column = 1, 0
        """The same for the end of what has been decoded."""

    # -- reading and decoding --------------------------------------------------------

    def more(self) -> bool:
        """Decode another chunk onto `text` (at least as much as it holds, so a value read
        again after a refill costs twice its length in all); False at the end of the file."""
        if self.eof:
            return False
        data = self.pending + self.file.read(max(READ_CHUNK, len(self.text)))
        if len(data) == len(self.pending):
            self.eof = True
            if not data:
                return False
        cut = len(data) if self.eof else _complete_utf8(data)
        self.pending = data[cut:]
        try:
            piece = data[:cut].decode("utf-8")
        except UnicodeDecodeError as error:
            valid = data[: error.start].decode("utf-8")
            line, column = self.after(valid)
            raise _Fatal(
                f"line {line} column {column + 1}: not UTF-8 text (byte "
                f"0x{data[error.start]:02x} cannot be decoded)"
            ) from None
        self.end_line, self.end_column = self.after(piece)
        self.text += piece
        return True

    def after(self, piece: str) -> tuple[int, int]:
        """Where the end of the decoded text would be with `piece` appended."""
        newlines = piece.count("\n")
        if not newlines:
            return self.end_line, self.end_column + len(piece)
        return self.end_line + newlines, len(piece) - piece.rfind("\n") - 1

    def discard(self) -> None:
        """Drop what has been read, keeping the place of what is left."""
        if not self.pos:
            return
        gone = self.text[: self.pos]
        newlines = gone.count("\n")
        if newlines:
            self.line, self.column = self.line + newlines, len(gone) - gone.rfind("\n") - 1
        else:
            self.column += len(gone)
        self.text, self.pos = self.text[self.pos :], 0

    def place(self, index: int) -> tuple[int, int]:
        before = self.text[:index]
        newlines = before.count("\n")
        if newlines:
            return self.line + newlines, len(before) - before.rfind("\n")
        return self.line, self.column + len(before) + 1

    def fail(self, message: str, index: int | None = None) -> NoReturn:
        """A JSON error, as `json.loads` says it. Reading goes on to the end of the file first,
        since a byte that is not UTF-8 anywhere in it is the problem to report."""
        line, column = self.place(self.pos if index is None else index)
        self.stop(f"line {line} column {column}: not valid JSON ({message})")

    def stop(self, problem: str) -> NoReturn:
        """Stop at `problem`, once the rest of the file has been read (and dropped): a byte
        that is not UTF-8 anywhere in it outranks whatever stopped the reading."""
        self.text, self.pos = "", 0
        while self.more():
            self.text = ""
        raise _Fatal(problem)

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end of the file)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos : self.pos + 1]
            self.discard()
            if not self.more():
                return ""

    def value(self, cap: int, what: str) -> object:
        """The JSON value at the current place (after whitespace). Where the text read so far
        ends inside it, the next chunk is read and the value scanned again."""
        if not self.peek():
            self.fail("Expecting value")
        self.discard()  # what came before is read: the text held is this value and after
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as error:
                # Cut short by the chunk's end, or wrong whatever follows? A string that runs
                # to the end of the text says so where it starts; anything else, at the end.
                cut_short = error.msg.startswith("Unterminated string") or (
                    len(self.text) - error.pos < _NEAR_THE_END
                )
                if cut_short and self.more_for(cap, what):
                    continue
                self.fail(error.msg, error.pos)
            except RecursionError:
                self.stop("nested too deeply to be a grill export")
            # A number or word at the very end may go on in the next chunk (`1.` of `1.5`).
            if len(self.text) - end >= _NEAR_THE_END or not self.more_for(cap, what):
                self.pos = end
                return value

    def more_for(self, cap: int, what: str) -> bool:
        if len(self.text) - self.pos > cap:
            self.stop(f"{what}: longer than {cap:,} characters, far more than it can hold")
        return self.more()

    # -- the document ----------------------------------------------------------------

    def read(self) -> dict[str, object]:
        """The envelope: every top-level member but the attempts, and `attempts` as an empty
        list when it was a list (its members went to `attempt_found`)."""
        if self.peek() == "\ufeff":
            self.fail("Unexpected UTF-8 BOM (decode using utf-8-sig)")
        if self.peek() != "{":
            document = self.value(MAX_ATTEMPT_CHARS, "the file")
            self.end()
            return document if isinstance(document, dict) else {"": document}
        self.pos += 1
        envelope: dict[str, object] = {}
        if self.peek() == "}":
            self.pos += 1
            self.end()
            return envelope
        while True:
            if self.peek() != '"':
                self.fail("Expecting property name enclosed in double quotes")
            key = self.value(MAX_ATTEMPT_CHARS, "a key")
            assert isinstance(key, str)  # a JSON string
            if self.peek() != ":":
                self.fail("Expecting ':' delimiter")
            self.pos += 1
            if key == "attempts" and self.peek() == "[":
                self.attempts_restart()
                self.attempts()
                envelope[key] = []
            else:
                envelope[key] = self.value(MAX_ATTEMPT_CHARS, _member("", key).lstrip("."))
            following = self.peek()
            self.pos += 1
            if following == "}":
                break
            if following != ",":
                self.fail("Expecting ',' delimiter", self.pos - 1)
            if self.peek() != '"':
                self.fail("Expecting property name enclosed in double quotes")
        self.end()
        return envelope

    def attempts(self) -> None:
        self.pos += 1  # the list's `[`
        if self.peek() == "]":
            self.pos += 1
            return
        index = 0
        while True:
            item = self.value(MAX_ATTEMPT_CHARS, f"attempts[{index}]")
            self.discard()
            self.attempt_found(index, item)
            index += 1
            following = self.peek()
            self.pos += 1
            if following == "]":
                return
            if following != ",":
                self.fail("Expecting ',' delimiter", self.pos - 1)

    def end(self) -> None:
        if self.peek():
            self.fail("Extra data")


def _complete_utf8(data: bytes) -> int:
    """How much of `data` ends on a whole UTF-8 character (a chunk may cut one in two)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:  # a continuation byte: look further back for its lead
            continue
        needed = 1 if byte < 0xC0 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return len(data) - back if needed > back else len(data)
    return len(data)


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
    timeless = (  # else the model's default fills it in: the moment of the import
        [f"{where}.started_at: required, when the attempt was made (every export has it)"]
        if isinstance(item, dict) and "started_at" not in item
        else []
    )
    try:
        # Strict, as JSON reads: `true` is not a number of seconds, nor 1700000000 a time.
        fields = from_stored(item) if isinstance(item, dict) else item
        attempt = _attempt_adapter().validate_json(json.dumps(fields), strict=True)
    except ValidationError as error:
        return None, [
            f"{where}{_location(_stored_loc(e['loc']))}: {e['msg']}" for e in error.errors()
        ] + timeless
    if timeless:
        return None, timeless
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


def _unknown_fields(given: dict, kept: dict) -> list[str]:
    """The keys of an attempt as given that its stored form has not (a newer grill's fields),
    the code result's as `code.KEY`."""
    unknown = [key for key in given if key not in kept]
    code, kept_code = given.get("code"), kept.get("code")
    if isinstance(code, dict) and isinstance(kept_code, dict):
        unknown += [f"code.{key}" for key in code if key not in kept_code]
    return unknown


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
