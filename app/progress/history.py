"""The history: every attempt and each card's schedule, in one SQLite file that survives crashes.

Each write is one transaction holding both the attempt and the card's new schedule, in WAL
mode with full sync, so a crash or `kill -9` loses at most the answer not yet recorded. A
file grill cannot use (damaged, someone else's, or from a newer grill) raises HistoryError
before anything is written to it (see `file_check`): grill never repairs, overwrites or
deletes it on its own. A single row grill cannot read (edited by another program, or with
damaged bytes) is left out and named in `History.unreadable`, for the command to report.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

import fsrs

from app import paths
from app.clock import (
    DEFAULT_DAY_START_HOUR,
    day_start,
    end_of_local_day,
    local_day,
    parse_stamp,
    set_day_start_hour,
    stamp,
    to_utc,
    utc_now,
)
from app.progress.attempt import Attempt, SessionKind
from app.progress.errors import HistoryError, disk_problem, error_for, space_needed
from app.progress.file_check import check_before_writing, check_file_kinds, check_usable
from app.progress.queue import Seen, TodaysQueue, build_queue
from app.progress.rating import RATINGS, Rating
from app.progress.records import attempt_from_dict, attempt_to_dict
from app.progress.scheduler import (
    DEFAULT_SCHEDULING,
    SCHEDULING_KEYS,
    CardSchedule,
    Scheduling,
    StateName,
    replay,
    review,
)
from app.progress.schema import SCHEMA_VERSION, migrate, schema_version
from app.progress.transaction import write_transaction

BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process's write transaction before saying the file is locked."""

DEFAULT_NEW_PER_DAY = 10
DAY_START_KEY = "day_starts_at"
"""The setting of the local hour (0 to 23) each day starts at (`app.clock`)."""
"""New cards introduced per day when the `new_per_day` setting is unset."""
INTRODUCED_BY_PRACTICE = (
    "(card_state.introduced_at >= ? AND NOT EXISTS (SELECT 1 FROM attempts WHERE"
    " attempts.card_id = card_state.card_id AND attempts.mode = 'mock'"
    " AND attempts.started_at <= card_state.introduced_at))"
)
"""A card first seen since the given time, and in practice: the day's new-card limit is what
practice introduces, and a mock, which draws its own questions, does not use it up."""
MAX_SETTING_BYTES = 64 * 1024
"""A setting is a word or a number; a longer value (another program's) is never read."""

LEARNING_STATES = frozenset({1, 3})
"""fsrs.State.Learning and Relearning, as `memory` stores them: cards with steps of minutes."""

_JSON_COLUMNS = ("phase_seconds", "key_points_hit", "key_points_missed", "red_flags_said", "code")
_ATTEMPT_COLUMNS = (
    "id",
    "card_id",
    "mode",
    "rating",
    "tier",
    "started_at",
    *_JSON_COLUMNS,
    "answer_text",
    "session_id",
    "solution_viewed",
    "answer_seconds",
    "is_review",
)
_READ_COLUMNS = _ATTEMPT_COLUMNS[:-2]  # answer_seconds and is_review are for SQL queries only
_SELECT_ATTEMPTS = f"SELECT {', '.join(_READ_COLUMNS)} FROM attempts"
_INSERT_ATTEMPT = (
    f"INSERT OR IGNORE INTO attempts ({', '.join(_ATTEMPT_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_ATTEMPT_COLUMNS))})"
)


@dataclass(frozen=True)
class CardFlags:
    """A card taken out of the queues without a rating."""

    suspended: bool = False
    """Out of every queue until the candidate brings it back."""
    buried_until: datetime | None = None
    """Out of the queues until then (the start of the next day)."""

    def hides(self, now: datetime) -> bool:
        return self.suspended or (self.buried_until is not None and self.buried_until > now)


@dataclass(frozen=True)
class CardProgress:
    """Where one card stands, as home and the practice screen show it."""

    due: datetime
    state: StateName
    reps: int
    lapses: int
    last_rating: Rating
    last_seen: datetime


