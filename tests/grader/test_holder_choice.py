"""The holder named is the one to fix. A container that held the graphs during the climb wins
over a value built from it outside every loop (`pred = torch.stack(all_values)` after the
loop); a total made afresh every step before its backward call (`loss = 0`) is never the
culprit of a carried state."""

import ast

import pytest

from checkers.api import grade_source, shared_sandbox
from checkers.judge.source import source_flags

STACKED_AFTER_THE_LOOP = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
all_values = []
for step in range(60):
    value = model(torch.randn(8, 4)).mean()
    loss = value.pow(2)
    opt.zero_grad()
    loss.backward()
    opt.step()
    all_values.append(value)
pred = torch.stack(all_values)
"""


def test_the_list_that_held_the_graphs_wins_over_the_tensor_stacked_from_it():
    verdict = grade_source(STACKED_AFTER_THE_LOOP, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert verdict.message.startswith("`all_values` holds 60 tensors"), verdict.message
    assert "(line 13)" in verdict.message
    assert "pred" not in verdict.message and "line 14" not in (verdict.hint or "")


@pytest.mark.parametrize(
    "source,reset",
    [
        (
            "for s in range(3):\n    loss = 0\n    for t in range(2):\n"
            "        loss = loss + f(t)\n    loss.backward()\n",
            True,
        ),
        (
            "for e in range(3):\n    hidden = init()\n    for b in data:\n"
            "        out, hidden = model(b, hidden)\n        out.sum().backward()\n",
            False,
        ),
        ("total = 0\nfor s in range(3):\n    total = total + f(s)\n    total.backward()\n", False),
    ],
    ids=["total-reset-each-step", "state-reset-each-epoch", "total-never-reset"],
)
def test_a_name_made_afresh_before_each_backward_is_reset_each_step(source, reset):
    flags = source_flags(ast.parse(source))
    name = "loss" if "loss" in source else "hidden" if "hidden" in source else "total"
    assert (f"reset:{name}" in flags) is reset
