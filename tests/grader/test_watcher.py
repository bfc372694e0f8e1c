"""`checkers.testing.watching()`, the watcher the pytest plugin and `grill run` share, in the
caller's own process: a block's own loop watched without rewriting it."""

from pathlib import Path

import pytest
import torch

from checkers.testing import GraphLeak, assert_no_graph_leak, watching


def train(steps, keep):
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        keep(loss)


def test_a_clean_block_gives_its_verdict():
    history = []
    with watching(device="cpu") as watched:
        train(20, lambda loss: history.append(loss.item()))
    assert watched.verdict.verdict == "clean"
    assert watched.verdict.steps == 20
    assert any(note.startswith("Line numbers are those of") for note in watched.verdict.notes)


def test_a_leaking_block_fails_with_the_holder_and_its_line():
    kept_losses = []
    with pytest.raises(GraphLeak) as failure:
        with watching(device="cpu"):
            train(30, kept_losses.append)
    assert failure.value.verdict.verdict == "leak"
    (held, *_) = failure.value.verdict.retained
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert held.path.startswith("kept_losses")
    assert "kept_losses" in lines[held.line - 1]  # a line of this file's, where it is made
    assert "LEAK" in str(failure.value)


def test_steps_end_the_blocks_loop_there():
    history = []
    with watching(steps=7, device="cpu") as watched:
        train(10_000, lambda loss: history.append(loss.item()))
    assert len(history) == 6  # the 7th step's optimizer step ended the loop
    assert "Stopped at the step cap (7 optimizer steps" in watched.verdict.coverage


def test_one_watcher_at_a_time():
    with watching(device="cpu"):
        with pytest.raises(RuntimeError, match="already watching"):
            assert_no_graph_leak(lambda: None)
        train(8, lambda loss: None)
    with watching(device="cpu") as watched:  # the refusal left nothing behind
        train(8, lambda loss: None)
    assert watched.verdict.verdict == "clean"