def _check_fields(attempt: Attempt) -> None:
    """A programming error is named as such, rather than surfacing as a SQL constraint failure."""
    if attempt.rating not in RATINGS:
        raise ValueError(
            f"attempt {attempt.id}: rating {attempt.rating!r} is not one of {', '.join(RATINGS)}"
        )
    if attempt.mode not in get_args(SessionKind):
        raise ValueError(
            f"attempt {attempt.id}: mode {attempt.mode!r} is not one of {', '.join(get_args(SessionKind))}"
        )


def _attempt_row(attempt: Attempt, is_review: bool) -> tuple:
    data = attempt_to_dict(attempt)
    for column in _JSON_COLUMNS:
        data[column] = None if data[column] is None else json.dumps(data[column])
    data["answer_seconds"] = attempt.phase_seconds.get("answer")
    data["is_review"] = int(is_review)
    return tuple(data[column] for column in _ATTEMPT_COLUMNS)


class DamagedText(str):
    """Text whose stored bytes are not UTF-8 (damage, or another program): figures show it with
    U+FFFD for the bad bytes; it is never taken as an attempt's own words."""


def _decode_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return DamagedText(data.decode("utf-8", "replace"))


class _UnreadableRow(Exception):
    """Says what is wrong with a row, in words naming the column."""


def _attempt_from_row(row: Sequence) -> Attempt:
    data = dict(zip(_READ_COLUMNS, row, strict=True))
    damaged = [column for column, value in data.items() if isinstance(value, DamagedText)]
    if damaged:
        raise _UnreadableRow(f"{damaged[0]} holds bytes that are not UTF-8 text")
    for column in _JSON_COLUMNS:
        if data[column] is not None:
            try:
                data[column] = json.loads(
                    data[column], parse_float=_finite_float, parse_constant=_not_a_number
                )
            except (TypeError, ValueError, RecursionError) as error:
                raise _UnreadableRow(
                    f"{column} is not JSON grill can read ({_shown(data[column])})"
                ) from error
    _parsed_stamp(data["started_at"])
    try:
        return attempt_from_dict(data)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise _UnreadableRow(f"its values do not make an attempt ({error})") from error


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


def _not_a_number(text: str) -> float:
    raise ValueError(f"{text} is not a number JSON allows")


def _parsed_stamp(value: object) -> datetime:
    """A started_at as grill writes it: an ISO time with its zone (scheduling needs UTC)."""
    if not isinstance(value, str):  # a number, bytes or NULL another program wrote
        raise _UnreadableRow(f"started_at {_shown(value)} is not a time")
    try:
        moment = parse_stamp(value)
    except ValueError as error:
        raise _UnreadableRow(f"started_at {_shown(value)} is not a time") from error
    if moment.tzinfo is None:
        raise _UnreadableRow(f"started_at {_shown(value)} has no time zone")
    return moment


def _learning(memory: str) -> bool:
    """Whether a stored fsrs card is in learning or relearning (steps of minutes)."""
    try:
        return json.loads(memory).get("state") in LEARNING_STATES
    except (TypeError, ValueError, AttributeError):
        return False


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


