"""A holder that lives in a frame of the snippet's own function is named, never "something
grill could not name": a state a generator carries from item to item, a list a closure
keeps in its cell, a recurrent state a sampling function called inside the loop feeds
back into itself."""

import pytest

from checkers.api import grade_source, shared_sandbox

HEAD = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
"""

GENERATOR = (
    HEAD
    + """

def batches():
    hidden = torch.zeros(4)
    while True:
        x = torch.randn(8, 4)
        hidden = 0.9 * hidden + 0.1 * model(x).mean(0)
        yield x + hidden.detach()


step = 0
for x in batches():
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    if step == 60:
        break
"""
)

CLOSURE = (
    HEAD
    + """

def make_step():
    history = []

    def step():
        out = model(torch.randn(8, 4)).pow(2).mean()
        history.append(out)
        return out

    return step


run = make_step()
for i in range(60):
    loss = run()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
)

SAMPLER = (
    HEAD
    + """

def generate(length):
    hidden = torch.zeros(1, 4)
    tokens = []
    for _ in range(length):
        hidden = torch.tanh(model(hidden))
        tokens.append(int(hidden.argmax()))
    return tokens


for step in range(30):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(len(generate(40 * (step + 1))))
"""
)


@pytest.mark.parametrize(
    "source,holder,line",
    [
        (GENERATOR, "hidden", 12),
        (CLOSURE, "run.<closure>.history", 13),
        (SAMPLER, "hidden", 12),
    ],
    ids=["generator-state", "closure-cell", "sampler-local"],
)
def test_a_holder_in_the_snippets_own_function_is_named(source, holder, line):
    verdict = grade_source(source, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert "could not name" not in verdict.message, verdict.message
    assert verdict.retained and verdict.retained[0].path.startswith(holder), verdict.retained
    assert verdict.retained[0].line == line, verdict.retained
