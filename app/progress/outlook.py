"""Mastery per pack and per tag, and the due forecast: what the Stats screen draws as pictures.

Kept apart from `stats` (the figures `grill stats` prints) because it answers another question,
"how well do I know each part, and what is coming", and only the app draws it. Like `stats`,
everything that grows with the history is an SQL aggregate over temporary tables of the
loaded cards and their tags.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from app.clock import day_start, local_day, parse_stamp, stamp, to_utc
from app.progress.history import History
from app.progress.stats import Recall
from questions.library import LoadedCard

FORECAST_DAYS = 14
MASTERED = ("good", "easy")
"""A card whose last rating is one of these counts as mastered, as Anki's "mature" does for intervals."""


@dataclass(frozen=True)
class Mastery(Recall):
    """How well one pack or tag is known."""

    name: str
    cards: int
    """Cards loaded in the group."""
    mastered: int
    """Of those, cards last rated Good or Easy."""
    reviews: int
    """Attempts on a card already seen before."""
    recalled: int
    """Reviews not rated Again."""

    @property
    def share(self) -> float:
        return self.mastered / self.cards if self.cards else 0.0


@dataclass(frozen=True)
class DayCount:
    day: date
    count: int


@dataclass(frozen=True)
class Outlook:
    packs: tuple[Mastery, ...]
    tags: tuple[Mastery, ...]
    forecast: tuple[DayCount, ...]
    """Cards due on each of the next FORECAST_DAYS local days; today includes the overdue ones."""


def compute_outlook(history: History, cards: Sequence[LoadedCard], *, now: datetime) -> Outlook:
    now = to_utc(now)
    today = local_day(now)
    with history.reading() as db:
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS outlook_groups (card_id TEXT, kind TEXT, name TEXT)"
        )
        db.execute("DELETE FROM temp.outlook_groups")
        db.executemany(
            "INSERT INTO temp.outlook_groups VALUES (?, ?, ?)",
            [(c.id, "pack", c.pack) for c in cards]
            + [(c.id, "tag", tag) for c in cards for tag in c.summary.tags],
        )
        mastered = _per_group(
            db,
            "SELECT g.kind, g.name, count(*) FROM temp.outlook_groups AS g "
            "JOIN card_state AS s USING (card_id) "
            f"WHERE s.last_rating IN {MASTERED} GROUP BY g.kind, g.name",
        )
        reviews = _per_group(
            db,
            "SELECT g.kind, g.name, sum(a.is_review) FROM temp.outlook_groups AS g "
            "JOIN attempts AS a USING (card_id) GROUP BY g.kind, g.name",
        )
        recalled = _per_group(
            db,
            "SELECT g.kind, g.name, sum(a.is_review AND a.rating != 'again') "
            "FROM temp.outlook_groups AS g JOIN attempts AS a USING (card_id) "
            "GROUP BY g.kind, g.name",
        )
        horizon = stamp(day_start(today + timedelta(days=FORECAST_DAYS)))
        loaded = {c.id for c in cards}
        due = Counter(
            max(today, local_day(parse_stamp(when)))
            for card_id, when in db.execute(
                "SELECT card_id, due FROM card_state WHERE due < ?", (horizon,)
            )
            if card_id in loaded
        )
    sizes = Counter(("pack", c.pack) for c in cards) + Counter(
        ("tag", t) for c in cards for t in c.summary.tags
    )

    def groups(kind: str) -> tuple[Mastery, ...]:
        names = sorted(name for k, name in sizes if k == kind)
        return tuple(
            Mastery(
                name,
                sizes[kind, name],
                mastered[kind, name],
                reviews[kind, name],
                recalled[kind, name],
            )
            for name in names
        )

    return Outlook(
        packs=groups("pack"),
        tags=groups("tag"),
        forecast=tuple(
            DayCount(day, due[day])
            for day in (today + timedelta(days=n) for n in range(FORECAST_DAYS))
        ),
    )


def _per_group(db: sqlite3.Connection, query: str) -> Counter[tuple[str, str]]:
    return Counter({(kind, name): count or 0 for kind, name, count in db.execute(query)})
