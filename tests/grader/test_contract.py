"""A code task's contract held against the solution, and how a broken one reads."""

import torch
import torch.nn as nn

from checkers.api import same_code, with_expectations
from checkers.judge.contract import Observed, check
from checkers.measure.fingerprint import fingerprint
from checkers.task import Compared, Contract
from checkers.verdict import Expectation, Verdict


def observed(**values) -> Observed:
    return Observed(6, 6, 6, values={name: fingerprint(v) for name, v in values.items()})


def test_a_0d_tensor_and_a_number_with_the_same_value_are_the_same_result():
    """A correct `.detach()` fix was graded wrong: "another shape: tensor() against number"."""
    contract = Contract(same_as_solution=[Compared(name="final_loss")])
    (same,) = [
        e
        for e in check(contract, observed(final_loss=torch.tensor(0.25)), observed(final_loss=0.25))
        if e.what.startswith("same")
    ]
    assert same.met, same.message


def test_a_contract_that_keeps_a_value_a_tensor_refuses_the_same_number_from_item():
    """A prompt that keeps totals on the device: `.item()` gives the same value, not the same
    thing; elsewhere in a dict the tensor is still found by its place."""
    contract = Contract(same_as_solution=[Compared(name="totals", tensors=True)])
    solution = observed(totals={"loss": torch.tensor(2.5), "seen": 4})
    (kept,) = [e for e in check(contract, solution, solution) if e.what.startswith("same")]
    as_number = observed(totals={"loss": 2.5, "seen": 4})
    (same,) = [e for e in check(contract, as_number, solution) if e.what.startswith("same")]
    assert kept.met, kept.message
    assert not same.met
    assert "`totals['loss']` is a Python number where the solution keeps a tensor" in same.message


def test_a_value_kept_says_how_much_of_its_tolerance_its_closest_number_used():
    """What `math.isclose` allows a pair is max(rtol x the larger, atol): a fix whose numbers
    come within half of that used half of it; equal numbers use none."""
    contract = Contract(same_as_solution=[Compared(name="x", rtol=1e-3, atol=1e-6)])
    solution = observed(x=[1.0, 2.0, 0.0])

    def used(values: list[float]) -> Expectation:
        (same,) = [e for e in check(contract, observed(x=values), solution) if e.what == "same:x"]
        return same

    assert used([1.0, 2.0, 0.0]).tolerance_used == 0.0
    half = used([1.0, 2.0 + 1e-3, 0.0])
    assert half.met and abs(half.tolerance_used - 0.5) < 1e-3
    near_zero = used([1.0, 2.0, 0.9e-6])
    assert near_zero.met and abs(near_zero.tolerance_used - 0.9) < 1e-6
    beyond = used([1.0, 2.01, 0.0])
    assert not beyond.met


def test_a_model_that_differs_names_the_parameter_and_the_element():
    torch.manual_seed(0)
    solution = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    fix = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    fix.load_state_dict(solution.state_dict())
    with torch.no_grad():
        fix[2].weight[0, 1] += 0.5
    contract = Contract(same_as_solution=[Compared(name="model")])
    (same,) = [
        e
        for e in check(contract, observed(model=fix), observed(model=solution))
        if e.what.startswith("same")
    ]
    assert not same.met
    assert same.message.startswith("`model.2.weight[0, 1]` differs from the solution's"), (
        same.message
    )


def test_a_compared_module_is_read_from_its_tables_not_its_own_state_dict():
    class Lying(nn.Linear):
        def state_dict(self, *args, **kwargs):
            raise AssertionError("grill called the snippet's state_dict()")

    assert fingerprint(Lying(2, 1))["shape"] == "module Lying weight tensor(1, 2) bias tensor(1,)"


BROKEN = (
    Expectation("trains", True, "6 backward passes, as the solution's 6."),
    Expectation(
        "peak_memory",
        False,
        "Peak memory 43.7 MB; the task allows 50% of the starter's 43.7 MB (21.9 MB).",
    ),
    Expectation("same:model", False, "`model.fc.weight[0, 1]` differs from the solution's."),
)


def test_a_broken_contract_reads_as_one_sentence_and_its_promises_are_not_repeated():
    clean = Verdict(verdict="clean", device="cpu", message="No autograd graph piles up.")
    wrong = with_expectations(clean, BROKEN)
    assert wrong.verdict == "wrong"
    assert wrong.message == (
        "Your code no longer does what the task asks: its peak memory is over the task's budget"
        " and `model` is not the solution's."
    )
    assert "Peak memory 43.7 MB" not in wrong.message  # it is the contract's own line


def test_an_unchanged_starter_does_not_yet_do_what_the_task_asks():
    clean = Verdict(verdict="clean", device="cpu", message="No autograd graph piles up.")
    assert with_expectations(clean, BROKEN, unchanged=True).message.startswith(
        "Your code does not yet do what the task asks:"
    )
    starter = "import torch\nx = 1  # the starter\n"
    assert same_code("import torch\n\nx = 1\n", starter)
    assert not same_code("import torch\nx = 2\n", starter)


def test_a_leak_that_also_breaks_the_contract_says_so_in_a_phrase():
    leak = Verdict(verdict="leak", device="cpu", message="`losses` holds 6 tensors.")
    message = with_expectations(leak, BROKEN).message
    assert message == (
        "`losses` holds 6 tensors. It also breaks the task's contract: its peak memory is over"
        " the task's budget and `model` is not the solution's."
    )
