"""Draw the questions of a mock interview: weighted toward due and weak cards, reproducibly.

The draw is a weighted sample without replacement (Efraimidis-Spirakis keys) from the cards
at or below the interview's level, using one `random.Random(seed)`; cards are sorted by id
first, so the same seed gives the same questions whatever order the packs were loaded in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from questions.levels import LEVELS, Level
from questions.library import LoadedCard


@dataclass(frozen=True)
class Standing:
    """What the history says about one card, reduced to what the draw weighs."""

    seen: bool = False
    due: bool = False
    last_rating: str | None = None
    lapses: int = 0


class _Progress(Protocol):
    """What the draw reads of a card's progress (the history's `CardProgress`)."""

    @property
    def due(self) -> datetime | None: ...
    @property
    def last_rating(self) -> str | None: ...
    @property
    def lapses(self) -> int | None: ...


class ProgressSource(Protocol):
    """Anything with `.progress(card_id)`, like the `History`."""

    def progress(self, card_id: str) -> _Progress | None: ...


NEW_WEIGHT = 2.0
"""A card never seen is worth meeting before a rehearsal of one already known well."""
DUE_BONUS = 2.0
RATING_BONUS = {"again": 3.0, "hard": 1.5}
"""Weak cards (last rated Again or Hard) come back more often."""
LAPSE_BONUS, MAX_LAPSE_BONUS = 0.5, 2.0


def weight(standing: Standing) -> float:
    """How much more likely than a well-known, not-due card this card is to be drawn."""
    if not standing.seen:
        return NEW_WEIGHT
    bonus = DUE_BONUS if standing.due else 0.0
    bonus += RATING_BONUS.get(standing.last_rating or "", 0.0)
    bonus += min(MAX_LAPSE_BONUS, LAPSE_BONUS * standing.lapses)
    return 1.0 + bonus


def eligible(cards: Sequence[LoadedCard], level: Level) -> list[LoadedCard]:
    """Cards usually asked at `level` or below: a junior interview skips principal questions."""
    ceiling = LEVELS.index(level)
    return [c for c in cards if LEVELS.index(c.summary.level) <= ceiling]


def draw(
    cards: Sequence[LoadedCard],
    count: int,
    *,
    level: Level,
    rng: random.Random,
    standings: Mapping[str, Standing] | None = None,
) -> list[LoadedCard]:
    """Pick up to `count` distinct cards, with at least one code task when any card has one.

    The code task is taken from the level's cards when possible, else from any card: a mock
    should always include running code when the packs offer it.
    """
    if count < 1:
        raise ValueError(f"the number of questions must be at least 1, not {count}")
    standings = standings or {}
    ordered = sorted(cards, key=lambda c: c.id)
    keys = {c.id: _key(rng, standings.get(c.id, Standing())) for c in ordered}
    by_key = sorted(ordered, key=lambda c: keys[c.id], reverse=True)
    pool = eligible(by_key, level)
    chosen = pool[:count]
    if any(c.summary.code_task for c in chosen):
        return chosen
    coded = [c for c in pool if c.summary.code_task] or [c for c in by_key if c.summary.code_task]
    if not coded:
        return chosen
    return [*chosen[: count - 1], coded[0]] if len(chosen) >= count else [*chosen, coded[0]]


def _key(rng: random.Random, standing: Standing) -> float:
    """Efraimidis-Spirakis key: sorting by u ** (1 / w) samples in proportion to w."""
    return rng.random() ** (1.0 / weight(standing))


def standings_from(
    history: ProgressSource, card_ids: Sequence[str], now: datetime
) -> dict[str, Standing]:
    """Read each card's standing from a `History` (anything with `.progress(card_id)`)."""
    result: dict[str, Standing] = {}
    for card_id in card_ids:
        progress = history.progress(card_id)
        if progress is None:
            continue
        result[card_id] = Standing(
            seen=True,
            due=progress.due is not None and progress.due <= now,
            last_rating=progress.last_rating,
            lapses=progress.lapses or 0,
        )
    return result
