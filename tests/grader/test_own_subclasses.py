"""The candidate's own subclasses of torch's classes are the candidate's code, graded as such:
an optimizer with its own `step()` (with or without `@torch.no_grad()`), a module, an autograd
Function, a Dataset and an LR scheduler with their own methods and loops are measured, and an
optimizer's steps count as updates. Only what really switches off or replaces grill's
instrumentation is tampering (`docs/sandbox.md`, "What counts as tampering"); the other side of
that line is `test_ledger.py`'s `..._is_seen` tests and `tests/sandbox/test_verdict_integrity.py`.
"""

import textwrap

import pytest

from checkers.api import grade_source, shared_sandbox
from checkers.sandbox import Sandbox

MOMENTUM_SGD = """\
import torch
import torch.nn as nn


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    {decorator}
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(p)
                buf = state["buf"]
                buf.mul_(group["momentum"]).add_(p.grad)
                p.data.add_(buf, alpha=-group["lr"])


model = nn.Linear(10, 1)
opt = MomentumSGD(model.parameters())
kept = []
for step in range(60):
    loss = model(torch.randn(8, 10)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    {leak}
"""

MUON = """\
import torch
import torch.nn as nn


def zeropower_via_newtonschulz5(G, steps=5):
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G / (G.norm() + 1e-7)
    if G.size(0) > G.size(1):
        X = X.T
    for _ in range(steps):
        A = X @ X.T
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(0) > G.size(1):
        X = X.T
    return X


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=0.02, momentum=0.95, nesterov=True):
        super().__init__(params, dict(lr=lr, momentum=momentum, nesterov=nesterov))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                g = p.grad
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(g)
                buf = state["momentum_buffer"]
                buf.lerp_(g, 1 - group["momentum"])
                g = g.lerp_(buf, group["momentum"]) if group["nesterov"] else buf
                g = zeropower_via_newtonschulz5(g)
                p.add_(g, alpha=-group["lr"] * max(1, p.size(0) / p.size(1)) ** 0.5)


model = nn.Sequential(nn.Linear(16, 32, bias=False), nn.ReLU(), nn.Linear(32, 4, bias=False))
opt = Muon(model.parameters())
for step in range(40):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    loss.backward()
    opt.step()
    model.zero_grad(set_to_none=True)
"""

OWN_CLASSES = """\
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, n):
        self.rows = [torch.randn(6) for _ in range(n)]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        x = self.rows[i]
        for _ in range(2):
            x = x * 1.0
        return x, x.pow(2).sum(0, keepdim=True)


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        for _ in range(2):
            x = x * 1.0
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        for _ in range(2):
            grad = grad * 1.0
        return grad * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
        self.head = nn.Linear(6, 1)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(Scale.apply(x))


class WarmupCosine(torch.optim.lr_scheduler.LRScheduler):
    def __init__(self, optimizer, warmup, total):
        self.warmup, self.total = warmup, total
        super().__init__(optimizer)

    def get_lr(self):
        step = self.last_epoch
        if step < self.warmup:
            scale = (step + 1) / self.warmup
        else:
            scale = 0.5 * (1 + math.cos(math.pi * step / self.total))
        return [base * scale for base in self.base_lrs]


model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = WarmupCosine(opt, warmup=5, total=60)
loader = DataLoader(Squares(64), batch_size=4, shuffle=True)
for epoch in range(3):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
"""


@pytest.fixture
def sandbox() -> Sandbox:
    return shared_sandbox("cpu")


def grade(source: str, sandbox: Sandbox):
    return grade_source(textwrap.dedent(source), sandbox=sandbox, seconds=60)


@pytest.mark.parametrize("decorator", ["@torch.no_grad()", ""], ids=["no_grad", "bare"])
def test_an_optimizer_with_its_own_step_is_measured_and_its_steps_are_updates(decorator, sandbox):
    verdict = grade(MOMENTUM_SGD.format(decorator=decorator, leak="pass"), sandbox)
    assert verdict.verdict == "clean", verdict.message or verdict.error
    assert "60 optimizer steps" in verdict.coverage


def test_a_leak_beside_an_own_optimizer_is_found_and_named(sandbox):
    verdict = grade(
        MOMENTUM_SGD.format(decorator="@torch.no_grad()", leak="kept.append(loss)"), sandbox
    )
    assert verdict.verdict == "leak", verdict.message or verdict.error
    assert "kept" in verdict.message


def test_muon_from_modded_nanogpt_is_measured(sandbox):
    verdict = grade(MUON, sandbox)
    assert verdict.verdict == "clean", verdict.message or verdict.error


def test_own_dataset_function_module_and_scheduler_are_measured(sandbox):
    verdict = grade(OWN_CLASSES, sandbox)
    assert verdict.verdict == "clean", verdict.message or verdict.error
    assert verdict.error is None


LOOKAHEAD = """\
import torch
import torch.nn as nn


class Lookahead(torch.optim.Optimizer):
    \"\"\"Wraps another optimizer and calls its step() from its own, as ZeroRedundancyOptimizer
    does with its local optimizer.\"\"\"

    def __init__(self, base_optimizer, k=5, alpha=0.5):
        self.base_optimizer = base_optimizer
        self.k, self.alpha, self.counter = k, alpha, 0
        super().__init__(base_optimizer.param_groups, base_optimizer.defaults)
        self.slow = [p.detach().clone() for g in self.param_groups for p in g["params"]]

    @torch.no_grad()
    def step(self, closure=None):
        loss = self.base_optimizer.step()
        self.counter += 1
        if self.counter % self.k == 0:
            fast = [p for g in self.param_groups for p in g["params"]]
            for slow, p in zip(self.slow, fast):
                slow.add_(p - slow, alpha=self.alpha)
                p.copy_(slow)
        return loss


model = nn.Linear(10, 1)
opt = Lookahead(torch.optim.SGD(model.parameters(), lr=0.01))
kept = []
for step in range(40):
    loss = model(torch.randn(8, 10)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss)
"""


def test_an_optimizer_stepping_an_inner_one_makes_one_update_per_step(sandbox):
    """Lookahead, ZeroRedundancyOptimizer: the outer step() runs the inner optimizer's, and
    the two are one update: a store made once per step is "added every step"."""
    verdict = grade(LOOKAHEAD, sandbox)
    assert verdict.verdict == "leak", verdict.message or verdict.error
    assert "40 optimizer steps" in verdict.coverage, verdict.coverage
    assert "every 2 steps" not in verdict.message, verdict.message
