"""The reference solution's run is cached per process once it ran, and only then: a run that
was cancelled (a watch's save, the app's esc) or failed is tried again by the next grade."""

from __future__ import annotations

import pytest

from checkers import api
from checkers.judge.contract import Observed
from checkers.task import Contract, TaskSpec
from checkers.verdict import Verdict

SPEC = TaskSpec(solution="solution = 1\n", contract=Contract(same_as_solution=[{"name": "model"}]))


@pytest.fixture
def runs(monkeypatch):
    """Stands in for the sandbox: what each run returns, in turn, and which sources ran."""
    ran: list[str] = []
    answers: list[tuple[Verdict, Observed | None]] = []

    def graded(source: str, **options):
        ran.append(source)
        return answers.pop(0)

    monkeypatch.setattr(api, "_graded", graded)
    monkeypatch.setattr(api, "_references", {})
    return ran, answers


def test_a_cancelled_reference_is_not_kept_and_the_next_grade_runs_it_again(runs, monkeypatch):
    ran, answers = runs
    observed = Observed(1, 1, 1, values={})
    fix = (Verdict(verdict="clean", device="cpu"), observed)
    cancelled = Verdict.not_graded("error", "cpu", "the run was cancelled", kind="cancelled")
    answers += [fix, (cancelled, None), fix, (Verdict(verdict="clean", device="cpu"), observed)]
    monkeypatch.setattr(api, "check", lambda contract, fix, reference, starter: ())
    first = api.grade_task("fix = 1\n", SPEC)
    assert first.verdict == "error" and "the run was cancelled" in first.message
    second = api.grade_task("fix = 1\n", SPEC)
    assert second.verdict == "clean"
    assert ran == ["fix = 1\n", SPEC.solution, "fix = 1\n", SPEC.solution]
    answers.append(fix)
    api.grade_task("fix = 1\n", SPEC)
    assert ran[-1] == "fix = 1\n", "once it ran, the reference is kept"
