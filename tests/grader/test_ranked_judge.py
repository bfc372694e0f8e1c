"""A ranked run judged as one, from each rank's verdict and measurements: collectives that
did not match (gloo's abort, peers losing their connection) named as such, and a rank's
collectives per update told apart by where they were made, DDP's gradient buckets inside a
backward pass or the code's own all-reduces outside it. Pure data in, as in test_judge.py."""

from __future__ import annotations

from checkers.judge.communication import check_ranks, per_update, what_changed
from checkers.judge.contract import Observed
from checkers.judge.ranks import combine
from checkers.report import headline, render
from checkers.task import Communication, Compared, Contract
from checkers.verdict import Verdict

SOURCE = """\
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
loss = torch.ones(())
for step in range(30):
    if rank == 0 and step % 10 == 9:
        running = loss.clone()
        dist.all_reduce(running)
dist.destroy_process_group()
"""
GLOO_ABORT = (
    "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
    "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
    " op.preamble.length <= op.nbytes. 164 vs 4. Received data size doesn't match expected"
    " size. Is there a distributed collective mismatch in your code?\n"
)
PEER_GONE = "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Connection closed by peer"


def crashed(line: int) -> Verdict:
    return Verdict.not_graded(
        "error", "cpu", "the snippet crashed (signal SIGABRT)", line=line, kind="crash"
    )


def raised(kind: str, message: str, line: int) -> Verdict:
    return Verdict.not_graded("error", "cpu", message, line=line, kind=kind)


def combined(verdicts, outputs, failed_rank):
    count = len(verdicts)
    return combine(
        verdicts,
        [None] * count,
        ended_by="failure",
        failed_rank=failed_rank,
        dumps=[""] * count,
        answered=[False] * count,
        limit=None,
        source=SOURCE,
        filename="<snippet>",
        outputs=outputs,
        device="cpu",
    )


# --- collectives that did not match ---------------------------------------------------------


def test_a_gloo_abort_on_mismatched_collectives_is_a_desync_naming_each_rank():
    verdict = combined(
        [crashed(10), raised("RuntimeError", PEER_GONE, 10), raised("RuntimeError", PEER_GONE, 10)],
        [GLOO_ABORT, "", ""],
        failed_rank=0,
    )
    assert verdict.verdict == "hang" and not verdict.graded
    assert verdict.error is not None and verdict.error.kind == "desync"
    assert verdict.message.startswith("The ranks' collectives did not match, and the run broke off")
    assert "rank 0 crashed (signal SIGABRT) at line 10" in verdict.message
    assert "ranks 1–2 raised RuntimeError at line 10" in verdict.message
    assert "gloo said: op.preamble.length <= op.nbytes. 164 vs 4." in verdict.message
    assert "`if rank == 0 and step % 10 == 9:` (line 8)" in verdict.hint
    assert [r.state for r in verdict.ranks] == ["failed"] * 3


def test_a_desync_has_its_own_headline_and_shows_its_message_and_hint():
    verdict = combined([crashed(10), raised("RuntimeError", PEER_GONE, 10)], [GLOO_ABORT, ""], 0)
    assert headline(verdict) == "HANG: the ranks' collectives did not match (not graded)"
    text = render(verdict)
    assert "The ranks' collectives did not match" in text
    assert "Hint: The collective at line 10 runs inside" in text


def test_a_peer_that_lost_its_connection_first_is_a_desync_too():
    verdict = combined([raised("RuntimeError", PEER_GONE, 10), crashed(10)], ["", GLOO_ABORT], 0)
    assert verdict.error is not None and verdict.error.kind == "desync"


def test_a_rank_that_raised_its_own_error_first_is_that_error_not_a_desync():
    """Its peers lose their connection to it, but the run's story is the rank's own error."""
    verdict = combined(
        [raised("RuntimeError", PEER_GONE, 10), raised("ValueError", "bad shape", 6)],
        ["", ""],
        failed_rank=1,
    )
    assert verdict.error is not None and verdict.error.kind == "ValueError"
    assert verdict.message.startswith("Rank 1: bad shape")


def test_an_error_that_only_mentions_gloo_is_not_a_desync():
    message = 'init_process_group was already called with backend "gloo"'
    verdict = combined([raised("RuntimeError", message, 4)], [""], failed_rank=0)
    assert verdict.error is not None and verdict.error.kind == "RuntimeError"


# --- collectives per update, and where they were made --------------------------------------


def observed(windows: list[list[int]], backward_per_update: int = 1, world: int = 4) -> Observed:
    """A rank that made `windows` ([calls, bytes, calls inside a backward pass]) per update."""
    updates = len(windows)
    calls = sum(window[0] for window in windows)
    return Observed(
        backward_calls=backward_per_update * updates,
        updates=updates,
        optimizer_steps=updates,
        ranked={
            "rank": 0,
            "world": world,
            "collectives": {"all_reduce": {"calls": calls, "bytes": 4 * calls}},
            "per_update": windows,
            "after_updates": [0, 0, 0],
            "updates": updates,
            "grads": [[1.0, 1.0]] * updates,
            "params": [1.0, 1.0],
            "ended_at": None,
        },
    )


