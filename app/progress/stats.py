"""Progress figures for the stats screen, `grill stats` and the Markdown export.

Everything that grows with the number of attempts is an SQL aggregate; Python only touches
per-card or per-day rows, so 100,000 attempts still compute in well under half a second.
Cards are grouped into packs through a temporary table of the loaded cards and their time
budgets, joined in SQL. The figures read attempts through temporary views that leave out rows
whose time grill cannot read (another program edited them), named in `history.unreadable` for
the command to report; an answer time no attempt can have is left out of the averages.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta

from app.clock import day_start, day_start_hour, end_of_local_day, local_day, stamp, to_utc, utc_now
from app.progress.attempt import MAX_PHASE_SECONDS
from app.progress.history import History
from questions.levels import LEVELS
from questions.library import LoadedCard

ACTIVITY_DAYS = 30
TOP_MISSES = 10
ALL_PACKS = "all"
"""The single group when no cards are given, so packs are unknown."""
OTHER_PACK = "other"
"""Cards in the history that no loaded pack has any more; they are never due."""

_READABLE_TIME = "(length(started_at) = 32 AND date(started_at, 'localtime') IS NOT NULL)"
"""A started_at the figures can place on a day: grill's fixed-width stamp
('2026-03-02T09:00:00.000000+00:00'); SQLite's date() alone also takes 'now' and numbers."""
_IN_WORDS = (
    "(a.answer_text != '' OR CASE WHEN json_valid(a.phase_seconds)"
    " THEN json_extract(a.phase_seconds, '$.code') END IS NULL)"
)
"""An attempt answered in words: on a code task whose code was opened with nothing typed, the
candidate answered in code alone, so its answer clock (stopped when the code opened) and the
key points it left unticked say nothing of an answer in words."""
_COUNTED_ANSWER = f"a.answer_seconds BETWEEN 0 AND {MAX_PHASE_SECONDS} AND {_IN_WORDS}"
"""An answer time the figures count: a number of seconds grill could have recorded (text,
negative or overflowing values written by another program are not averaged), of an answer in
words."""


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class Recall:
    """Retention from a figure's `reviews` and `recalled` fields (a mixin, not fields itself)."""

    reviews: int
    recalled: int

    @property
    def retention(self) -> float | None:
        """Reviews not rated Again, as a share of reviews; None before the first review."""
        return _share(self.recalled, self.reviews)


@dataclass(frozen=True)
class PackFigures(Recall):
    pack: str
    cards: int
    """Cards the pack has (for `all` and `other`: the cards seen)."""
    seen: int
    due: int
    """Due by the end of today."""
    reviews: int
    """Attempts on a card already seen before: what retention is measured on."""
    recalled: int
    """Reviews not rated Again."""


@dataclass(frozen=True)
class LevelFigures(Recall):
    level: str
    reviews: int
    recalled: int


@dataclass(frozen=True)
class AnswerTime:
    """How long answers took against each card's ~20 s basic and ~50 s solid budgets."""

    answers: int
    """Attempts with a timed answer phase."""
    mean_seconds: float | None
    budgeted: int
    """Timed answers whose card is loaded, so its budgets are known."""
    within_basic: int
    within_solid: int
    """Includes those within the basic budget."""
    mean_basic_budget: float | None
    mean_solid_budget: float | None

    @property
    def within_basic_share(self) -> float | None:
        return _share(self.within_basic, self.budgeted)

    @property
    def within_solid_share(self) -> float | None:
        return _share(self.within_solid, self.budgeted)


@dataclass(frozen=True)
class Missed:
    card_id: str
    text: str
    times: int


@dataclass(frozen=True)
class DayActivity:
    day: date
    attempts: int


