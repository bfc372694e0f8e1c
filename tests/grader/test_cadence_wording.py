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
