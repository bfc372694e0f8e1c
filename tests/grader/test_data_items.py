"""A loop's items are data when they carry tensors at any depth, attributes included: a
torchtext-style `Batch` (`batch.src`, `batch.trg`), a dataclass, a class with `__slots__`, a
namedtuple, a `SimpleNamespace`. A loop over layers or optimizers is not a loop over data, nor
is a loop whose backward passes all ran in one of its iterations (an update every N steps).
That decides whether a window kept for a whole pass grows with the data (a leak) or is bounded
by the code."""

import dataclasses
import textwrap
import types
from collections import namedtuple

import pytest
import torch
import torch.nn as nn

from checkers.api import grade_source, shared_sandbox
from checkers.measure.ledger import carries_tensor


class Batch:
    """torchtext's legacy Batch: fields set as attributes."""

    def __init__(self, src, trg):
        self.src, self.trg = src, trg


class Slotted:
    __slots__ = ("inputs", "labels")

    def __init__(self, inputs, labels):
        self.inputs, self.labels = inputs, labels


@dataclasses.dataclass
class Example:
    features: dict
    label: int


Pair = namedtuple("Pair", "x y")


@pytest.mark.parametrize(
    "item",
    [
        Batch(torch.ones(2), torch.ones(2)),
        Slotted(torch.ones(2), torch.ones(2)),
        Example({"ids": torch.ones(2)}, 0),
        Pair(torch.ones(2), 1),
        types.SimpleNamespace(src=torch.ones(2)),
        (0, Batch(torch.ones(2), None)),
    ],
    ids=["attributes", "slots", "dataclass-dict", "namedtuple", "namespace", "enumerated"],
)
def test_items_carrying_tensors_through_attributes_are_data(item):
    assert carries_tensor(item)


def test_a_dataclass_is_data_through_its_fields_at_any_depth_it_reaches():
    example = Example({"ids": torch.ones(2)}, 0)
    assert carries_tensor(example) and carries_tensor(example.features)


@pytest.mark.parametrize(
    "make",  # made by the test: torch's first optimizer imports its compiler (1.4 s of CPU)
    [
        lambda: nn.Linear(2, 2),
        lambda: torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1),
        lambda: Batch("a", 3),
        lambda: types.SimpleNamespace(lr=0.1),
    ],
    ids=["module", "optimizer", "no-tensors", "settings"],
)
def test_layers_optimizers_and_plain_objects_are_not_data(make):
    assert not carries_tensor(make())


EVALUATION_KEEPS_EVERY_PREDICTION = """\
import torch
import torch.nn as nn


class Batch:
    def __init__(self, src, trg):
        self.src = src
        self.trg = trg


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
train = [Batch(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(20)]
valid = [Batch(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(20)]
for epoch in range(4):
    for batch in train:
        loss = (model(batch.src) - batch.trg).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    predictions = []
    for batch in valid:
        predictions.append(model(batch.src))
"""


def test_an_evaluation_pass_over_batch_objects_that_keeps_every_graph_is_a_leak():
    verdict = grade_source(
        textwrap.dedent(EVALUATION_KEEPS_EVERY_PREDICTION), sandbox=shared_sandbox("cpu")
    )
    assert verdict.verdict == "leak", verdict.message
    assert "`predictions` keeps every iteration's graph (line 23)" in verdict.message


ROLLOUT_BUFFER_CLEARED_EVERY_N_STEPS = """\
import torch
import torch.nn as nn

policy = nn.Linear(4, 2)
opt = torch.optim.Adam(policy.parameters(), lr=0.01)
buffer = []
timestep = 0
for episode in range(30):
    for t in range(40):
        timestep += 1
        logits = policy(torch.randn(4))
        buffer.append(torch.log_softmax(logits, -1)[0])
        if timestep % 100 == 0:
            old = torch.stack(buffer).detach()
            for _ in range(4):
                loss = (policy(torch.randn(len(buffer), 4)).sum(-1) - old).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            buffer.clear()
        if t == 20 + episode % 7:
            break
"""


def test_an_update_of_several_backward_passes_inside_one_step_does_not_make_steps_batches():
    """A rollout buffer kept across episodes and cleared every 100 environment steps
    (PPO-PyTorch's `Memory`) is bounded by the code: the episode loop's steps are not batches
    because one of its iterations ran the update's four backward passes."""
    verdict = grade_source(
        textwrap.dedent(ROLLOUT_BUFFER_CLEARED_EVERY_N_STEPS), sandbox=shared_sandbox("cpu")
    )
    assert verdict.verdict == "clean", verdict.message
