"""One answered card, as practice, mock and history all see it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from app.progress.rating import RATINGS, Rating, SolutionViewed, cap_for_solution, cap_for_verdict
from checkers.verdict import Pattern, VerdictKind
from questions.levels import Level

SessionKind = Literal["practice", "mock"]

MAX_PHASE_SECONDS = 365 * 24 * 3600
"""The longest phase an attempt can hold: beyond any real one (the app left open for a year),
and small enough that sums and means over any history stay finite."""
MAX_GROWTH_BYTES_PER_STEP = 1e15
"""A petabyte per step: more than any machine holds, so a larger growth is not a measurement."""


@dataclass(frozen=True)
class CodeResult:
    """The evidence of a graded code task, kept with the attempt."""

    verdict: VerdictKind
    pattern: Pattern | None
    growth_bytes_per_step: float
    retained_paths: tuple[str, ...]
    code: str


@dataclass(frozen=True)
class Attempt:
    card_id: str
    mode: SessionKind
    rating: Rating
    """The rating recorded: the one given, capped by the code's verdict when the attempt is made
    (`cap_for_verdict`), and by how the solution was seen (`cap_for_solution`), so no attempt
    holds more than its code earned."""
    level: Level
    """The level the card was answered at (stored under its older name, `tier`: see records)."""
    phase_seconds: dict[str, float]
    """Seconds spent per phase, e.g. {"answer": 41.2, "review": 30.0, "follow_ups": 12.5}."""
    key_points_hit: tuple[str, ...] = ()
    key_points_missed: tuple[str, ...] = ()
    red_flags_said: tuple[str, ...] = ()
    answer_text: str = ""
    code: CodeResult | None = None
    session_id: str | None = None
    """Groups the attempts of one mock interview."""
    solution_viewed: SolutionViewed | None = None
    """Whether the code task's reference solution was shown before this attempt, and how
    (`app.practice.solution`); None when it was not."""
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Stable identity, so importing the same export twice changes nothing."""

    def __post_init__(self) -> None:
        if self.rating in RATINGS:  # anything else is refused when recorded, by name
            verdict = self.code.verdict if self.code is not None else None
            capped = cap_for_solution(cap_for_verdict(self.rating, verdict), self.solution_viewed)
            object.__setattr__(self, "rating", capped)
