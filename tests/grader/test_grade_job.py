"""The child job, run in-process (the tests are trusted): edge cases of running and stopping."""

import textwrap

import pytest

from checkers.grade import grade_job, source_flags

LEAK_BODY = """
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss)
"""
PRELUDE = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
"""


def grade(source: str, steps: int = 20) -> dict:
    return grade_job({"source": textwrap.dedent(source), "filename": "<test>", "steps": steps,
                      "device": "cpu"})


def test_the_run_stops_after_the_requested_steps_even_in_an_endless_loop():
    result = grade(PRELUDE + "while True:" + LEAK_BODY, steps=15)
    assert result["verdict"] == "leak"
    assert result["steps"] == 15


def test_a_candidates_except_exception_cannot_swallow_the_stop():
    body = textwrap.indent(LEAK_BODY, "    ")
    source = PRELUDE + "try:\n    for i in range(10_000):" + body + "except Exception:\n    pass\n"
    result = grade(source, steps=12)
    assert result["steps"] == 12
    assert result["verdict"] == "leak"


def test_a_loop_shorter_than_the_step_budget_is_graded_on_what_ran():
    result = grade(PRELUDE + "for i in range(7):" + LEAK_BODY, steps=60)
    assert result["steps"] == 7
    assert result["verdict"] == "leak"
    assert result["pattern"] is None


def test_a_snippet_without_a_loop_that_runs_is_not_graded():
    result = grade(PRELUDE + "def never():\n    for i in range(3):\n        pass\n")
    assert result["verdict"] == "error"
    assert result["error"]["kind"] == "NoTrainingLoop"


def test_a_leak_inside_a_function_is_scanned_before_it_returns():
    source = PRELUDE + "def fit():\n    history = []\n    for i in range(9):" + textwrap.indent(
        LEAK_BODY.replace("kept", "history"), "    ") + "    return 0\nfit()\n"
    result = grade(source, steps=30)
    assert result["verdict"] == "leak"
    assert result["retained"][0]["path"] == "history[0]"
    assert result["retained"][0]["line"] == 13  # history.append(loss)


@pytest.mark.parametrize(("call", "flags"), [
    ("loss.backward(retain_graph=True)", {"retain_graph"}),
    ("torch.autograd.grad(y, x, create_graph=True)", set()),
    ("loss.backward(retain_graph=False)", set()),
    ("out, h = rnn(x, h)", {"carried:h"}),
    ("h = cell(x, h)", {"carried:h"}),
    ("acc = torch.cat([acc, out])", set()),
    ("best = min(best, loss)", set()),
])
def test_source_flags_name_true_keywords_and_state_fed_back_into_its_own_call(call, flags):
    import ast
    assert source_flags(ast.parse(call)) == flags


def test_a_list_returned_from_the_training_function_is_reported_once_at_its_storing_line():
    """The scan before `train` returns and the final one find the same tensors: counted once."""
    source = PRELUDE + """\
def train(steps):
    losses = []
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
history = train(12)
"""
    result = grade(source, steps=30)
    assert result["extra"]["retained_total"] == 11
    assert {item["path"].split("[")[0] for item in result["retained"]} == {"history"}
    assert {item["line"] for item in result["retained"]} == {13}  # losses.append(loss)


def test_backpropagating_through_32_steps_of_summed_losses_is_clean():
    """A long but bounded accumulation is what backward() runs through, not a kept graph."""
    source = PRELUDE + """\
total = 0
for i in range(200):
    total = total + model(torch.randn(4, 4)).pow(2).mean() / 32
    if (i + 1) % 32 == 0:
        opt.zero_grad()
        total.backward()
        opt.step()
        total = 0
"""
    result = grade(source, steps=80)
    assert result["verdict"] == "clean", result["message"]
    assert result["extra"]["allowed_age"] == 31


def test_a_list_kept_alongside_a_long_accumulation_still_leaks():
    source = PRELUDE + """\
total = 0
for i in range(200):
    loss = model(torch.randn(4, 4)).pow(2).mean() / 32
    total = total + loss
    kept.append(loss)
    if (i + 1) % 32 == 0:
        opt.zero_grad()
        total.backward()
        opt.step()
        total = 0
"""
    result = grade(source, steps=80)
    assert result["verdict"] == "leak"
    assert result["retained"][0]["path"] == "kept[0]"
