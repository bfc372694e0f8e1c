"""The mock interview as a state machine driven by an injectable clock.

The screens call `tick()` a few times a second and `submit()` when the candidate (or the
interviewer) moves on; tests pass a fake clock and call the same methods, so no test waits.

Budgets, and why:
- a main answer gets the card's spoken time for the level (`basic.seconds` for junior and
  middle, `solid.seconds` for senior and principal), times `answer_factor`: 3 when typed
  (typing is about three times slower than speaking), 1.5 when spoken to an interviewer
  (a moment to think before talking);
- a follow-up gets the card's `basic.seconds` times the same factor: it wants a short answer;
- a code task gets `code_seconds` (6 minutes): read the starter, find the leak, fix it, run it.
When a budget runs out the candidate is told, and after `grace_seconds` the session moves on
by itself, keeping what was typed. `--minutes` is a deadline for the whole session: when it
passes, the current step gets the same grace and the remaining questions are not reached.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from checkers.verdict import Verdict
from questions.levels import Level
from questions.library import LoadedCard
from questions.model import Card

Role = Literal["candidate", "interviewer"]
StepKind = Literal["answer", "code", "follow_up"]
State = Literal["ready", "running", "overtime", "finished"]
Event = Literal["timed_out", "moved_on", "finished"]


@dataclass(frozen=True)
class Budgets:
    answer_factor: float = 3.0
    code_seconds: float = 360.0
    grace_seconds: float = 10.0
    follow_ups: int = 2
    """Follow-ups asked after a main answer; code questions get one, since the task is long."""

    @classmethod
    def for_role(cls, role: Role) -> Budgets:
        return cls(answer_factor=3.0 if role == "candidate" else 1.5)


def spoken_seconds(card: Card, level: Level) -> int:
    """The card's answer time for the level: the basic answer below senior, the solid one above."""
    return card.basic.seconds if level in ("junior", "middle") else card.solid.seconds


@dataclass(frozen=True)
class Step:
    """One timed thing to answer: a question's main answer, its code task, or a follow-up."""

    question: int
    """Index of the question in the session."""
    kind: StepKind
    prompt: str
    budget: float
    follow_up: int | None = None
    """Index into the card's follow-ups, for follow-up steps."""


def plan(cards: Sequence[LoadedCard], level: Level, budgets: Budgets) -> list[Step]:
    """The steps of a session in order: per question, answer, then code task, then follow-ups."""
    steps: list[Step] = []
    for index, loaded in enumerate(cards):
        card = loaded.card
        steps.append(
            Step(
                index, "answer", card.question, spoken_seconds(card, level) * budgets.answer_factor
            )
        )
        if card.code_task:
            steps.append(Step(index, "code", card.code_task.prompt, budgets.code_seconds))
        asked = 1 if card.code_task else budgets.follow_ups
        for n, follow_up in enumerate(card.follow_ups[:asked]):
            steps.append(
                Step(
                    index,
                    "follow_up",
                    follow_up.question,
                    card.basic.seconds * budgets.answer_factor,
                    follow_up=n,
                )
            )
    return steps


@dataclass
class StepRecord:
    """What happened in one step; `seconds` is the time used, grace included."""

    step: Step
    text: str = ""
    seconds: float = 0.0
    timed_out: bool = False
    reached: bool = True
    verdict: Verdict | None = None
    """For a code step: the verdict of the code as it was left (None: never run, or changed since)."""
    ended_here: bool = False
    """The interview was ended (f8) during this step."""


@dataclass(frozen=True)
class QuestionRun:
    """Everything recorded for one question, gathered for scoring and the report."""

    loaded: LoadedCard
    answer: StepRecord
    code: StepRecord | None
    follow_ups: tuple[StepRecord, ...]
    role: Role = "candidate"

    @property
    def card(self) -> Card:
        return self.loaded.card

    @property
    def records(self) -> tuple[StepRecord, ...]:
        return (self.answer, *([self.code] if self.code else []), *self.follow_ups)

    @property
    def reached(self) -> bool:
        return self.answer.reached

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.records)

    @property
    def budget(self) -> float:
        """The budgets of the steps actually asked."""
        return sum(r.step.budget for r in self.records if r.reached)

    @property
    def spoken_text(self) -> str:
        """The main answer and the follow-up answers: where key points may have been made."""
        return "\n".join(r.text for r in (self.answer, *self.follow_ups) if r.text)

    @property
    def left_unanswered(self) -> bool:
        """Reached, but left without an answer: skipped, not failed.

        A candidate typed nothing in any of its steps, left the code as the starter without a
        run, and moved on (or ended the interview) before any budget ran out: running out of
        time with nothing to say is a failed recall, moving past is a skip. An interviewer
        types nothing, so there it is the question the interview was ended on before its answer
        was over; whether the interviewer ticked anything is for the score to add.
        """
        if not self.reached:
            return False
        if self.role == "interviewer":
            return self.answer.ended_here
        code = self.code
        starter = self.card.code_task.starter if self.card.code_task else ""
        code_untouched = code is None or (code.verdict is None and code.text in ("", starter))
        return (
            not self.spoken_text.strip()
            and code_untouched
            and not any(r.timed_out for r in self.records if r.reached)
        )


