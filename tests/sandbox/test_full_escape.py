"""What code that got past the policy entirely can do to the verdict (docs/sandbox.md, "What a
full escape from the policy could still forge"): with the real builtins, os, sys, gc and every
frame in the run's process (a test-only job, `escape_jobs`), it finds no key and no result
channel while the snippet runs, no code of its own runs in grill's answer path after the
snippet ended, and breaking that path makes the run `tampered`: a leaking loop is graded
as leaking, or not graded, never forged clean."""

from __future__ import annotations

import pytest

from checkers.api import verdict_from_outcome
from checkers.verdict import GRADED

LEAK = """\
import torch
import torch.nn as nn
model = nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(40):
    loss = model(torch.randn(32, 64)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss)
    print(step)
"""


def payload(box, attack: str) -> dict[str, object]:
    return {
        "attack": attack,
        "source": LEAK,
        "filename": "train.py",
        "seconds": 10.0,
        "steps": None,
        "seed": 0,
        "compare": [],
        "peak": False,
        "device": "cpu",
        "print_limit": box.limits.output_bytes,
    }


def graded(box, attack: str):
    return box.run("escape_jobs:graded_with_escape", payload(box, attack), timeout_s=40)


@pytest.mark.parametrize(
    "attack",
    ["hunt_while_running", "code_after_the_end", "only_after_the_end", "break_the_answer_path"],
)
def test_a_complete_escape_cannot_forge_a_clean_verdict(either_sandbox, attack):
    outcome = graded(either_sandbox, attack)
    assert "escape: 0 key candidates" in outcome.output  # it ran, and found no key to sign with
    assert not (outcome.status == "ok" and outcome.result.get("forged"))
    verdict, _ = verdict_from_outcome(outcome, LEAK)
    assert verdict.verdict != "clean"


def test_a_run_whose_answer_path_was_broken_is_tampered_not_its_result(either_sandbox):
    outcome = graded(either_sandbox, "break_the_answer_path")
    assert "escape: channels closed" in outcome.output
    assert (outcome.status, outcome.error.kind) == ("error", "tampered")


def test_code_an_escape_left_for_the_answer_path_never_runs(either_sandbox):
    """grill's answer path flushes only the streams it made and runs no hook: the `flush`
    and hooks the escape left never run, so the verdict is grill's, and it is the leak."""
    outcome = graded(either_sandbox, "only_after_the_end")
    assert "escape: flush and hooks armed" in outcome.output
    verdict, _ = verdict_from_outcome(outcome, LEAK)
    assert verdict.verdict == "leak", (outcome.status, outcome.error, verdict.message)


@pytest.mark.parametrize("attack", ["hunt_while_running", "only_after_the_end"])
def test_every_rank_of_a_ranked_run_is_held_the_same(either_sandbox, attack):
    """Each rank holds no key and no channel of its own while its snippet runs, and its answer
    path runs no code of the escape's."""
    payloads = [{**payload(either_sandbox, attack), "rank": rank, "world": 2} for rank in range(2)]
    outcome = either_sandbox.run_ranked("escape_jobs:graded_with_escape", payloads, timeout_s=60)
    for rank in outcome.ranks:
        assert "escape: 0 key candidates" in rank.output
        assert not (rank.status == "ok" and rank.result.get("forged"))
        verdict, _ = verdict_from_outcome(rank, LEAK)
        if attack == "only_after_the_end":
            assert verdict.verdict == "leak"
        else:
            assert verdict.verdict not in GRADED
