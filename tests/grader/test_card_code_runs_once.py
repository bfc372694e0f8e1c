"""A card's own code runs once per process: graded as a fix (`grill lint --run` grades the
solution and the starter), it is also the reference later fixes are held against, and the
reference already run is the fix's run. Fixes that are not the card's code always run."""

from __future__ import annotations

import pytest

from checkers import api
from checkers.judge.contract import Observed
from checkers.task import Contract, TaskSpec
from checkers.verdict import Verdict

CONTRACT = Contract(same_as_solution=[{"name": "model"}])
SPEC = TaskSpec(solution="solution = 1\n", starter="starter = 1\n", contract=CONTRACT)
PEAK = TaskSpec(
    solution="solution = 1\n",
    starter="starter = 1\n",
    contract=CONTRACT.model_copy(update={"peak_memory": 0.5}),
)


@pytest.fixture
def ran(monkeypatch) -> list[str]:
    """Stands in for the sandbox: every run grades clean; the sources run, in order."""
    sources: list[str] = []

    def graded(source: str, **options):
        sources.append(source)
        return Verdict(verdict="clean", device="cpu"), Observed(1, 1, 1, values={})

    monkeypatch.setattr(api, "_graded", graded)
    monkeypatch.setattr(api, "_references", {})
    monkeypatch.setattr(api, "check", lambda contract, fix, reference, starter: ())
    return sources


def test_the_solution_graded_as_a_fix_is_the_reference_of_the_fixes_after_it(ran):
    assert api.grade_task(SPEC.solution, SPEC).verdict == "clean"
    api.grade_task("fix = 1\n", SPEC)
    assert ran == [SPEC.solution, "fix = 1\n"]


def test_the_solution_graded_after_another_fix_reuses_the_reference_run(ran):
    api.grade_task("fix = 1\n", SPEC)
    assert api.grade_task(SPEC.solution, SPEC).verdict == "clean"
    assert ran == ["fix = 1\n", SPEC.solution]


def test_under_a_peak_memory_contract_the_starter_runs_once_too(ran):
    for source in (PEAK.solution, PEAK.starter, "fix = 1\n", PEAK.starter):
        assert api.grade_task(source, PEAK).verdict == "clean"
    assert ran == [PEAK.solution, PEAK.starter, "fix = 1\n"]


def test_without_one_the_starter_is_an_ordinary_fix_run_each_time(ran):
    api.grade_task(SPEC.starter, SPEC)
    api.grade_task(SPEC.starter, SPEC)
    assert ran == [SPEC.starter, SPEC.solution, SPEC.starter]


def test_a_fix_that_only_looks_like_the_solution_runs_itself(ran):
    """Sharing is for the card's exact text: a fix differing in a comment is the candidate's."""
    api.grade_task(SPEC.solution, SPEC)
    api.grade_task(SPEC.solution + "# mine\n", SPEC)
    assert ran == [SPEC.solution, SPEC.solution + "# mine\n"]


@pytest.mark.parametrize(
    ("requested", "nodes", "expected"),
    [("auto", False, "cpu"), ("auto", True, "auto"), ("cpu", True, "cpu"), ("cuda", False, "cuda")],
)
def test_auto_grades_on_the_cpu_where_the_machine_has_no_nvidia_device(
    monkeypatch, requested, nodes, expected
):
    monkeypatch.setattr(api, "host_has_cuda_devices", lambda: nodes)
    assert api.worker_device(requested) == expected


def test_auto_and_cpu_share_one_warm_worker_on_a_machine_without_a_gpu(monkeypatch):
    monkeypatch.setattr(api, "host_has_cuda_devices", lambda: False)
    monkeypatch.setattr(api, "_sandboxes", {})
    made: list[str] = []
    monkeypatch.setattr(api, "grading_sandbox", lambda device: made.append(device) or object())
    assert api.shared_sandbox("auto") is api.shared_sandbox("cpu")
    assert made == ["cpu"]
