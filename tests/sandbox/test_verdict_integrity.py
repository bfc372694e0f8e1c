"""A verdict comes from grill or not at all: a run cannot forge one through the result pipe, a
strange death or an oversized result, and attacks on the grader's own measurements are
graded right or not graded."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET, process_tree, worker_pid

from checkers.api import grade_source
from checkers.verdict import EXIT_FAILED, EXIT_NOT_GRADED


def test_a_verdict_written_to_the_result_pipe_by_the_run_is_thrown_away(either_sandbox):
    outcome = either_sandbox.run("probe_jobs:forge_clean_verdict", {})
    assert (outcome.status, outcome.error.kind) == ("error", "tampered")


def test_a_run_that_dies_of_a_real_time_signal_does_not_crash_grill(either_sandbox):
    outcome = either_sandbox.run("probe_jobs:realtime_signal", {})
    assert (outcome.status, outcome.error.kind) == ("error", "crash")
    assert "signal 40" in outcome.error.message


def test_a_result_nested_too_deeply_is_an_internal_error_not_a_crash(either_sandbox):
    outcome = either_sandbox.run("probe_jobs:nested_result", {"depth": 100_000})
    assert (outcome.status, outcome.error.kind) == ("error", "internal")
    after = either_sandbox.run(SNIPPET, {"source": "result = 1"})
    assert after.result == {"result": 1}


LEAK = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
"""

GRADED = [
    (
        "budget-stop-swallowed",
        LEAK + "while True:\n    try:\n"
        "        loss = model(torch.randn(8, 4)).pow(2).mean()\n        opt.zero_grad()\n"
        "        loss.backward()\n        opt.step()\n        kept.append(loss)\n"
        "    except BaseException:\n        pass\n",
        "leak",
    ),
    (
        "aliased-backward-behind-a-decoy",
        LEAK + "backward = torch.Tensor.backward\n"
        "for step in range(5):\n    pass\nfor step in range(60):\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n    backward(loss)\n"
        "    kept.append(loss)\n",
        "leak",
    ),
    (
        "autograd-backward-function",
        LEAK + "for step in range(60):\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n    torch.autograd.backward(loss)\n"
        "    kept.append(loss)\n",
        "leak",
    ),
    (
        "grad-fns-kept-without-tensors",
        LEAK + "for step in range(60):\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n    loss.backward()\n"
        "    kept.append(loss.grad_fn)\n",
        "leak",
    ),
    (
        "old-graph-backpropagated-again",
        LEAK + "for step in range(60):\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n    kept.append(loss)\n"
        "    if step % 10 == 9:\n        sum(kept).backward(retain_graph=True)\n",
        "leak",
    ),
    (
        "leak-hidden-in-a-buffer",
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 1)\n        self.register_buffer('trace', torch.zeros(1), persistent=False)\n"
        "    def forward(self, x):\n        out = self.fc(x)\n        self.trace = self.trace + out.mean()\n"
        "        return out\nmodel = Net()\nopt = torch.optim.SGD(model.parameters(), lr=0.01)\n"
        "for step in range(60):\n    loss = model(torch.randn(8, 4)).pow(2).mean()\n"
        "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n",
        "leak",
    ),
    (
        "custom-function-carries-its-graph",
        "import torch\n"
        "class Cell(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, w):\n"
        "        ctx.save_for_backward(x, w)\n        return torch.tanh(x * w)\n"
        "    @staticmethod\n    def backward(ctx, grad):\n        x, w = ctx.saved_tensors\n"
        "        t = torch.tanh(x * w)\n        return grad * (1 - t * t) * w, grad * (1 - t * t) * x\n"
        "w = torch.ones(3, requires_grad=True)\nh = torch.ones(3)\n"
        "for step in range(40):\n    h = Cell.apply(h, w)\n    w.grad = None\n"
        "    h.sum().backward(retain_graph=True)\n",
        "leak",
    ),
    (
        "clean-loop-with-private-names-and-weakref",
        "import torch\nimport torch.nn as nn\n"
        "import weakref\nclass Trainer:\n    def __init__(self):\n        self._model = nn.Linear(4, 1)\n"
        "        self._opt = torch.optim.SGD(self._model.parameters(), lr=0.01)\n"
        "        self._cache = weakref.WeakValueDictionary()\n    def _step(self, _batch):\n"
        "        loss = self._model(_batch).pow(2).mean()\n        self._opt.zero_grad()\n"
        "        loss.backward()\n        self._opt.step()\n        return loss.item()\n"
        "trainer = Trainer()\nfor step in range(40):\n    trainer._step(torch.randn(8, 4))\n",
        "clean",
    ),
]


@pytest.mark.parametrize(
    "source,expected", [(s, e) for _, s, e in GRADED], ids=[name for name, _, _ in GRADED]
)
def test_an_attack_on_the_grader_is_graded_right_or_not_at_all(
    either_sandbox, witness, source, expected
):
    baseline = process_tree(worker_pid(either_sandbox))
    verdict = grade_source(source, sandbox=either_sandbox, seconds=3)
    assert verdict.verdict == expected, (verdict.verdict, verdict.message, verdict.error)
    assert verdict.exit_code == (EXIT_FAILED if expected == "leak" else 0)
    witness.assert_untouched(verdict_outcome(verdict), either_sandbox, baseline)


def test_a_run_that_exits_early_after_leaking_is_graded_on_what_it_did(either_sandbox):
    """`sys.exit(0)` ends a script normally under `python FILE`, and so it does here: the run
    is graded on what it did up to there (a leak), never clean; another status is the
    script's error."""
    loop = LEAK + (
        "for step in range(30):\n    loss = model(torch.randn(8, 4)).pow(2).mean()\n"
        "    loss.backward()\n    kept.append(loss)\n"
    )
    verdict = grade_source(loop + "raise SystemExit(0)\n", sandbox=either_sandbox)
    assert (verdict.verdict, verdict.exit_code) == ("leak", EXIT_FAILED)
    verdict = grade_source(loop + "raise SystemExit(2)\n", sandbox=either_sandbox)
    assert (verdict.verdict, verdict.exit_code) == ("error", EXIT_NOT_GRADED)


class verdict_outcome:
    """A verdict read as the witness reads an Outcome."""

    def __init__(self, verdict):
        self.output, self.result = verdict.output, verdict.message
        self.error, self.traceback = verdict.error, verdict.extra.get("traceback", "")