@dataclass(frozen=True)
class Stats:
    generated_at: datetime
    attempts: int
    cards_seen: int
    due_today: int
    streak_days: int
    """Consecutive days with practice, ending today (or yesterday, until today is over)."""
    packs: tuple[PackFigures, ...]
    levels: tuple[LevelFigures, ...]
    """Retention by the level answered at; `--json` and the screens call it by tier."""
    answer_time: AnswerTime
    missed_key_points: tuple[Missed, ...]
    red_flags_said: tuple[Missed, ...]
    activity: tuple[DayActivity, ...]
    """The last ACTIVITY_DAYS local days, oldest first, including days without practice."""

    def to_dict(self) -> dict:
        data = asdict(self)
        data["generated_at"] = stamp(self.generated_at)
        data["activity"] = [
            {"day": a.day.isoformat(), "attempts": a.attempts} for a in self.activity
        ]
        retained: tuple[tuple[str, Sequence[PackFigures | LevelFigures]], ...] = (
            ("packs", self.packs),
            ("levels", self.levels),
        )
        for key, figures in retained:
            for row, item in zip(data[key], figures, strict=True):
                row["retention"] = item.retention
        data["answer_time"]["within_basic_share"] = self.answer_time.within_basic_share
        data["answer_time"]["within_solid_share"] = self.answer_time.within_solid_share
        # `--json` keeps the names it has always had: `tiers`, each with its `tier`.
        data["levels"] = [{"tier": row.pop("level"), **row} for row in data["levels"]]
        return {("tiers" if key == "levels" else key): value for key, value in data.items()}


def compute_stats(
    history: History, cards: Sequence[LoadedCard] | None = None, *, now: datetime | None = None
) -> Stats:
    """All the figures at `now`; without `cards`, per-pack figures collapse into one group."""
    now = to_utc(now) if now is not None else utc_now()
    today = local_day(now)
    with history.reading() as db:
        _leave_out_unreadable(db, history)
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS stats_cards "
            "(card_id TEXT PRIMARY KEY, pack TEXT NOT NULL, basic REAL, solid REAL)"
        )
        db.execute("DELETE FROM temp.stats_cards")
        db.executemany(
            "INSERT OR IGNORE INTO temp.stats_cards VALUES (?, ?, ?, ?)",
            [(c.id, c.pack, c.summary.basic_seconds, c.summary.solid_seconds) for c in cards or ()],
        )
        unknown = ALL_PACKS if cards is None else OTHER_PACK
        attempts = db.execute("SELECT count(*) FROM temp.stats_attempts").fetchone()[0]
        packs = _pack_figures(db, cards, unknown, cutoff=stamp(end_of_local_day(now)))
        levels = _level_figures(db)
        answer_time = AnswerTime(
            *db.execute(
                "SELECT count(a.answer_seconds), avg(a.answer_seconds), count(c.basic), "
                "coalesce(sum(a.answer_seconds <= c.basic), 0), coalesce(sum(a.answer_seconds <= c.solid), 0), "
                "avg(c.basic), avg(c.solid) "
                "FROM temp.stats_attempts AS a LEFT JOIN temp.stats_cards AS c ON c.card_id = a.card_id "
                f"WHERE {_COUNTED_ANSWER}"
            ).fetchone()
        )
        missed = [_top_misses(db, kind) for kind in ("key_point", "red_flag")]
        day_shift = f"-{day_start_hour()} hours"  # the local day an attempt counts for (app.clock)
        days = [
            date.fromisoformat(d)
            for (d,) in db.execute(
                "SELECT DISTINCT date(started_at, 'localtime', ?) AS d FROM temp.stats_attempts "
                "WHERE d IS NOT NULL ORDER BY d DESC",
                (day_shift,),
            )
        ]  # NULL: an index's copy of the time is damaged
        since = stamp(day_start(today - timedelta(days=ACTIVITY_DAYS - 1)))
        recent = dict(
            db.execute(
                "SELECT date(started_at, 'localtime', ?) AS d, count(*) FROM temp.stats_attempts "
                "WHERE started_at >= ? GROUP BY d",
                (day_shift, since),
            )
        )
    return Stats(
        generated_at=now,
        attempts=attempts,
        cards_seen=sum(p.seen for p in packs),
        due_today=sum(p.due for p in packs),
        streak_days=_streak(days, today),
        packs=packs,
        levels=levels,
        answer_time=answer_time,
        missed_key_points=missed[0],
        red_flags_said=missed[1],
        activity=tuple(
            DayActivity(day, recent.get(day.isoformat(), 0))
            for day in (today - timedelta(days=n) for n in range(ACTIVITY_DAYS - 1, -1, -1))
        ),
    )


