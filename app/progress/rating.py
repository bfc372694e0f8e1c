"""From what the candidate says they did to an Again/Hard/Good/Easy rating."""

from __future__ import annotations

from app.progress.attempt import RATINGS, Rating

LEAK_CAP: Rating = "hard"


def rating_from_self_grade(points_hit: int, points_total: int, red_flag_said: bool) -> Rating:
    """A red flag costs the question; otherwise the share of key points made decides."""
    if red_flag_said or points_total == 0:
        return "again"
    share = points_hit / points_total
    if share < 0.5:
        return "again"
    if share < 0.75:
        return "hard"
    if share < 1.0:
        return "good"
    return "easy"


def cap_for_verdict(rating: Rating, verdict: str | None) -> Rating:
    """A code task that still leaks caps the rating at Hard, whatever the self-grade says.

    Code that could not be graded (refused, error, timeout, limit) counts as Again: nothing
    was shown to work.
    """
    if verdict is None or verdict == "clean":
        return rating
    if verdict == "leak":
        return min(rating, LEAK_CAP, key=RATINGS.index)
    return "again"