class History:
    """One open history file. Safe to share between the UI thread and its workers."""

    def __init__(
        self, connection: sqlite3.Connection, path: Path, *, checked_for_writing: bool = False
    ):
        self.connection = connection
        """Prefer `reading()`, which also holds the lock; writes go through the methods."""
        self.path = path
        self.unreadable: dict[str, str] = {}
        """Rows left out so far because grill cannot read them: attempt id -> what is wrong."""
        self._lock = threading.RLock()
        self._checked_for_writing = checked_for_writing

    @classmethod
    def open(cls, path: Path | None = None) -> History:
        """Open (creating it if needed) and migrate the history; default is `app.paths.history_path()`."""
        path = Path(path) if path is not None else paths.history_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HistoryError(
                path,
                f"its folder cannot be created ({error.strerror})",
                "check the permissions, or set GRILL_HOME to a writable folder",
            ) from error
        status = check_file_kinds(path)
        existing = status is not None and status.st_size > 0
        if existing:
            check_usable(path, BUSY_TIMEOUT_S)
        connection = None
        needed = space_needed(path)
        if not existing:  # before connecting, which makes the file
            problem = disk_problem(path, needed)
            if problem is not None:
                raise problem
        try:
            connection = sqlite3.connect(
                path, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
            )
            connection.text_factory = _decode_text
            in_wal = existing and connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            migrating = existing and schema_version(connection) < SCHEMA_VERSION
            upgrading = existing and (migrating or not in_wal)
            if upgrading:
                # Switching to WAL and migrating both write: nothing is changed unless the
                # disk can take the whole change (a full disk, a read-only mount, no inodes).
                problem = disk_problem(path, needed)
                if problem is not None:
                    raise problem
            if upgrading:
                check_before_writing(connection, path)
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            if migrating:  # first, in the file's own journal mode: a failure rolls back whole
                migrate(connection)
            if not in_wal:  # only once the file is at the current version
                connection.execute("PRAGMA journal_mode = WAL")
            migrate(connection)  # a fresh file's tables (or one another grill just migrated)
        except (sqlite3.Error, HistoryError) as error:
            if connection is not None:
                connection.close()
            if isinstance(error, HistoryError):
                raise
            raise error_for(path, error, BUSY_TIMEOUT_S, needed=needed) from error
        history = cls(connection, path, checked_for_writing=not existing or upgrading)
        history._apply_day_start()
        return history

    def close(self) -> None:
        with self._lock:
            self.connection.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection for read-only queries (statistics), held against other threads;
        SQLite failures come out as a HistoryError naming the file."""
        with self._lock:
            try:
                yield self.connection
            except sqlite3.Error as error:
                raise error_for(self.path, error, BUSY_TIMEOUT_S) from error

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.reading() as connection:
            if not self._checked_for_writing:
                check_before_writing(connection, self.path)
                self._checked_for_writing = True
            with write_transaction(connection):
                yield connection

    # -- writing -------------------------------------------------------------------------

    def record(self, attempt: Attempt) -> None:
        """Store the attempt and the card's new schedule together; a known `attempt.id` is a no-op."""
        with self._transaction() as connection:
            current = self._schedule(connection, attempt.card_id)
            started = to_utc(attempt.started_at)
            in_order = current is None or started > current.last_seen
            if not self._insert(connection, attempt, is_review=current is not None):
                return
            if in_order:
                self._save_schedule(
                    connection,
                    attempt.card_id,
                    review(current, attempt.rating, started, self.scheduling()),
                )
            else:
                self._replay_card(connection, attempt.card_id)

    def undo(self, attempt_id: str) -> bool:
        """Take back one attempt (a rating given by mistake): the attempt and its misses go, and
        the card's schedule is replayed from the attempts left, or the card is new again when
        none is. Returns whether there was such an attempt."""
        with self._transaction() as connection:
            row = connection.execute(
                "SELECT card_id FROM attempts WHERE id = ?", (attempt_id,)
            ).fetchone()
            if row is None:
                return False
            (card_id,) = row
            connection.execute("DELETE FROM misses WHERE attempt_id = ?", (attempt_id,))
            connection.execute("DELETE FROM attempts WHERE id = ?", (attempt_id,))
            left = connection.execute(
                "SELECT count(*) FROM attempts WHERE card_id = ?", (card_id,)
            ).fetchone()[0]
            if left:
                self._replay_card(connection, card_id)
            else:
                connection.execute("DELETE FROM card_state WHERE card_id = ?", (card_id,))
        return True

    def set_suspended(self, card_id: str, suspended: bool) -> None:
        """Take a card out of every queue (or bring it back); its schedule is kept."""
        self._set_flags(card_id, suspended=int(suspended))

    def bury(self, card_id: str, until: datetime | None) -> None:
        """Keep a card out of the queues until `until` (None: bring it back now)."""
        self._set_flags(card_id, buried_until=None if until is None else stamp(to_utc(until)))

    def _set_flags(self, card_id: str, **values: object) -> None:
        with self._transaction() as connection:
            connection.execute("INSERT OR IGNORE INTO card_flags (card_id) VALUES (?)", (card_id,))
            for column, value in values.items():
                connection.execute(
                    f"UPDATE card_flags SET {column} = ? WHERE card_id = ?", (value, card_id)
                )
            connection.execute(
                "DELETE FROM card_flags WHERE card_id = ? AND suspended = 0 AND buried_until IS NULL",
                (card_id,),
            )

    def merge(self, attempts: Iterable[Attempt]) -> int:
        """Add the attempts not already here (by id), in one transaction; returns how many were new.

        Importing the same export twice therefore changes nothing the second time. Each card
        that gained attempts has its schedule replayed from all of them, in time order.
        """
        added, touched = 0, set()
        with self._transaction() as connection:
            for attempt in attempts:
                if self._insert(connection, attempt, is_review=False):
                    added += 1
                    touched.add(attempt.card_id)
            settings = self.scheduling()
            for card_id in touched:
                self._replay_card(connection, card_id, settings)
        return added

    def _insert(self, connection: sqlite3.Connection, attempt: Attempt, *, is_review: bool) -> bool:
        _check_fields(attempt)
        cursor = connection.execute(_INSERT_ATTEMPT, _attempt_row(attempt, is_review))
        if cursor.rowcount == 0:
            return False
        misses = [
            (attempt.id, attempt.card_id, "key_point", text) for text in attempt.key_points_missed
        ]
        misses += [
            (attempt.id, attempt.card_id, "red_flag", text) for text in attempt.red_flags_said
        ]
        connection.executemany(
            "INSERT INTO misses (attempt_id, card_id, kind, text) VALUES (?, ?, ?, ?)", misses
        )
        return True

    def _replay_card(
        self, connection: sqlite3.Connection, card_id: str, settings: Scheduling | None = None
    ) -> None:
        ratings = []
        for attempt_id, rating, started_at in connection.execute(
            "SELECT id, rating, started_at FROM attempts WHERE card_id = ? ORDER BY started_at, id",
            (card_id,),
        ):
            try:
                ratings.append((attempt_id, rating, _parsed_stamp(started_at)))
            except _UnreadableRow as unreadable:
                self.unreadable[attempt_id] = str(unreadable)
        # The caller has just stored one readable attempt of this card, so `ratings` is never empty.
        connection.execute(
            "UPDATE attempts SET is_review = (id != ?) WHERE card_id = ?", (ratings[0][0], card_id)
        )
        settings = settings if settings is not None else self.scheduling()
        schedule = replay([(rating, at) for _, rating, at in ratings], settings)
        assert schedule is not None  # replaying at least one rating gives a schedule
        self._save_schedule(connection, card_id, schedule)

    @staticmethod
    def _save_schedule(
        connection: sqlite3.Connection, card_id: str, schedule: CardSchedule
    ) -> None:
        connection.execute(
            "INSERT OR REPLACE INTO card_state (card_id, memory, due, reps, lapses, last_rating, last_seen, "
            "introduced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                card_id,
                json.dumps(schedule.memory.to_dict()),
                stamp(schedule.due),
                schedule.reps,
                schedule.lapses,
                schedule.last_rating,
                stamp(schedule.last_seen),
                stamp(schedule.introduced_at),
            ),
        )

    @staticmethod
    def _schedule(connection: sqlite3.Connection, card_id: str) -> CardSchedule | None:
        row = connection.execute(
            "SELECT memory, reps, lapses, last_rating, last_seen, introduced_at FROM card_state WHERE card_id = ?",
            (card_id,),
        ).fetchone()
        if row is None:
            return None
        memory, reps, lapses, last_rating, last_seen, introduced_at = row
        return CardSchedule(
            fsrs.Card.from_dict(json.loads(memory)),
            reps,
            lapses,
            last_rating,
            parse_stamp(last_seen),
            parse_stamp(introduced_at),
        )

    # -- reading -------------------------------------------------------------------------

    def attempts(self, card_id: str | None = None) -> list[Attempt]:
        """Attempts oldest first, for one card or all; rows grill cannot read go to `unreadable`."""
        return list(self.iter_attempts(card_id))

    def iter_attempts(self, card_id: str | None = None) -> Iterator[Attempt]:
        """`attempts()` one at a time, read from the file as they are asked for, so a history
        of any size is walked in constant memory (`grill export`). The connection is held
        until the iteration ends."""
        with self.reading() as connection:
            if card_id is None:
                rows = connection.execute(f"{_SELECT_ATTEMPTS} ORDER BY started_at, id")
            else:
                rows = connection.execute(
                    f"{_SELECT_ATTEMPTS} WHERE card_id = ? ORDER BY started_at, id", (card_id,)
                )
            for row in rows:
                try:
                    attempt = _attempt_from_row(row)
                except _UnreadableRow as unreadable:
                    self.unreadable[row[0]] = str(unreadable)
                    continue
                yield attempt

    def due_dates(self) -> dict[str, datetime]:
        """When each card seen before comes back, in one read (cards never practised are absent)."""
        with self.reading() as connection:
            rows = connection.execute("SELECT card_id, due FROM card_state").fetchall()
        return {card_id: parse_stamp(due) for card_id, due in rows}

    def card_flags(self) -> dict[str, CardFlags]:
        """The cards suspended or buried (a burial that has passed is still listed)."""
        with self.reading() as connection:
            rows = connection.execute(
                "SELECT card_id, suspended, buried_until FROM card_flags"
            ).fetchall()
        flags = {}
        for card_id, suspended, buried_until in rows:
            try:
                until = parse_stamp(buried_until) if buried_until else None
            except (TypeError, ValueError):
                until = None  # another program's value: the burial is forgotten, not fatal
            flags[card_id] = CardFlags(bool(suspended), until)
        return flags

    def _hidden(self, now: datetime) -> set[str]:
        return {card_id for card_id, flags in self.card_flags().items() if flags.hides(now)}

    def progress(self, card_id: str) -> CardProgress | None:
        with self.reading() as connection:
            schedule = self._schedule(connection, card_id)
        if schedule is None:
            return None
        return CardProgress(
            due=schedule.due,
            state=schedule.state,
            reps=schedule.reps,
            lapses=schedule.lapses,
            last_rating=schedule.last_rating,
            last_seen=schedule.last_seen,
        )

    def due_queue(
        self,
        card_ids: Sequence[str],
        *,
        now: datetime | None = None,
        new_per_day: int | None = None,
        extra: int = 0,
    ) -> list[str]:
        """What to practise next, from among `card_ids` (the cards the caller can show).

        First the cards due by the end of today (local time), most overdue first; then new
        cards in the order given, up to the daily limit less those already introduced today;
        then, when `extra` > 0, up to `extra` more: not-yet-due cards soonest first, and after
        them further new cards beyond the limit.
        """
        now = to_utc(now) if now is not None else utc_now()
        if new_per_day is None:
            stored = self.get_setting("new_per_day", DEFAULT_NEW_PER_DAY)
            new_per_day = stored if isinstance(stored, int) and stored >= 0 else DEFAULT_NEW_PER_DAY
        with self.reading() as connection:
            known = dict(connection.execute("SELECT card_id, due FROM card_state"))
            introduced_today = connection.execute(
                f"SELECT count(*) FROM card_state WHERE {INTRODUCED_BY_PRACTICE}",
                (stamp(day_start(local_day(now))),),
            ).fetchone()[0]
        cutoff = stamp(end_of_local_day(now))
        hidden = self._hidden(now)
        wanted = [c for c in dict.fromkeys(card_ids) if c not in hidden]
        seen = sorted((known[c], c) for c in wanted if c in known)
        new = [c for c in wanted if c not in known]
        due = [c for when, c in seen if when < cutoff]
        fresh_allowed = max(0, new_per_day - introduced_today)
        queue = due + new[:fresh_allowed]
        if extra > 0:
            later = [c for when, c in seen if when >= cutoff] + new[fresh_allowed:]
            queue += later[:extra]
        return queue

    def todays_queue(
        self,
        packs: Mapping[str, Sequence[str]],
        *,
        now: datetime | None = None,
        new_per_day: int = DEFAULT_NEW_PER_DAY,
        new_per_pack: int = DEFAULT_NEW_PER_DAY,
    ) -> TodaysQueue:
        """Today's queue of each pack and of every pack together (`app.progress.queue`): due
        cards, then new ones within each pack's daily limit and the overall one. Suspended and
        buried cards are in none."""
        now = to_utc(now) if now is not None else utc_now()
        today = stamp(day_start(local_day(now)))
        with self.reading() as connection:
            rows = connection.execute(
                f"SELECT card_id, due, memory, {INTRODUCED_BY_PRACTICE} FROM card_state", (today,)
            ).fetchall()
        seen, introduced = {}, set()
        for card_id, due, memory, new_today in rows:
            seen[card_id] = Seen(parse_stamp(due), _learning(memory))
            if new_today:
                introduced.add(card_id)
        return build_queue(
            packs,
            seen,
            cutoff=end_of_local_day(now),
            new_per_day=new_per_day,
            new_per_pack=new_per_pack,
            introduced_today=introduced,
            hidden=self._hidden(now),
        )

    # -- settings ------------------------------------------------------------------------

    def get_setting(self, key: str, default: Any = None) -> Any:
        """The stored value, or `default` when there is none grill can read: one over
        `MAX_SETTING_BYTES` (never read whole), or text that is not JSON (another program's)."""
        with self.reading() as connection:
            row = connection.execute(
                "SELECT length(CAST(value AS BLOB)) <= ?, CASE WHEN length(CAST(value AS BLOB)) "
                "<= ? THEN value END FROM settings WHERE key = ?",
                (MAX_SETTING_BYTES, MAX_SETTING_BYTES, key),
            ).fetchone()
        if row is None or not row[0] or not isinstance(row[1], str):
            return default
        try:
            return json.loads(row[1], parse_constant=_not_a_number)
        except (ValueError, RecursionError):
            return default

    def scheduling(self) -> Scheduling:
        """The scheduler's settings (`app.ui.settings`): desired retention and the learning
        and relearning steps, each the default when unset or not one grill accepts."""
        settings = DEFAULT_SCHEDULING
        for key in SCHEDULING_KEYS:
            try:
                settings = replace(settings, **{key: self.get_setting(key, getattr(settings, key))})
            except ValueError:
                continue
        return settings

    def _apply_day_start(self) -> None:
        """Make the stored hour the day starts at the process's (`app.clock`), the default when
        unset or not an hour."""
        try:
            set_day_start_hour(self.get_setting(DAY_START_KEY, DEFAULT_DAY_START_HOUR))
        except ValueError:
            set_day_start_hour(DEFAULT_DAY_START_HOUR)

    def all_settings(self) -> dict[str, Any]:
        """Every setting grill can read, by key (`get_setting`'s rules), for an export."""
        with self.reading() as connection:
            keys = [key for (key,) in connection.execute("SELECT key FROM settings ORDER BY key")]
        missing = object()
        found = {key: self.get_setting(key, missing) for key in keys}
        return {key: value for key, value in found.items() if value is not missing}

    def set_setting(self, key: str, value: Any) -> None:
        """Values are stored as JSON; anything json.dumps refuses raises ValueError. A changed
        scheduler setting replays every card's schedule, which is a function of its attempts
        and those settings; a changed day start holds from now on."""
        try:
            text = json.dumps(value)
        except TypeError as error:
            raise ValueError(f"setting {key!r} must be JSON-serialisable: {error}") from error
        before = self.scheduling() if key in SCHEDULING_KEYS else None
        with self._transaction() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, text)
            )
            after = self.scheduling() if before is not None else None
            if after != before:
                card_ids = [
                    card_id for (card_id,) in connection.execute("SELECT card_id FROM card_state")
                ]
                for card_id in card_ids:
                    self._replay_card(connection, card_id, after)
        if key == DAY_START_KEY:
            self._apply_day_start()