def _leave_out_unreadable(db: sqlite3.Connection, history: History) -> None:
    """Point the figures at the rows whose time they can read, and name the others in
    `history.unreadable`. The views filter only when there is something to leave out, so a
    history without such rows pays for one scan of the start times alone."""
    unreadable = db.execute(
        f"SELECT id, started_at FROM main.attempts WHERE NOT {_READABLE_TIME}"
    ).fetchall()
    for attempt_id, started_at in unreadable:
        history.unreadable[attempt_id] = f"started_at {started_at!r} is not a time"
    db.execute("CREATE TEMP TABLE IF NOT EXISTS stats_unreadable (id TEXT PRIMARY KEY)")
    db.execute("DELETE FROM temp.stats_unreadable")
    db.executemany(
        "INSERT OR IGNORE INTO temp.stats_unreadable VALUES (?)", [(row[0],) for row in unreadable]
    )
    for view, table, key in (
        ("stats_attempts", "attempts", "id"),
        ("stats_misses", "misses", "attempt_id"),
    ):
        db.execute(f"DROP VIEW IF EXISTS temp.{view}")
        keep = f" WHERE {key} NOT IN temp.stats_unreadable" if unreadable else ""
        db.execute(f"CREATE TEMP VIEW {view} AS SELECT * FROM main.{table}{keep}")


def _pack_figures(
    db: sqlite3.Connection, cards: Sequence[LoadedCard] | None, unknown: str, cutoff: str
) -> tuple[PackFigures, ...]:
    size = Counter(c.pack for c in cards or ())
    seen: Counter[str] = Counter()
    due: Counter[str] = Counter()
    for pack, is_due in db.execute(
        "SELECT coalesce(c.pack, ?), s.due < ? FROM card_state AS s "
        "LEFT JOIN temp.stats_cards AS c USING (card_id)",
        (unknown, cutoff),
    ):
        seen[pack] += 1
        if is_due and pack != OTHER_PACK:
            due[pack] += 1
    reviewed = {
        pack: (reviews, recalled)
        for pack, reviews, recalled in db.execute(
            "SELECT coalesce(c.pack, ?) AS pack, sum(a.is_review), sum(a.is_review AND a.rating != 'again') "
            "FROM temp.stats_attempts AS a LEFT JOIN temp.stats_cards AS c USING (card_id) GROUP BY pack",
            (unknown,),
        )
    }
    names = list(size) + sorted(set(seen) - set(size))
    return tuple(
        PackFigures(
            pack, size[pack] or seen[pack], seen[pack], due[pack], *reviewed.get(pack, (0, 0))
        )
        for pack in names
    )


def _level_figures(db: sqlite3.Connection) -> tuple[LevelFigures, ...]:
    rows = {
        level: (reviews, recalled)
        for level, reviews, recalled in db.execute(  # the history stores the level as `tier`
            "SELECT tier, sum(is_review), sum(is_review AND rating != 'again') FROM temp.stats_attempts GROUP BY tier"
        )
    }
    return tuple(LevelFigures(level, *rows[level]) for level in LEVELS if level in rows)


def _top_misses(db: sqlite3.Connection, kind: str) -> tuple[Missed, ...]:
    return tuple(
        Missed(*row)
        for row in db.execute(
            "SELECT card_id, text, count(*) AS times FROM temp.stats_misses WHERE kind = ? "
            "AND (kind != 'key_point' OR attempt_id IN "
            f"(SELECT a.id FROM temp.stats_attempts AS a WHERE {_IN_WORDS})) "
            "GROUP BY card_id, text ORDER BY times DESC, card_id, text LIMIT ?",
            (kind, TOP_MISSES),
        )
    )


def _streak(days_newest_first: list[date], today: date) -> int:
    days_newest_first = [day for day in days_newest_first if day <= today]
    expected = (
        today if days_newest_first and days_newest_first[0] == today else today - timedelta(days=1)
    )
    streak = 0
    for day in days_newest_first:
        if day != expected:
            break
        streak += 1
        expected -= timedelta(days=1)
    return streak
