"""A code task's contract held against the solution, and how a broken one reads."""

import torch
import torch.nn as nn

from checkers.api import NO_GRAPH_KEPT, same_code, with_expectations
from checkers.judge import NO_GRAPH
from checkers.judge.contract import Observed, check
from checkers.measure.fingerprint import fingerprint
from checkers.report import headline
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


def no_graph_built() -> Verdict:
    return Verdict.not_graded("error", "cpu", "No autograd graph was built.", kind=NO_GRAPH)


def test_code_that_built_no_graph_and_keeps_the_contract_is_clean():
    """An inference task (`trains: false`): its fix runs under no_grad and records nothing."""
    kept = Expectation(what="same:outputs", met=True, message="`outputs` is the solution's.")
    verdict = with_expectations(no_graph_built(), (kept,))
    assert (verdict.verdict, verdict.error, verdict.expectations) == ("clean", None, (kept,))
    assert verdict.message == NO_GRAPH_KEPT


def test_code_that_built_no_graph_and_breaks_the_contract_is_wrong_and_reads_so():
    """A wrong verdict, not an ungraded one: its headline is WRONG, as its exit status says."""
    wrong = with_expectations(no_graph_built(), BROKEN)
    assert (wrong.verdict, wrong.error, wrong.exit_code) == ("wrong", None, 1)
    assert headline(wrong).startswith("WRONG")


def test_only_a_run_without_graph_is_made_clean_by_a_kept_contract():
    """A snippet that raised, or ran out of time, stays ungraded whatever it left behind;
    and without a contract there is nothing to keep."""
    kept = Expectation(what="same:outputs", met=True, message="`outputs` is the solution's.")
    raised = Verdict.not_graded("error", "cpu", "ZeroDivisionError", kind="ZeroDivisionError")
    assert with_expectations(raised, (kept,)) is raised
    assert with_expectations(no_graph_built(), ()).verdict == "error"


def _promise(contract: Contract, fix: Observed, solution: Observed, what: str) -> Expectation:
    (found,) = [e for e in check(contract, fix, solution) if e.what.split(":")[0] == what]
    return found


def test_strings_none_and_booleans_are_compared_exactly():
    """A report's reasons: `(step, None)` is not `(step, 'loss was nan')`, though every number
    in it matches."""
    contract = Contract(same_as_solution=[Compared(name="skipped")])
    solution = observed(skipped=[(3, "loss was nan"), (7, "loss was nan")])
    assert _promise(contract, solution, solution, "same").met
    none = _promise(contract, observed(skipped=[(3, "loss was nan"), (7, None)]), solution, "exact")
    assert not none.met
    assert "`skipped[1][1]` is None where the solution has 'loss was nan'" in none.message
    other = _promise(contract, observed(skipped=[(3, "nan"), (7, "nan")]), solution, "exact")
    assert not other.met and "`skipped[0][1]` is 'nan'" in other.message
    flag = _promise(
        contract, observed(skipped=[(3, True)]), observed(skipped=[(3, False)]), "exact"
    )
    assert not flag.met and "is True where the solution has False" in flag.message


def test_a_dtype_kept_is_checked_only_where_the_contract_asks():
    """ "Keep the cache in float16": the same values in float32 pass a plain comparison and
    fail `dtype: true` alone."""
    half = observed(cache=[torch.ones(4, dtype=torch.float16)])
    full = observed(cache=[torch.ones(4, dtype=torch.float32)])
    assert _promise(Contract(same_as_solution=[Compared(name="cache")]), full, half, "same").met
    typed = Contract(same_as_solution=[Compared(name="cache", dtype=True)])
    assert _promise(typed, half, half, "same").met
    broken = _promise(typed, full, half, "dtype")
    assert not broken.met
    assert "`cache[0]` is float32 where the solution keeps float16" in broken.message


