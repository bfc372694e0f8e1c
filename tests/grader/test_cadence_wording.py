"""A leak's message counts as the code does: a list given an entry every step "adds one" each
step; one given an entry every second step is told so."""

import pytest

from checkers.api import grade_source, shared_sandbox

EVERY = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
history = []
for step in range(80):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % {every} == 0:
        history.append(loss)
"""


@pytest.mark.parametrize(
    "every,told", [(1, "each step adds one"), (2, "one is added every 2 steps")]
)
def test_a_containers_cadence_is_the_codes(every, told):
    verdict = grade_source(EVERY.format(every=every), sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert told in verdict.message


TWO_OPTIMIZERS = """\
import torch
import torch.nn as nn

body, head = nn.Linear(4, 4), nn.Linear(4, 1)
optimizers = [
    torch.optim.SGD(body.parameters(), lr=0.01),
    torch.optim.Adam(head.parameters(), lr=0.01),
]
outputs = []
for step in range(80):
    out = head(body(torch.randn(8, 4)))
    out.pow(2).mean().backward()
    for opt in optimizers:
        opt.step()
        opt.zero_grad()
    outputs.append(out)
"""


def test_optimizers_stepping_together_are_one_step_of_the_loop():
    """Two optimizers stepping in one iteration make one update: a list given an entry per
    iteration gets one each step, not one every second step."""
    verdict = grade_source(TWO_OPTIMIZERS, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert "each step adds one" in verdict.message, verdict.message


ACCUMULATED_EVERY_THIRD = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
val_losses = []
for step in range(12):
    if step % 3 == 0:
        val = sum(model(torch.randn(8, 4)).pow(2).mean() for _ in range(2))
        val_losses.append(val)
    for micro in range(2):
        model(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()
"""


def test_an_entry_every_third_update_is_told_every_three_steps():
    """The cadence is the gaps between entries, in the loop's updates (two backward passes
    each): four entries, at steps 0, 3, 6 and 9, are one every 3 steps, not the 10 steps
    they span over four, rounded to every 2."""
    verdict = grade_source(ACCUMULATED_EVERY_THIRD, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert "one is added every 3 steps" in verdict.message, verdict.message
