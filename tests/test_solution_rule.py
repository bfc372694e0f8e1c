"""When a code task's solution opens and what having seen it does to the next attempt
(`app.practice.solution`): the one rule the app, `grill task solution` and the mock share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.practice.solution import (
    SolutionView,
    earned_by,
    pending_view,
    record_view,
    same_code,
    viewed_for,
)
from app.progress.attempt import Attempt, CodeResult
from app.progress.history import History
from app.progress.records import attempt_from_dict, attempt_to_dict

AT = datetime(2026, 3, 2, 12, tzinfo=UTC)
STARTER = """import torch
total = 0
for step in range(3):
    loss = torch.ones(1, requires_grad=True).sum()
    total += loss
"""
SOLUTION = STARTER.replace("total += loss", "total += loss.item()")


@pytest.fixture
def history(tmp_path):
    with History.open(tmp_path / "history.db") as opened:
        yield opened


def attempt(
    code: str | None, verdict: str = "leak", at: datetime = AT, rating: str = "good", **fields
) -> Attempt:
    result = None
    if code is not None:
        result = CodeResult(verdict, None, 0.0, (), code)  # type: ignore[arg-type]
    return Attempt("task", "practice", rating, "middle", {}, code=result, started_at=at, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "other",
    [
        "# my attempt\n" + STARTER,
        STARTER.replace("total = 0", "total  =  0   # start"),
        STARTER.replace("\nfor", "\n\n\nfor") + "\n\n",
        STARTER.replace("range(3)", "range( 3 )"),
    ],
    ids=["comment-line", "spacing-and-trailing-comment", "blank-lines", "inner-spacing"],
)
def test_comments_and_spacing_do_not_make_other_code(other):
    assert same_code(other, STARTER)


@pytest.mark.parametrize(
    "other",
    [
        SOLUTION,
        STARTER.replace("    total += loss", "total += loss"),  # out of the loop
        STARTER.replace("total = 0", "total = '0'"),
        STARTER.replace("total = 0", "total = 0  # x\nx = '# not a comment'"),
    ],
    ids=["a-real-change", "indentation", "a-string", "a-hash-in-a-string"],
)
def test_any_change_to_the_code_itself_is_other_code(other):
    assert not same_code(other, STARTER)


def test_code_that_is_not_python_is_compared_by_its_words_line_by_line():
    broken = "def f(:\n    return '''\n"
    assert same_code(broken, "# note\ndef  f(:\n    return  '''\n")
    assert not same_code(broken, "def g(:\n    return '''\n")


def test_the_solution_opens_once_solved_or_tried_with_a_fix_of_ones_own():
    assert earned_by([], STARTER) is None
    assert earned_by([("# unchanged\n" + STARTER, "leak")], STARTER) is None
    assert earned_by([(STARTER + "x = 1\n", "refused")], STARTER) is None, "never ran"
    assert earned_by([(STARTER + "x = 1\n", "leak")], STARTER) == "tried"
    assert earned_by([(STARTER + "x = (\n", "error")], STARTER) == "tried"
    assert earned_by([(STARTER, "leak"), (SOLUTION, "clean")], STARTER) == "solved"


def test_what_an_attempt_records_of_a_view():
    asked, earned = SolutionView(asked=True, at=AT), SolutionView(asked=False, at=AT)
    assert viewed_for(None, SOLUTION, SOLUTION) is None
    assert viewed_for(asked, "my own fix", SOLUTION) == "asked"
    assert viewed_for(earned, "# pasted\n" + SOLUTION, SOLUTION) == "copied"
    assert viewed_for(earned, "my own fix", SOLUTION) == "earned"
    assert viewed_for(earned, None, SOLUTION) == "earned", "no code: nothing was pasted"


@pytest.mark.parametrize(
    ("viewed", "rating"),
    [("asked", "again"), ("copied", "again"), ("earned", "easy"), (None, "easy")],
)
def test_an_attempt_after_an_ask_or_with_the_solution_pasted_is_again(viewed, rating):
    assert attempt(SOLUTION, "clean", rating="easy", solution_viewed=viewed).rating == rating


def test_a_view_waits_for_the_next_attempt_and_an_ask_is_not_forgotten(history):
    assert pending_view(history, "task") is None
    record_view(history, "task", asked=True, at=AT)
    record_view(history, "task", asked=False, at=AT + timedelta(minutes=1))
    view = pending_view(history, "task")
    assert view == SolutionView(asked=True, at=AT + timedelta(minutes=1))
    history.record(attempt("fix", at=AT - timedelta(days=1)))
    assert pending_view(history, "task") == view, "an attempt from before the view is no answer"
    history.record(attempt("fix", at=AT + timedelta(minutes=2)))
    assert pending_view(history, "task") is None, "the attempt after it recorded it"


@pytest.mark.parametrize(
    "stored", [None, "yes", {"asked": "yes", "at": "x"}, {"asked": True}, {"asked": True, "at": 5}]
)
def test_a_view_edited_by_hand_into_something_else_is_no_view(history, stored):
    history.set_setting("task_solution:task", stored)
    assert pending_view(history, "task") is None


def test_the_history_keeps_how_the_solution_was_seen(history):
    history.record(attempt(SOLUTION, "clean", solution_viewed="copied"))
    (kept,) = history.attempts("task")
    assert (kept.solution_viewed, kept.rating) == ("copied", "again")
    assert attempt_from_dict(attempt_to_dict(kept)) == kept, "and an export carries it"