def test_a_values_bytes_at_most_the_solutions_refuse_a_copy_alone():
    """ "Do not copy the cache": a second storage with the same values, same dtype, same shape
    breaks `bytes: at_most` and nothing else; a view of the same storage counts once."""
    base = torch.arange(8.0)
    solution = observed(cache=[base, base[:4]])
    copied = observed(cache=[base, base[:4].clone()])
    plain = Contract(same_as_solution=[Compared(name="cache", dtype=True)])
    assert _promise(plain, copied, solution, "same").met
    bounded = Contract(same_as_solution=[Compared(name="cache", dtype=True, bytes="at_most")])
    assert _promise(bounded, solution, solution, "same").met
    broken = _promise(bounded, copied, solution, "bytes")
    assert not broken.met and "`cache` holds 48 B, more than the solution's 32 B" in broken.message
    half = base.half()
    smaller = observed(cache=[half, half[:4]])
    assert _promise(
        Contract(same_as_solution=[Compared(name="cache", bytes="at_most")]),
        smaller,
        solution,
        "same",
    ).met
    assert not _promise(
        Contract(same_as_solution=[Compared(name="cache", bytes="same")]),
        smaller,
        solution,
        "bytes",
    ).met


def rated(**windows: list[int]) -> Observed:
    return Observed(6, 6, 6, values={"x": fingerprint(1.0)}, per_update=windows)


def test_host_syncs_per_update_are_held_to_the_solutions():
    """One `.item()` per step against a solution that keeps the total on the device; what runs
    once before the loop (the first window) does not count."""
    contract = Contract(same_as_solution=[Compared(name="x")], per_update={"host_syncs": "at_most"})
    solution = rated(host_syncs=[3, 0, 0, 0, 0, 0])
    kept = _promise(contract, rated(host_syncs=[0, 0, 0, 0, 0, 1]), solution, "host_syncs")
    assert kept.met, kept.message
    broken = _promise(contract, rated(host_syncs=[0, 1, 1, 1, 1, 1]), solution, "host_syncs")
    assert not broken.met
    assert "1 host synchronisation per optimizer update; the solution makes 0" in broken.message
    same = Contract(same_as_solution=[Compared(name="x")], per_update={"host_syncs": "same"})
    assert not _promise(
        same, rated(host_syncs=[0, 0, 0]), rated(host_syncs=[0, 1, 1]), "host_syncs"
    ).met


def test_backward_passes_per_update_same_or_at_least():
    """One backward per step, not one per chunk: 16 passes an update break `same` and keep
    `at_least`; fewer break both."""
    solution = rated(backward_passes=[1, 1, 1, 1])
    chunked = rated(backward_passes=[16, 16, 16, 16])

    def contract(rule: str) -> Contract:
        return Contract(same_as_solution=[Compared(name="x")], per_update={"backward_passes": rule})

    broken = _promise(contract("same"), chunked, solution, "backward_passes")
    assert not broken.met and "16 backward passes per optimizer update" in broken.message
    assert _promise(contract("at_least"), chunked, solution, "backward_passes").met
    assert not _promise(
        contract("at_least"), rated(backward_passes=[0, 0]), solution, "backward_passes"
    ).met
    assert _promise(contract("same"), solution, solution, "backward_passes").met


def test_a_broken_rate_or_type_is_named_in_the_verdict_in_plain_words():
    verdict = Verdict(verdict="clean", device="cpu", message="No graph piles up.")
    expectations = (
        Expectation("host_syncs", False, "The fix makes 1 host synchronisation per update."),
        Expectation("dtype:cache", False, "`cache[0]` is float32."),
        Expectation("exact:reasons", False, "`reasons[0]` is None."),
    )
    wrong = with_expectations(verdict, expectations)
    assert wrong.verdict == "wrong"
    assert "it makes the host wait on the device more often than the solution" in wrong.message
    assert "`cache` is not kept in the solution's dtype" in wrong.message
    assert "`reasons` holds other strings, None or booleans than the solution's" in wrong.message
    assert "on the device" in wrong.hint


def test_hints_avoid_what_the_contract_refuses():
    """A task that keeps a total a tensor, or bounds host syncs, never hears `.item()`."""
    from checkers.judge.contract import avoided_calls

    assert avoided_calls(Contract(same_as_solution=[Compared(name="x")])) == frozenset()
    assert avoided_calls(Contract(same_as_solution=[Compared(name="x", tensors=True)])) == {"item"}
    assert avoided_calls(
        Contract(same_as_solution=[Compared(name="x")], per_update={"host_syncs": "at_most"})
    ) == {"item"}
