"""The errors a carried graph causes are explained. A tensor carried into the next step without
`detach()` makes torch raise "backward through the graph a second time"; with retain_graph=True
the run fails later, on a weight an old graph saved ("modified by an inplace operation"). The
run stays not graded (the snippet raised), but the message names the tensor that carried the
graph (its name, the line it is carried at, the step its graph was made in), says that
retain_graph=True hides the error and keeps every step's graph, and hints the detach at the
step boundary. Two losses over one forward pass need retain_graph=True: not blamed."""

import pytest

from checkers.api import grade_source, shared_sandbox
from checkers.sandbox import Sandbox

RNN = """\
import torch
import torch.nn as nn


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.i2h = nn.Linear(4, 8)
        self.h2h = nn.Linear(8, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, h):
        h = torch.tanh(self.i2h(x) + self.h2h(h))
        return self.out(h), h


model = RNN()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
h = torch.zeros(2, 8)
for step in range(50):
    y, h = model(torch.randn(2, 4), h)
    loss = y.pow(2).mean()
    opt.zero_grad()
    loss.backward({retain})
    opt.step()
"""

LSTM_IN_A_FUNCTION = """\
import torch
import torch.nn as nn


def train():
    lstm = nn.LSTM(4, 8, batch_first=True)
    head = nn.Linear(8, 1)
    opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()))
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    for batch in range(30):
        out, hidden = lstm(torch.randn(2, 5, 4), hidden)
        loss = head(out[:, -1]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


train()
"""

TWO_LOSSES = """\
import torch
import torch.nn as nn

body = nn.Linear(4, 8)
heads = nn.ModuleList([nn.Linear(8, 1), nn.Linear(8, 1)])
opt = torch.optim.SGD(list(body.parameters()) + list(heads.parameters()), lr=0.01)
for step in range(40):
    features = torch.relu(body(torch.randn(4, 4)))
    first = heads[0](features).pow(2).mean()
    second = heads[1](features).abs().mean()
    opt.zero_grad()
    first.backward({retain})
    second.backward()
    opt.step()
"""


@pytest.fixture
def sandbox() -> Sandbox:
    return shared_sandbox("cpu")


def grade(source: str, sandbox: Sandbox):
    return grade_source(source, sandbox=sandbox, seconds=60)


def test_backward_a_second_time_names_the_carried_state_and_the_detach(sandbox):
    verdict = grade(RNN.format(retain=""), sandbox)
    assert verdict.verdict == "error"
    assert "backward through the graph a second time" in verdict.message
    assert "Why: `h` (line 21) carries the graph made in step 1" in verdict.message
    assert "retain_graph=True would hide this error and keep every step's graph" in verdict.message
    assert "`h = h.detach()`" in verdict.message


def test_the_in_place_error_under_retain_graph_is_traced_to_the_same_state(sandbox):
    verdict = grade(RNN.format(retain="retain_graph=True"), sandbox)
    assert verdict.verdict == "error"
    assert "modified by an inplace operation" in verdict.message
    assert "Why: `h` (line 21)" in verdict.message
    assert "retain_graph=True hid the first error" in verdict.message
    assert "`h = h.detach()`" in verdict.message


def test_a_state_carried_as_a_tuple_in_a_function_is_named(sandbox):
    verdict = grade(LSTM_IN_A_FUNCTION, sandbox)
    assert verdict.verdict == "error"
    assert "Why: `hidden` (line 11)" in verdict.message
    assert "`hidden = tuple(t.detach() for t in hidden)`" in verdict.message


def test_two_losses_over_one_forward_need_retain_graph_and_are_not_blamed(sandbox):
    assert grade(TWO_LOSSES.format(retain="retain_graph=True"), sandbox).verdict == "clean"
    forgotten = grade(TWO_LOSSES.format(retain=""), sandbox)
    assert forgotten.verdict == "error"
    assert "backward through the graph a second time" in forgotten.message
    assert "Why:" not in forgotten.message


LSTM_CELL_DETACHING_ONLY_H = """\
import torch
import torch.nn as nn

cell = nn.LSTMCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.01)
h = torch.zeros(2, 8)
c = torch.zeros(2, 8)
for step in range(30):
    loss = 0
    for t in range(3):
        h, c = cell(torch.randn(2, 4), (h, c))
        loss = loss + head(h).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h.detach()
"""


def test_the_part_of_a_state_left_undetached_is_named_not_the_part_detached(sandbox):
    verdict = grade(LSTM_CELL_DETACHING_ONLY_H, sandbox)
    assert verdict.verdict == "error"
    assert "Why: `c` (line 12)" in verdict.message
    assert "`c = c.detach()`" in verdict.message
