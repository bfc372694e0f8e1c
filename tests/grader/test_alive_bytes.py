"""The tensor bytes alive at the end of a run (`alive_bytes`), wherever the snippet keeps
them, and the contract's `alive_bytes: at_most` that holds a fix to the solution's: a fix
that keeps the forbidden tensor under a name the contract does not compare is `wrong`."""

import textwrap

import pytest
import torch

from checkers.api import with_expectations
from checkers.contract_words import contract_lines
from checkers.judge.contract import Observed, check
from checkers.measure.fingerprint import fingerprint
from checkers.task import Compared, Contract
from checkers.verdict import Expectation, Verdict
from tests.grader.test_grade_job import measure

HARNESS_TENSOR = torch.zeros(250_000)
"""A tensor the harness holds from before the run (1 MB), alive in the forked child too."""

SERVED = """\
import copy
import torch
import torch.nn as nn
model = nn.Linear(256, 256)
reference = copy.deepcopy(model)   # a float32 copy under another name
model.to(torch.bfloat16)
"""
FLOAT32_WEIGHTS = (256 * 256 + 256) * 4
BFLOAT16_WEIGHTS = FLOAT32_WEIGHTS // 2


def alive(source: str, **payload) -> int:
    return int(measure(textwrap.dedent(source), **payload)["alive_bytes"])


def test_a_float32_copy_kept_under_another_name_counts_and_one_freed_does_not():
    """The bfloat16 task's hole: `model` is converted, `reference` keeps every float32 weight."""
    kept = alive(SERVED)
    freed = alive(SERVED + "del reference\n")
    assert freed == BFLOAT16_WEIGHTS
    assert kept == BFLOAT16_WEIGHTS + FLOAT32_WEIGHTS


@pytest.mark.parametrize(
    "hidden",
    [
        "history = [big]",
        "stash = {'outputs': (big,)}",
        "class Box:\n    pass\nbox = Box()\nbox.kept = big",
        "def later(kept=big):\n    return kept",
        "holder = torch.nn.Module()\nholder.register_buffer('kept', big)",
        "holder = torch.nn.Module()\nholder.kept = torch.nn.Parameter(big)",
    ],
    ids=["list", "dict-of-tuple", "attribute", "default-argument", "buffer", "parameter"],
)
def test_a_tensor_counts_wherever_it_is_kept(hidden: str):
    """Names, containers, attributes, closures, a module's buffers and parameters: one
    measure for all, so no new hiding place needs a check of its own."""
    made = "import torch\nbig = torch.zeros(10_000)\n"
    assert alive(made + hidden + "\ndel big\n") == 40_000
    assert alive(made + "del big\n") == 0


def test_views_count_their_storage_once_and_gradients_count_too():
    source = """\
    import torch
    whole = torch.zeros(1000)
    part = whole[:10]
    weight = torch.zeros(500, requires_grad=True)
    (weight * 2).sum().backward()
    """
    assert alive(source) == 1000 * 4 + 500 * 4 + 500 * 4  # the view adds nothing; the grad does


def test_what_the_harness_holds_does_not_count():
    """The run's own tensors, to the byte: not the harness's (HARNESS_TENSOR, made before the
    run), nor what grill makes while it measures (the compared value's fingerprint), nor what
    the run let go of."""
    source = """\
    import torch
    kept = torch.zeros(1000)
    for step in range(20):
        scratch = torch.ones(10_000) * step
    del scratch
    """
    assert HARNESS_TENSOR.numel()  # alive in this process, so in the forked child
    assert alive(source, compare=["kept"]) == 4000


def observed(alive_bytes: int) -> Observed:
    return Observed(0, 0, 0, values={"x": fingerprint(1.0)}, alive_bytes=alive_bytes)


BOUNDED = Contract(trains=False, same_as_solution=[Compared(name="x")], alive_bytes="at_most")


def _alive(fix: Observed, solution: Observed, contract: Contract = BOUNDED) -> list[Expectation]:
    return [e for e in check(contract, fix, solution) if e.what == "alive_bytes"]


def test_at_most_the_solutions_alive_bytes_with_ten_percent_of_slack():
    solution = observed(100_000)
    (within,) = _alive(observed(110_000), solution)
    (fewer,) = _alive(observed(40_000), solution)
    (over,) = _alive(observed(110_001), solution)
    assert within.met and fewer.met
    assert not over.met
    assert (
        _alive(observed(900_000), solution, Contract(same_as_solution=[Compared(name="x")])) == []
    )


def test_a_broken_alive_bytes_is_named_in_the_verdict_with_both_figures():
    (broken,) = _alive(observed(3 * 1024**2), observed(1024**2))
    clean = Verdict(verdict="clean", device="cpu", message="No autograd graph piles up.")
    wrong = with_expectations(clean, (broken,))
    assert wrong.verdict == "wrong"
    assert wrong.message == (
        "Your code no longer does what the task asks: it keeps 3.0 MB of tensors alive at the"
        " end, the solution keeps 1.0 MB."
    )
    assert "another name" in (wrong.hint or "")


def test_the_task_panel_says_what_alive_bytes_checks():
    (line,) = [line for line in contract_lines(BOUNDED) if "alive at the end" in line]
    assert line.startswith("keeps at most as many (10% of slack) bytes of tensors alive")


def test_a_task_grades_a_kept_copy_wrong_and_a_freed_one_clean():
    """Through the sandbox, as the app grades: the copy kept under a name the contract does
    not compare is `wrong`, in the verdict's words; the same code that lets it go is clean."""
    from checkers.api import grade_task
    from checkers.task import TaskSpec

    solution = SERVED.replace("reference = copy.deepcopy(model)", "")
    spec = TaskSpec(
        solution=solution,
        contract=Contract(
            trains=False,
            same_as_solution=[Compared(name="model", dtype=True)],
            alive_bytes="at_most",
        ),
    )
    kept = grade_task(SERVED, spec)
    freed = grade_task(SERVED + "del reference\n", spec)
    assert kept.verdict == "wrong"
    assert "it keeps 385.5 KB of tensors alive at the end, the solution keeps 128.5 KB" in (
        kept.message
    )
    assert freed.verdict == "clean", freed.message
