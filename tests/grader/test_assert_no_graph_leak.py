"""The in-process API users put in their own test suites."""

import pytest
import torch
import torch.nn as nn

import checkers


def make_step(keep):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        keep(loss)
        return loss

    return step


def test_a_step_that_logs_floats_passes_and_returns_the_clean_verdict():
    history = []
    verdict = checkers.assert_no_graph_leak(
        make_step(lambda loss: history.append(loss.item())), steps=20
    )
    assert verdict.verdict == "clean"
    assert verdict.steps == 20
    assert len(history) == 20


def test_a_step_that_keeps_loss_tensors_fails_with_the_evidence():
    history = []
    with pytest.raises(AssertionError) as failure:
        checkers.assert_no_graph_leak(make_step(history.append), steps=20)
    text = str(failure.value)
    assert "LEAK" in text
    assert "`step.<closure>.keep.__self__` holds 20 tensors" in text
    assert "Hint:" in text


RUNNING = [0]


def test_a_leak_held_only_by_a_module_global_is_found(monkeypatch):
    monkeypatch.setitem(globals(), "RUNNING", [0])

    def keep(loss):
        RUNNING[0] = RUNNING[0] + loss

    with pytest.raises(AssertionError, match="AddBackward0"):
        checkers.assert_no_graph_leak(make_step(keep), steps=10)


def test_too_few_steps_are_refused():
    with pytest.raises(ValueError, match="at least 4"):
        checkers.assert_no_graph_leak(lambda: None, steps=2)