def test_ddp_syncing_every_micro_batch_is_told_from_syncing_once_per_update():
    every_micro_batch = observed([[4, 400, 4]] * 5, backward_per_update=4)
    once = observed([[1, 100, 1]] * 5, backward_per_update=4)
    found = per_update("same", [every_micro_batch], [once])
    assert not found.met
    assert found.message.startswith(
        "Rank 0 makes 4 collectives per optimizer update (all_reduce ×20 over the run); the"
        " solution makes 1 collective"
    )
    assert "in every one of the 4 backward passes of an update (every micro-batch)" in found.message
    assert "outside any backward pass" not in found.message


def test_every_micro_batch_with_several_buckets_is_still_every_micro_batch():
    every_micro_batch = observed([[8, 800, 8]] * 5, backward_per_update=4)
    once = observed([[2, 200, 2]] * 5, backward_per_update=4)
    assert "every micro-batch" in per_update("same", [every_micro_batch], [once]).message


def test_hand_made_all_reduces_are_told_from_ddps_buckets():
    by_hand = observed([[6, 600, 0]] * 5)
    ddp = observed([[1, 600, 1]] * 5)
    found = per_update("same", [by_hand], [ddp])
    assert not found.met
    assert (
        "6 of them outside any backward pass, made by the code itself, where the solution"
        " leaves the gradients to DDP's buckets" in found.message
    )
    assert "every micro-batch" not in found.message


def test_hand_made_all_reduces_against_a_hand_made_solution_count_both():
    per_parameter = observed([[8, 400, 0]] * 5)
    flattened = observed([[4, 400, 0]] * 5)
    found = per_update("at_most", [per_parameter], [flattened])
    assert not found.met
    assert "8 of them made by the code itself, outside any backward pass" in found.message
    assert "where the solution makes 4 there" in found.message
    assert "DDP" not in found.message.split("; the solution")[1]


def test_an_extra_collective_inside_backward_communicates_more_than_needed():
    """find_unused_parameters' usage map: all-reduced inside the backward, beside the bucket."""
    flagged = observed([[2, 500, 2]] * 5)
    plain = observed([[1, 400, 1]] * 5)
    found = per_update("same", [flagged], [plain])
    assert found.message.endswith(": it communicates more than the task needs.")


def test_fewer_collectives_pass_at_most_and_fail_same():
    flattened, per_parameter = observed([[1, 400, 0]] * 5), observed([[4, 400, 0]] * 5)
    assert per_update("at_most", [flattened], [per_parameter]).met
    found = per_update("same", [flattened], [per_parameter])
    assert found.message.endswith(": it skips communication the task needs.")


def test_the_first_update_holds_the_set_up_and_is_not_counted():
    """DDP's broadcast of the weights falls in the first window; the median skips it."""
    fix = observed([[3, 900, 1]] + [[1, 100, 1]] * 4)
    assert per_update("same", [fix], [observed([[1, 100, 1]] * 5)]).met


def test_check_ranks_names_the_ranks_and_carries_the_rate_message():
    contract = Contract(
        same_as_solution=[Compared(name="model")],
        communication=Communication(per_update="same"),
    )
    starter = [observed([[4, 400, 4]] * 5, backward_per_update=4) for _ in range(2)]
    solution = [observed([[1, 100, 1]] * 5, backward_per_update=4) for _ in range(2)]
    found = {e.what: e for e in check_ranks(contract, starter, solution)}
    assert found["in_sync"].met
    assert not found["per_update"].met
    assert "every micro-batch" in found["per_update"].message


def test_a_fix_without_the_solutions_all_reduce_hears_what_it_changed_not_of_seeds():
    """The contract compares only the model: a fix that dropped the hand-made all_reduce breaks
    `same:model`, and its hint names the communication it changed, not the model, the data and
    the order of random draws, which it left alone."""
    from checkers.api import with_expectations
    from checkers.verdict import Expectation

    no_reduce = [observed([[0, 0, 0]] * 5) for _ in range(2)]
    by_hand = [observed([[1, 100, 0]] * 5) for _ in range(2)]
    changed = what_changed(no_reduce, by_hand)
    assert changed is not None
    assert changed.startswith("Rank 0 makes 0 collectives per optimizer update")
    assert "the solution makes 1 collective" in changed
    broken = (Expectation("same:model", False, "`model` differs from the solution's."),)
    verdict = with_expectations(
        Verdict(verdict="clean", device="cpu", steps=5), broken, changed=changed
    )
    assert verdict.verdict == "wrong"
    assert verdict.hint.startswith(changed)
    assert "order of random draws" not in verdict.hint


def test_a_fix_that_communicates_as_the_solution_changed_nothing_there():
    same = [observed([[1, 100, 0]] * 5) for _ in range(2)]
    assert what_changed(same, same) is None
