"""A holder that lives in a frame of the snippet's own function is named, never "something
grill could not name": a state a generator carries from item to item, a list a closure
keeps in its cell, a recurrent state a sampling function called inside the loop feeds
back into itself, a generator driven by `.send()` or by the loop's `zip`, and an iterator
object no name holds (reached through what the loop iterates over)."""

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

SENT = (
    HEAD
    + """

def generate():
    hidden = torch.zeros(4)
    x = yield
    while True:
        hidden = 0.9 * hidden + 0.1 * model(x).mean(0)
        x = yield hidden.detach()


feed = generate().send
feed(None)
for step in range(60):
    x = torch.randn(8, 4)
    loss = (model(x) + feed(x)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
)
"""A coroutine-style generator driven by `.send()`, reached through the bound method."""

ZIPPED = GENERATOR.replace(
    "step = 0\nfor x in batches():", "for step, x in zip(range(60), batches()):"
)
"""A generator no name holds: only the loop's `zip` does."""

ITERATOR = (
    HEAD
    + """

class Stream:
    def __init__(self, steps):
        self.steps = steps
        self.hidden = torch.zeros(4)

    def __iter__(self):
        return self

    def __next__(self):
        if self.steps == 0:
            raise StopIteration
        self.steps -= 1
        x = torch.randn(8, 4)
        self.hidden = 0.9 * self.hidden + 0.1 * model(x).mean(0)
        return x + self.hidden.detach()


for x in Stream(60):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
)
"""An iterator object made in the `for` statement: no name holds it, and no loop of its own
runs while a scan looks (its `__next__` has none), so only the loop's iterable reaches it."""


@pytest.mark.parametrize(
    "source,holder,line",
    [
        (GENERATOR, "hidden", 12),
        (CLOSURE, "run.<closure>.history", 13),
        (SAMPLER, "hidden", 12),
        (SENT, "feed.__self__.<locals>.hidden", 12),
        (ZIPPED, "hidden", 12),
        (ITERATOR, "Stream(60).hidden", 21),
    ],
    ids=[
        "generator-state",
        "closure-cell",
        "sampler-local",
        "sent-generator",
        "zipped-generator",
        "iterator-object",
    ],
)
def test_a_holder_in_the_snippets_own_function_is_named(source, holder, line):
    verdict = grade_source(source, sandbox=shared_sandbox("cpu"))
    assert verdict.verdict == "leak", verdict.message
    assert "could not name" not in verdict.message, verdict.message
    assert verdict.retained and verdict.retained[0].path.startswith(holder), verdict.retained
    assert verdict.retained[0].line == line, verdict.retained
