"""The practice flow as values: what each reveal shows, time per phase, and the self-grade.

Headless: no Textual here, so the rules can be tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from app.mock.match import pre_mark
from app.progress.attempt import Attempt, CodeResult
from app.progress.rating import (
    NOT_RUN,
    Rating,
    SolutionViewed,
    cap_for_solution,
    cap_for_verdict,
    question_score,
    rating_for,
)
from checkers.verdict import Verdict
from questions.levels import Level
from questions.model import Card

StepKind = Literal[
    "key_points",
    "basic",
    "solid",
    "tier",
    "deep_dive",
    "examples",
    "follow_up_question",
    "follow_up_answer",
    "red_flags",
]


@dataclass(frozen=True)
class RevealStep:
    kind: StepKind
    index: int = 0
    """Which follow-up, for the two follow-up kinds."""

    @property
    def phase(self) -> str:
        return "follow_ups" if self.kind.startswith("follow_up") else "review"


def reveal_plan(card: Card) -> tuple[RevealStep, ...]:
    """The order of the progressive reveal: model answers first, then depth, then follow-ups."""
    steps = [
        RevealStep(kind)
        for kind in ("key_points", "basic", "solid", "tier", "deep_dive", "examples")
    ]
    for index in range(len(card.follow_ups)):
        steps += [RevealStep("follow_up_question", index), RevealStep("follow_up_answer", index)]
    steps.append(RevealStep("red_flags"))
    return tuple(steps)


@dataclass
class PhaseTimer:
    """Seconds spent in each phase of a card; the clock is injected so tests need not wait."""

    clock: Callable[[], float]
    phase: str = "answer"
    totals: dict[str, float] = field(default_factory=dict)
    _since: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._since = self.clock()

    def switch(self, phase: str) -> None:
        if phase != self.phase:
            self._close()
            self.phase = phase

    def seconds(self) -> dict[str, float]:
        """Totals so far, including the phase still running, rounded to tenths."""
        now = self.clock()
        totals = dict(self.totals)
        totals[self.phase] = totals.get(self.phase, 0.0) + now - self._since
        return {phase: round(value, 1) for phase, value in totals.items()}

    def _close(self) -> None:
        now = self.clock()
        self.totals[self.phase] = self.totals.get(self.phase, 0.0) + now - self._since
        self._since = now


def pretick(card: Card, answer: str) -> tuple[frozenset[int], frozenset[int]]:
    """Key points and red flags the typed answer seems to state, by the mock matcher's rules.

    Only a suggestion: the candidate confirms or corrects every tick before it counts.
    """
    marks = pre_mark(card, answer)
    return marks.key_points_hit, marks.red_flags_said


@dataclass(frozen=True)
class Suggestion:
    """The rating grill proposes for what the candidate ticked, and what it rests on."""

    score: float
    rating: Rating
    code: str | None
    """The code verdict that counted (`clean`, `leak`, ..., `not run`); None without a code task."""
    cap: Rating
    """The highest rating an attempt with this code verdict holds (what `build_attempt` makes
    of a higher one)."""
    solution_viewed: SolutionViewed | None = None
    """How the attempt comes after the task's solution was shown, if it was."""


def suggest(
    card: Card,
    key_points_hit: frozenset[int],
    red_flags_said: frozenset[int],
    verdict: Verdict | None,
    solution_viewed: SolutionViewed | None = None,
) -> Suggestion:
    """The mock's rule: key points, and for a code task half key points and half code; capped
    at Again when the solution was asked for or pasted back (`app.practice.solution`)."""
    code = None if card.code_task is None else verdict.verdict if verdict is not None else NOT_RUN
    score = question_score(len(key_points_hit), len(card.key_points), bool(red_flags_said), code)
    recorded = None if verdict is None or card.code_task is None else verdict.verdict
    return Suggestion(
        score,
        cap_for_solution(rating_for(score, code), solution_viewed),
        code,
        cap_for_solution(cap_for_verdict("easy", recorded), solution_viewed),
        solution_viewed,
    )


@dataclass(frozen=True)
class SelfGrade:
    """What the candidate says they covered (indexes into the card's key points and red flags),
    and the rating they chose."""

    key_points_hit: frozenset[int]
    red_flags_said: frozenset[int]
    rating: Rating


def build_attempt(
    card: Card,
    grade: SelfGrade,
    *,
    level: Level,
    phase_seconds: dict[str, float],
    answer: str,
    verdict: Verdict | None,
    code: str,
    started_at: datetime,
    solution_viewed: SolutionViewed | None = None,
) -> Attempt:
    code_result = None
    if card.code_task is not None and verdict is not None:
        code_result = CodeResult(
            verdict=verdict.verdict,
            pattern=verdict.pattern,
            growth_bytes_per_step=verdict.growth_bytes_per_step,
            retained_paths=tuple(item.path for item in verdict.retained),
            code=code,
        )
    return Attempt(
        card_id=card.id,
        mode="practice",
        rating=grade.rating,
        level=level,
        phase_seconds=phase_seconds,
        key_points_hit=tuple(
            p.point for i, p in enumerate(card.key_points) if i in grade.key_points_hit
        ),
        key_points_missed=tuple(
            p.point for i, p in enumerate(card.key_points) if i not in grade.key_points_hit
        ),
        red_flags_said=tuple(
            f.flag for i, f in enumerate(card.red_flags) if i in grade.red_flags_said
        ),
        answer_text=answer,
        code=code_result,
        solution_viewed=solution_viewed,
        started_at=started_at,
    )
