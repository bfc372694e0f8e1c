"""From what the candidate did to a score and an Again/Hard/Good/Easy rating.

One rule for practice and mocks alike: a question's score is the share of its key points made,
or, for a code task, half that share and half the code (which counts only when the run graded
clean); a red flag said costs the whole question. The score maps to a rating, and a code
verdict caps it. In practice the rating is a suggestion the candidate may overrule; a cap is
not: an Attempt applies it to whatever rating it is given, once, when it is made, and the
history, scheduling and statistics take the rating it holds.
"""

from __future__ import annotations

from typing import Literal

Rating = Literal["again", "hard", "good", "easy"]
RATINGS: tuple[Rating, ...] = ("again", "hard", "good", "easy")

SolutionViewed = Literal["earned", "asked", "copied"]
"""How an attempt came after the task's reference solution was shown (`app.practice.solution`):
`earned` (shown once solved or tried, and the fix is the candidate's own), `asked` (shown before
it was earned, on an explicit ask), `copied` (shown, and the fix graded next is the solution)."""
SOLUTION_CAP: Rating = "again"
"""The most an attempt holds once the solution was asked for before it was earned, or pasted
back: seeing the answer is not recalling it (Anki's honesty)."""
CAPPED_VIEWS = frozenset({"asked", "copied"})

FAILED_CAP: Rating = "hard"
"""The most a code task can earn while its fix still leaks or breaks the task's contract."""
GRADED_FAILURES = frozenset({"leak", "wrong"})

NOT_RUN = "not run"
"""The code verdict of a code task whose code was never run (or changed since its last run)."""

RATING_FLOORS: tuple[tuple[float, Rating], ...] = ((1.0, "easy"), (0.75, "good"), (0.5, "hard"))
"""The lowest score of each rating above Again."""


def question_score(
    key_points_hit: int, key_points_total: int, red_flag_said: bool, code_verdict: str | None
) -> float:
    """The share of a question earned, between 0 and 1.

    `code_verdict` is None for a question without code, else the last run's verdict kind (or
    anything else, such as "not run", for no run at all).
    """
    if red_flag_said or key_points_total == 0:
        return 0.0
    share = key_points_hit / key_points_total
    if code_verdict is None:
        return share
    return 0.5 * share + 0.5 * (code_verdict == "clean")


def rating_for(score: float, code_verdict: str | None) -> Rating:
    """The rating a score earns, capped by the code verdict."""
    rating: Rating = next((rating for floor, rating in RATING_FLOORS if score >= floor), "again")
    return cap_for_verdict(rating, code_verdict)


def cap_for_solution(rating: Rating, viewed: SolutionViewed | None) -> Rating:
    """An attempt made after asking for the solution, or with the solution pasted back, is Again."""
    return SOLUTION_CAP if viewed in CAPPED_VIEWS else rating


def cap_for_verdict(rating: Rating, verdict: str | None) -> Rating:
    """A code task that still leaks, or whose fix breaks the task, caps the rating at Hard.

    Code that could not be graded (refused, error, timeout, limit, not run) counts as Again:
    nothing was shown to work.
    """
    if verdict is None or verdict == "clean":
        return rating
    if verdict in GRADED_FAILURES:
        return min(rating, FAILED_CAP, key=RATINGS.index)
    return "again"
