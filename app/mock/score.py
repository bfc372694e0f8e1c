"""Score a finished mock: per question from the confirmed marks and the code verdict, then overall.

- Key points: the share confirmed (pre-marked by the matcher and corrected by the candidate,
  or ticked by the interviewer).
- A red flag said costs the whole question: its score is 0, as the cards say.
- A code question is half explanation, half code: the code half counts only when the last run
  before moving on graded `clean` (a leak, a wrong result, an error or no run at all earns nothing).
- A question not reached before `--minutes` ran out scores 0.
- A question reached but left without an answer (nothing typed, the code untouched, no
  budget run out; in interviewer mode, the one the interview was ended on, with nothing
  ticked) is *skipped*: it scores 0 like one not reached, and is not recorded as a failed
  recall (`app.mock.record` leaves it out of the history).
- The overall score is the mean over all questions drawn, so running out of time costs.
Score and rating follow the rules practice uses too, in `app.progress.rating`.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.mock.session import QuestionRun
from app.progress.rating import NOT_RUN, Rating, question_score, rating_for


@dataclass(frozen=True)
class Judgement:
    """The confirmed marks for one question: indices into the card's key points and red flags."""

    key_points_hit: frozenset[int] = frozenset()
    red_flags_said: frozenset[int] = frozenset()


@dataclass(frozen=True)
class QuestionScore:
    card_id: str
    reached: bool
    key_points_hit: tuple[str, ...]
    key_points_missed: tuple[str, ...]
    red_flags_said: tuple[str, ...]
    verdict: str | None
    """The code verdict (`clean`, `leak`, ... or `not run`); None for a question without code."""
    score: float
    """Between 0 and 1."""
    rating: Rating
    skipped: bool = False
    """Reached but left without an answer: scores 0 and is not recorded (see the module)."""


@dataclass(frozen=True)
class MockScore:
    questions: tuple[QuestionScore, ...]

    @property
    def overall(self) -> float:
        return sum(q.score for q in self.questions) / len(self.questions) if self.questions else 0.0


def score_question(run: QuestionRun, judgement: Judgement) -> QuestionScore:
    card = run.card
    hit = tuple(kp.point for i, kp in enumerate(card.key_points) if i in judgement.key_points_hit)
    missed = tuple(
        kp.point for i, kp in enumerate(card.key_points) if i not in judgement.key_points_hit
    )
    said = tuple(rf.flag for i, rf in enumerate(card.red_flags) if i in judgement.red_flags_said)
    verdict = None
    if run.code is not None:
        verdict = run.code.verdict.verdict if run.code.verdict else NOT_RUN
    if not run.reached:
        return QuestionScore(
            card.id, False, (), tuple(kp.point for kp in card.key_points), (), verdict, 0.0, "again"
        )
    if run.left_unanswered and not hit and not said:
        everything = tuple(kp.point for kp in card.key_points)
        return QuestionScore(card.id, True, (), everything, (), verdict, 0.0, "again", True)
    score = question_score(len(hit), len(card.key_points), bool(said), verdict)
    return QuestionScore(
        card.id, True, hit, missed, said, verdict, score, rating_for(score, verdict)
    )


def score_session(runs: list[QuestionRun], judgements: list[Judgement]) -> MockScore:
    if len(runs) != len(judgements):
        raise ValueError(f"{len(runs)} questions but {len(judgements)} judgements")
    return MockScore(tuple(score_question(r, j) for r, j in zip(runs, judgements, strict=True)))