class MockSession:
    """The timed sequence of steps; knows nothing about how they are shown."""

    def __init__(
        self,
        cards: Sequence[LoadedCard],
        *,
        level: Level,
        role: Role = "candidate",
        minutes: float | None = None,
        budgets: Budgets | None = None,
        clock: Callable[[], float] = time.monotonic,
        seed: int | None = None,
    ) -> None:
        if not cards:
            raise ValueError("a mock interview needs at least one question")
        if minutes is not None and not (math.isfinite(minutes) and minutes > 0):
            raise ValueError(f"--minutes must be positive and finite, not {minutes:g}")
        self.cards = list(cards)
        self.level, self.role, self.seed = level, role, seed
        self.minutes = minutes
        self.budgets = budgets or Budgets.for_role(role)
        self.steps = plan(self.cards, level, self.budgets)
        self.records = [StepRecord(step) for step in self.steps]
        self.session_id = uuid.uuid4().hex
        self._clock = clock
        self.state: State = "ready"
        self.index = 0
        self._started = self._step_started = self._overtime_since = 0.0
        self.session_overrun = False
        """True once the `--minutes` deadline has passed."""
        self.ended_early = False
        """True when the candidate (or interviewer) ended the session before its last step."""
        self.started_at: datetime | None = None
        """Wall-clock start, for the report; all timing uses the injected clock."""

    # -- reading the state -------------------------------------------------------------

    @property
    def current(self) -> Step | None:
        return self.steps[self.index] if self.state in ("running", "overtime") else None

    @property
    def current_record(self) -> StepRecord | None:
        return self.records[self.index] if self.current else None

    @property
    def progress(self) -> float:
        """Share of the session's steps done, for the progress bar."""
        done = len(self.steps) if self.state == "finished" else self.index
        return done / len(self.steps)

    @property
    def budget(self) -> float:
        """The whole session's planned time: every step's budget."""
        return sum(step.budget for step in self.steps)

    def elapsed(self) -> float:
        """Seconds since the session started (0 before it does)."""
        return self._clock() - self._started if self.state != "ready" else 0.0

    def step_elapsed(self) -> float:
        return self._clock() - self._step_started if self.current else 0.0

    def remaining(self) -> float:
        """Seconds left on the countdown: the step's budget, or less if the session ends first."""
        if not self.current:
            return 0.0
        left = self.current.budget - self.step_elapsed()
        overall = self.overall_remaining()
        return left if overall is None else min(left, overall)

    def overall_remaining(self) -> float | None:
        if self.minutes is None or self.state == "ready":
            return None
        return self.minutes * 60 - self.elapsed()

    def grace_left(self) -> float:
        if self.state != "overtime":
            return 0.0
        return max(0.0, self.budgets.grace_seconds - (self._clock() - self._overtime_since))

    # -- driving it --------------------------------------------------------------------

    def start(self) -> None:
        if self.state != "ready":
            raise RuntimeError("the session has already started")
        self._started = self._step_started = self._clock()
        self.started_at = datetime.now(UTC)
        self.state = "running"

    def set_draft(self, text: str) -> None:
        """Keep what is typed so far, so a time-out still records it."""
        if self.current_record:
            self.current_record.text = text

    def set_verdict(self, verdict: Verdict | None) -> None:
        """Attach the verdict of the code as it stands to the current code step (None: not run
        since it last changed); the last one set before moving on counts."""
        record = self.current_record
        if record is None or record.step.kind != "code":
            raise RuntimeError("a verdict can only be attached while a code task is running")
        record.verdict = verdict

    def submit(self, text: str | None = None) -> Event:
        """Finish the current step (optionally with its final text) and move on."""
        if self.current is None:
            raise RuntimeError("there is no step to submit")
        if text is not None:
            self.set_draft(text)
        return self._advance(timed_out=self.state == "overtime")

    def tick(self) -> Event | None:
        """Check the clock: announce a time-out, or move on once its grace has passed."""
        if self.state == "running" and self.remaining() <= 0:
            self.state = "overtime"
            self._overtime_since = self._clock()
            overall = self.overall_remaining()
            self.session_overrun = overall is not None and overall <= 0
            return "timed_out"
        if self.state == "overtime" and self.grace_left() <= 0:
            return self._advance(timed_out=True)
        return None

    def _advance(self, *, timed_out: bool, end: bool = False) -> Event:
        now = self._clock()
        record = self.records[self.index]
        record.seconds, record.timed_out = now - self._step_started, timed_out
        overall = self.overall_remaining()
        if overall is not None and overall <= 0:
            self.session_overrun = True
        self.index += 1
        if end or self.index >= len(self.steps) or self.session_overrun:
            for skipped in self.records[self.index :]:
                skipped.reached = False
            self.state = "finished"
            return "finished"
        self.state, self._step_started = "running", now
        return "moved_on"

    def finish_early(self) -> None:
        """End now (the candidate quits): the current step keeps its time, the rest is not reached."""
        if self.current is not None:
            self.ended_early = self.index + 1 < len(self.steps)
            self.records[self.index].ended_here = True
            self._advance(timed_out=False, end=True)

    def runs(self) -> list[QuestionRun]:
        """The records grouped per question, in the order asked."""
        runs = []
        for index, loaded in enumerate(self.cards):
            mine = [r for r in self.records if r.step.question == index]
            runs.append(
                QuestionRun(
                    loaded=loaded,
                    answer=next(r for r in mine if r.step.kind == "answer"),
                    code=next((r for r in mine if r.step.kind == "code"), None),
                    follow_ups=tuple(r for r in mine if r.step.kind == "follow_up"),
                    role=self.role,
                )
            )
        return runs


def mmss(seconds: float) -> str:
    """A countdown as mm:ss, rounded up so 0:00 appears only when time is really out;
    negative values (the grace period) show with a minus sign."""
    whole = math.ceil(seconds) if seconds >= 0 else -math.ceil(-seconds)
    sign = "-" if whole < 0 else ""
    minutes, secs = divmod(abs(whole), 60)
    return f"{sign}{minutes:02d}:{secs:02d}"
