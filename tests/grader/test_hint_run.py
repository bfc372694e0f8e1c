"""A hint's edit that makes a kept value a Python number (`.item()`) is run before it is
shown: the snippet, edited as the hint says, runs in the same sandbox as the snippet did, and
an edit that raises (a later line still uses the value as a tensor) or leaves the same
holder leaking gives way to the next candidate, `.detach()`, which keeps a tensor. Edits that
keep a tensor are not run again: they cannot break a later line's use of the value."""

from unittest.mock import patch

import pytest

from checkers.api import grade_source, shared_sandbox
from checkers.sandbox import Outcome

LOOP = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(40):
    value = model(torch.randn(8, 4)).mean()
    opt.zero_grad()
    value.pow(2).backward()
    opt.step()
    kept.append(value)
"""

STACKED_AFTER = LOOP + "summary = torch.stack(kept).mean()\n"
"""`.item()` compiles, but `torch.stack` of numbers raises after the loop."""

READ_IN_THE_LOOP = LOOP.replace(
    "    kept.append(value)\n",
    "    kept.append(value)\n    if torch.stack(kept[-5:]).mean() > 10:\n        break\n",
)
"""`.item()` compiles, but the loop itself stacks what it kept, on the first step."""

PRINTED_AFTER = LOOP + "print(sum(kept) / len(kept))\n"
"""`.item()` compiles and runs: numbers add up as tensors do."""

TOTAL_USED_AS_TENSOR = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
total = torch.zeros(())
for step in range(40):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss
print(total.cpu())
"""
"""A running total read back with a tensor method after the loop: `loss.item()` would make
`total` a tensor plus numbers (still a tensor), so that edit runs; the check tells it so."""


@pytest.fixture
def runs():
    """Every sandbox run `grade_source` makes, as the sources it ran."""
    sandbox = shared_sandbox("cpu")
    ran: list[str] = []
    real = sandbox.run

    def recording(job, payload, **options):
        ran.append(payload["source"])
        return real(job, payload, **options)

    with patch.object(sandbox, "run", recording):
        yield sandbox, ran


@pytest.mark.parametrize(
    "source", [STACKED_AFTER, READ_IN_THE_LOOP], ids=["after-the-loop", "in-the-loop"]
)
def test_an_item_edit_that_breaks_a_later_tensor_use_falls_back_to_detach(runs, source):
    sandbox, ran = runs
    verdict = grade_source(source, sandbox=sandbox)
    assert verdict.verdict == "leak", verdict.message
    assert "kept.append(value.detach())" in (verdict.hint or ""), verdict.hint
    assert ".item()" not in (verdict.hint or ""), verdict.hint
    assert len(ran) == 2 and "kept.append(value.item())" in ran[1]


def test_an_item_edit_that_runs_and_stops_the_leak_is_shown(runs):
    sandbox, ran = runs
    verdict = grade_source(PRINTED_AFTER, sandbox=sandbox)
    assert verdict.verdict == "leak", verdict.message
    assert "kept.append(value.item())" in (verdict.hint or ""), verdict.hint
    assert len(ran) == 2


def test_a_total_made_of_numbers_is_run_and_kept_when_it_works(runs):
    sandbox, ran = runs
    verdict = grade_source(TOTAL_USED_AS_TENSOR, sandbox=sandbox)
    assert verdict.verdict == "leak", verdict.message
    assert "total += loss.item()" in (verdict.hint or ""), verdict.hint
    assert len(ran) == 2


def test_an_edit_that_keeps_a_tensor_is_not_run_again(runs):
    sandbox, ran = runs
    source = LOOP.replace(
        "value = model(torch.randn(8, 4)).mean()", "value = model(torch.randn(8, 4))"
    )
    source = source.replace("value.pow(2).backward()", "value.pow(2).mean().backward()")
    verdict = grade_source(source, sandbox=sandbox)
    assert verdict.verdict == "leak", verdict.message
    assert "kept.append(value.detach())" in (verdict.hint or ""), verdict.hint
    assert len(ran) == 1


def test_a_failed_edit_run_never_loses_the_verdict():
    """Where the edited run cannot finish at all (the sandbox refuses it), the verdict stands
    with the next candidate's hint."""
    sandbox = shared_sandbox("cpu")
    real = sandbox.run
    calls = []

    def second_fails(job, payload, **options):
        calls.append(payload["source"])
        if len(calls) == 1:
            return real(job, payload, **options)
        return Outcome(status="error", result=None, output="", error=None, device="cpu", wall_s=0.0)

    with patch.object(sandbox, "run", second_fails):
        verdict = grade_source(PRINTED_AFTER, sandbox=sandbox)
    assert verdict.verdict == "leak"
    assert "kept.append(value.detach())" in (verdict.hint or ""), verdict.hint


def test_a_total_read_back_as_a_tensor_is_told_why_it_stays_one(runs):
    sandbox, ran = runs
    source = TOTAL_USED_AS_TENSOR.replace("print(total.cpu())", "print(total.item())")
    source = source.replace("total = torch.zeros(())", "total = 0")
    verdict = grade_source(source, sandbox=sandbox)
    assert verdict.verdict == "leak", verdict.message
    assert "(`total += loss.detach()`): the snippet still uses `total` as a tensor" in (
        verdict.hint or ""
    ), verdict.hint
    assert "the task" not in (verdict.hint or "")
    assert len(ran) == 2 and "total += loss.item()" in ran[1]


RANKED = """\
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(30):
    value = model(torch.randn(8, 4)).mean()
    opt.zero_grad()
    value.pow(2).backward()
    opt.step()
    kept.append(value)
{after}
"""


@pytest.fixture
def ranked_runs():
    """Every ranked run `grade_source` makes, as the sources its ranks ran."""
    sandbox = shared_sandbox("cpu")
    ran: list[list[str]] = []
    real = sandbox.run_ranked

    def recording(job, payloads, **options):
        ran.append([payload["source"] for payload in payloads])
        return real(job, payloads, **options)

    with patch.object(sandbox, "run_ranked", recording):
        yield sandbox, ran


@pytest.mark.parametrize(
    ("after", "shown"),
    [
        ("summary = torch.stack(kept).mean()", "kept.append(value.detach())"),
        ("print(sum(kept) / len(kept))", "kept.append(value.item())"),
    ],
    ids=["item-breaks-a-later-line", "item-runs"],
)
def test_a_ranked_runs_item_edit_is_run_as_ranks_once(ranked_runs, after, shown):
    """The edited snippet runs as ranks, once for all of them, and its hint is the same
    `.item()`-or-`.detach()` choice a single run makes."""
    sandbox, ran = ranked_runs
    verdict = grade_source(RANKED.format(after=after), sandbox=sandbox, ranks=2)
    assert verdict.verdict == "leak", verdict.message
    assert shown in (verdict.hint or ""), verdict.hint
    assert len(ran) == 2, "one ranked run of the snippet, one of its edit"
    assert len(ran[1]) == 2
    assert all("kept.append(value.item())" in source for source in ran[1])
