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


HOOK_EVERY_STEP = """\
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
outputs = []


def save_output(module, inputs, output):
    outputs.append(output)


for step in range(40):
    model[0].register_forward_hook(save_output)
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_hook_registered_every_step_is_told_to_register_once():
    """The list the hook's function stores into is named (a function is no loop, but what it
    stores is what the climb keeps), and the hint is the hook table's row, not `.detach()`."""
    verdict = grade_source(HOOK_EVERY_STEP, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert verdict.message.startswith("`outputs` holds"), verdict.message
    assert "Register the hook once" in verdict.hint
    assert "detach" not in verdict.hint


def test_a_value_stacked_after_the_loop_of_a_function_is_not_named():
    source = (
        "def main():\n"
        + "".join(f"    {line}\n" for line in STACKED_AFTER_THE_LOOP.splitlines())
        + "\n\nmain()\n"
    )
    verdict = grade_source(source, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert "`all_values`" in verdict.message and "`pred`" not in verdict.message
