"""Benign controls: ordinary training code runs untouched in the sandbox and returns its
result. If the policy grows too strict, these fail before any candidate notices."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET, sandbox_with_jobs

LINEAR = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
for step in range(200):
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
result = round(loss.item(), 3)
"""

MLP_ADAM = """
import math
import random
import torch
from torch import nn, optim
import torch.nn.functional as F
from collections import deque

class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = nn.Linear(2, width)
        self.out = nn.Linear(width, 2)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.out(F.relu(self.hidden(x)))

torch.manual_seed(1)
random.seed(1)
net = MLP(16)
opt = optim.Adam(net.parameters(), lr=0.05)
points = torch.randn(128, 2)
labels = (points[:, 0] * points[:, 1] > 0).long()
recent = deque(maxlen=5)
running = 0.0
for epoch in range(60):
    loss = F.cross_entropy(net(points), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
    recent.append(loss.item())
with torch.no_grad():
    accuracy = (net(points).argmax(dim=1) == labels).float().mean().item()
result = {"accuracy_ok": accuracy > 0.8, "calls": net.calls, "recent": len(recent),
          "finite": math.isfinite(running)}
"""

LANGUAGE = """
count = 0
def bump():
    global count
    count += 1
def counter():
    n = 0
    def step():
        nonlocal n
        n += 1
        return n
    return step
tick = counter()
tick(); tick()
bump()
scale = lambda v: v * 3
squares = [i * i for i in range(5) if i % 2 == 0]
table = {k: v for k, v in zip("abc", range(3))}
pairs = sorted({(i, j) for i in range(2) for j in range(2)})
class Box:
    def __init__(self, items):
        self.items = list(items)
    def __len__(self):
        return len(self.items)
    def __repr__(self):
        return f"Box({len(self)})"
box = Box(range(4))
box.items[0] += 10
table["a"] += 5
a, (b, c) = 1, (2, 3)
for i, (k, v) in enumerate(sorted(table.items())):
    pass
try:
    {}["missing"]
except KeyError as exc:
    caught = str(exc)
if __name__ == "__main__":
    print(f"{box!r} {count} {tick()} {scale(2)} {squares} {pairs}")
result = [count, tick(), scale(2), squares, table, repr(box), box.items[0], a + b + c, caught,
          isinstance(box, Box), max(squares), min(squares), abs(-2), round(2.567, 2),
          sum(squares), len(pairs), list(reversed([1, 2])), any([0, 1]), all([1, 1])]
"""

AUTOGRAD = """
import torch
x = torch.tensor([2.0, 3.0], requires_grad=True)
seen = []
x.register_hook(lambda grad: seen.append(grad.sum().item()))
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward(retain_graph=True)
g.sum().backward()
result = {"grad": g.detach().tolist(), "second": x.grad.tolist(), "hooks": len(seen),
          "has_graph": g.grad_fn is not None}
"""

DATA_AND_SCHEDULE = """
import copy
import itertools
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import StepLR
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
nn.init.zeros_(model[2].bias)
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
schedule = StepLR(opt, step_size=2, gamma=0.5)
batches = 0
for epoch in range(4):
    for xb, yb in loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        batches += 1
    schedule.step()
twin = copy.deepcopy(model)
result = {"batches": batches, "lr": opt.param_groups[0]["lr"],
          "same": all(torch.equal(a, b) for a, b in zip(model.parameters(), twin.parameters())),
          "chain": list(itertools.chain([1], [2]))}
"""

FORMATTING_AND_CLASSES = """
import math
import torch
from torch import nn
torch.manual_seed(0)
class Meter:
    def __init__(self):
        self.values = []
    @staticmethod
    def label(name):
        return name.upper()
    @property
    def last(self):
        return self.values[-1]
gru = nn.GRU(3, 4, batch_first=True)
out, h = gru(torch.randn(2, 5, 3))
loss = out.pow(2).mean()
meter = Meter()
meter.values.append(loss.item())
best = max(enumerate([3, 9, 4]), key=lambda pair: pair[1])
result = ["loss {:.2f}".format(1 / 3), "{name}={value:>5.1f}".format(name="lr", value=0.5),
          "{0[1]} {1.hidden_size}".format([7, 8], gru), "{step}".format_map({"step": 3}),
          str.format("{}/{}", 1, 2), f"{math.cos(0):.1f} {loss:.0f}", Meter.label("acc"),
          meter.last == loss.item(), best]
"""

RL_AND_CONFIG = """
import torch
from torch import nn
from torch.distributions import Categorical, Normal
from dataclasses import dataclass, field
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True

@dataclass
class Config:
    lr: float = 0.01
    sizes: list = field(default_factory=lambda: [4, 2])

class Transition:
    __slots__ = ("action", "logp")
    def __init__(self, action, logp):
        self.action = action
        self.logp = logp

torch.manual_seed(0)
config = Config(lr=0.05)
policy = nn.Linear(config.sizes[0], config.sizes[1])
opt = torch.optim.SGD(policy.parameters(), lr=config.lr)
for step in range(5):
    dist = Categorical(logits=policy(torch.randn(8, 4)))
    actions = dist.sample()
    memory = [Transition(a, lp) for a, lp in zip(actions, dist.log_prob(actions))]
    loss = -sum(t.logp for t in memory) / len(memory)
    opt.zero_grad()
    loss.backward()
    opt.step()
noise = Normal(torch.zeros(3), torch.ones(3))
result = [repr(config), config == Config(0.05), len(memory), noise.sample().shape[0],
          noise.log_prob(torch.zeros(3)).shape[0], torch.backends.cudnn.benchmark,
          torch.backends.cudnn.deterministic]
"""


@pytest.mark.parametrize(
    "source,check",
    [
        (LINEAR, lambda r: r < 0.01),
        (MLP_ADAM, lambda r: r == {"accuracy_ok": True, "calls": 61, "recent": 5, "finite": True}),
        (
            LANGUAGE,
            lambda r: (
                r[:8] == [1, 4, 6, [0, 4, 16], {"a": 5, "b": 1, "c": 2}, "Box(4)", 10, 6]
                and r[8] == "'missing'"
                and r[9:] == [True, 16, 0, 2, 2.57, 20, 4, [2, 1], True, True]
            ),
        ),
        (
            AUTOGRAD,
            lambda r: (
                r == {"grad": [12.0, 27.0], "second": [24.0, 36.0], "hooks": 3, "has_graph": True}
            ),
        ),
        (
            DATA_AND_SCHEDULE,
            lambda r: r == {"batches": 16, "lr": 0.0025, "same": True, "chain": [1, 2]},
        ),
        (
            FORMATTING_AND_CLASSES,
            lambda r: (
                r == ["loss 0.33", "lr=  0.5", "8 4", "3", "1/2", "1.0 0", "ACC", True, [1, 9]]
            ),
        ),
        (
            RL_AND_CONFIG,
            lambda r: r == ["Config(lr=0.05, sizes=[4, 2])", True, 8, 3, 3, True, True],
        ),
    ],
    ids=[
        "linear",
        "mlp-adam",
        "language",
        "autograd",
        "data-and-schedule",
        "formatting-and-classes",
        "rl-and-config",
    ],
)
def test_ordinary_training_code_runs_and_returns_its_result(sandbox, source, check):
    outcome = sandbox.run(SNIPPET, {"source": source})
    assert outcome.status == "ok", (outcome.error, outcome.traceback)
    assert check(outcome.result["result"]), outcome.result


def test_torch_runs_on_one_thread(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": "import torch\nresult = torch.get_num_threads()"})
    assert outcome.result == {"result": 1}


def test_prints_come_back_as_output(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": "for i in range(3):\n    print('step', i, sep='=')"})
    assert outcome.output == "step=0\nstep=1\nstep=2\n"


def test_a_candidate_exception_shows_only_the_candidates_frames(sandbox):
    source = "import torch\n\ndef shape_bug(x):\n    return x @ x\n\nshape_bug(torch.ones(2, 3))\n"
    outcome = sandbox.run(SNIPPET, {"source": source})
    assert outcome.status == "error"
    assert (outcome.error.kind, outcome.error.line) == ("RuntimeError", 4)
    assert 'File "<snippet>", line 6' in outcome.traceback
    assert 'File "<snippet>", line 4, in shape_bug' in outcome.traceback
    assert "checkers" not in outcome.traceback and "site-packages" not in outcome.traceback


def test_syntax_error_names_its_line(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": "x = 1\nfor i in range(3)\n    pass\n"})
    assert (outcome.status, outcome.error.kind, outcome.error.line) == ("error", "SyntaxError", 2)


def test_runs_do_not_share_state(sandbox):
    """Each run starts from the worker's state, whatever the runs before it consumed or set."""
    draw = "import torch\nresult = torch.rand(1).item()"
    fresh = sandbox.run(SNIPPET, {"source": draw})
    sandbox.run(
        SNIPPET, {"source": "import torch\ntorch.manual_seed(5)\nx = torch.rand(1000)\nresult = 0"}
    )
    again = sandbox.run(SNIPPET, {"source": draw})
    assert fresh.result == again.result


@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_a_cold_run_shows_only_what_the_snippet_printed(isolation):
    """torch reads the CPU's features on its first operation; a run cannot read /proc, so the
    worker has torch do that before any run, and no message of torch's own reaches Output."""
    source = "import torch\nx = torch.ones(3, 3) @ torch.ones(3, 3)\nprint('done')\n"
    with sandbox_with_jobs(device="cpu", warm=False, isolation=isolation) as box:
        outcome = box.run(SNIPPET, {"source": source})
    assert (outcome.status, outcome.output) == ("ok", "done\n")
