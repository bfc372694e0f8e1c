"""Generic ways out of the policy, each inside an ordinary-looking training loop, each run with
bubblewrap, and a sample of them again without it (process mode; `isolation_modes` says which
and why): re-initialising what the snippet does not
own, real objects torch re-exports reached by any route, the grader's own state and torch's
private state.

Every attack must end refused (not graded, exit 3) or graded with the right verdict, touch no
canary, reach no listener, see no secret, leave no process, and show nothing of grill.
"""

from __future__ import annotations

import textwrap

import pytest
from isolation_modes import in_modes
from sandbox_witness import SNIPPET, process_tree, worker_pid

LOOP = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
{attack}
"""
"""Each refused attack sits at the end of a training step, indented into the loop."""

REFUSED = [
    ("proxy-reinit", "torch.__init__('os')", "'torch.__init__' is not available"),
    (
        "module-init-on-proxy",
        "nn.Module.__init__(torch)",
        "'Module.__init__(torch)' is not available",
    ),
    (
        "linear-init-on-proxy",
        "nn.Linear.__init__(torch.nn, 2, 2)",
        "'Linear.__init__(torch.nn)' is not",
    ),
    (
        "optimizer-reinit",
        "opt.__init__([torch.zeros(1, requires_grad=True)])",
        "'SGD.__init__' is not",
    ),
    ("tensor-reinit", "loss.__init__()", "'Tensor.__init__' is not available"),
    (
        "loader-init-on-torch-object",
        "from torch.utils.data import DataLoader\nDataLoader.__init__(model, [1], num_workers=4)",
        "'DataLoader.__init__(Linear)' is not available",
    ),
    (
        "super-init-on-torch-object",
        "super(nn.Linear, model).__init__()",
        "'super(Linear).__init__' is not available",
    ),
    (
        "handle-torch-function",
        "import torch.nn.functional as F\nF.handle_torch_function",
        "'torch.nn.functional.handle_torch_function' is not available",
    ),
    (
        "disable-torch-function",
        "with torch.DisableTorchFunction():\n    kept = model(torch.ones(1, 4))",
        "'torch.DisableTorchFunction' is not available",
    ),
    ("disable-subclass", "torch.DisableTorchFunctionSubclass()", "is not available"),
    (
        "private-c-module",
        "torch._C._pop_torch_function_stack()",
        "'torch._C._pop_torch_function_stack' is not available",
    ),
    ("new-autograd-engine", "torch._C._ImperativeEngine()", "'torch._C._ImperativeEngine' is not"),
    ("overrides-module", "torch.overrides.TorchFunctionMode", "'torch.overrides' is not available"),
    (
        "weakref-finalize",
        "import weakref\nweakref.finalize(model, print)",
        "'weakref.finalize' is not available",
    ),
    (
        "typing-get-type-hints",
        "import typing\ntyping.get_type_hints",
        "'typing.get_type_hints' is not",
    ),
    (
        "checkpoint-module-walk",
        "import torch.utils.checkpoint as cp\ncp.torch.os",
        "'torch.utils.checkpoint.torch' is not available",
    ),
    (
        "swa-module-walk",
        "from torch.optim import swa_utils\nswa_utils.itertools",
        "'torch.optim.swa_utils.itertools' is not available",
    ),
    ("gc-import", "import gc\ngc.get_referrers(model)", "'gc.get_referrers' is not available"),
    ("node-metadata", "loss.grad_fn.metadata['grill'] = None", "'MeanBackward0.metadata' is not"),
    ("private-of-the-print-stand-in", "print._write", "grill's own machinery"),
    (
        "monkeypatch-torch-class",
        "nn.Linear.forward = print",
        "changing a class the snippet did not define",
    ),
    (
        "format-map-reads-globals",
        "str.format_map('{f.__globals__}', {'f': print})",
        "'CandidatePrint.__globals__' is not available",
    ),
    ("storage", "torch.Tensor.untyped_storage(loss)", "'Tensor.untyped_storage' is not available"),
    ("ops-namespace", "torch.ops.aten", "'torch.ops' is not available"),
    ("library", "torch.library", "'torch.library' is not available"),
    (
        "allocator-cap",
        "torch.cuda.set_per_process_memory_fraction(0.9)",
        "'torch.cuda.set_per_process_memory_fraction' is not available",
    ),
    (
        "record-memory-history",
        "torch.cuda.memory._record_memory_history()",
        "'torch.cuda.memory._record_memory_history' is not available",
    ),
    ("reserved-grader-name", "_write_ = print", "is a name the sandbox uses for itself"),
    ("reserved-temporary-name", "_tmp0 = 1", "is a name the sandbox uses for itself"),
]

HELD = [
    ("private-c-query", "torch._C._get_tracing_state()", "ok"),
    (
        "private-foreach-op",
        "with torch.no_grad():\n    torch._foreach_mul_(list(model.parameters()), 1.0)",
        "ok",
    ),
    ("functools-wraps-reexport", "from torch.optim import lr_scheduler\nlr_scheduler.wraps", "ok"),
    ("from-import-reexport", "from torch.optim.lr_scheduler import wraps", "ok"),
    (
        "mro-hands-out-the-real-loader",
        "from torch.utils.data import DataLoader\nDataLoader.mro()",
        "ok",
    ),
    (
        "partial-of-the-real-loader",
        "import functools\nfrom torch.utils.data import DataLoader\nfunctools.partial(*DataLoader.mro()[1:2])([1], num_workers=4)",
        "ok",
    ),
    ("json-dump-to-a-file", "import json\njson.dump", "ok"),
    ("contextlib-redirect", "import contextlib\ncontextlib.redirect_stdout", "ok"),
    ("types-function-type", "import types\ntypes.FunctionType", "ok"),
    ("operator-attrgetter", "import operator\noperator.attrgetter('__class__')(1)", "ok"),
    ("logging-import", "import logging", "ok"),
    ("node-saved-tensors", "(loss * loss).grad_fn._saved_self", "ok"),
    ("module-private-table", "model._parameters.clear()", "error"),
    ("module-hook-table", "model._forward_hooks", "ok"),
    ("optimizer-private", "opt._optimizer_step_pre_hooks", "ok"),
    (
        "override-loader-iterator",
        "from torch.utils.data import DataLoader\nclass Loader(DataLoader):\n    def _get_iterator(self):\n        return iter([])",
        "ok",
    ),
    (
        "override-call-impl",
        "class Net(nn.Module):\n    def _call_impl(self, *args):\n        return 0",
        "ok",
    ),
    ("shadow-module-table", "class Net(nn.Module):\n    _parameters = {}", "ok"),
    ("format-reads-a-dunder", "'{0.__class__}'.format(1)", "ok"),
    ("format-reads-torch-private", "'{0._parameters}'.format(model)", "ok"),
    ("real-module-from-a-call", "torch.get_device_module('cpu')", "ok"),
]
"""Code that once read as an attack and is ordinary now (or reaches nothing): it runs,
or fails as it would under plain Python (`status`), and changes nothing."""


def in_loop(attack: str) -> str:
    return LOOP.format(attack=textwrap.indent(attack, "    "))


@pytest.mark.parametrize(
    "either_sandbox,attack,fragment", in_modes(REFUSED), indirect=["either_sandbox"]
)
def test_an_attack_in_a_training_loop_is_refused_and_changes_nothing(
    either_sandbox, witness, attack, fragment
):
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(in_loop(attack))})
    assert outcome.status == "refused", (outcome.error, outcome.output)
    assert fragment in outcome.error.message
    witness.assert_untouched(outcome, either_sandbox, baseline)
    assert_nothing_of_grill(outcome)


@pytest.mark.parametrize(
    "either_sandbox,attack,status", in_modes(HELD), indirect=["either_sandbox"]
)
def test_code_in_a_training_loop_that_reaches_nothing_runs_and_changes_nothing(
    either_sandbox, witness, attack, status
):
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(in_loop(attack))})
    assert outcome.status == status, (outcome.error, outcome.output)
    witness.assert_untouched(outcome, either_sandbox, baseline)
    assert_nothing_of_grill(outcome)


def assert_nothing_of_grill(outcome) -> None:
    shown = f"{outcome.output} {outcome.error} {outcome.traceback} {outcome.result}"
    for mark in ("checkers", "ModuleProxy", "PrintSink", "site-packages", "grill/"):
        assert mark not in shown, f"{mark!r} shows in what the run gave back: {shown[:400]}"


SHOWN = [
    ("format-a-proxy", "result = format(torch, '>40')"),
    ("repr-a-proxy", "result = repr(torch.nn)"),
    ("print-print", "print(print)\nresult = str(print)"),
    ("format-print", "result = f'{print!r:>30}'"),
    (
        "format-error-on-a-proxy",
        "try:\n    format(torch, 'x')\nexcept Exception as e:\n    result = str(e)",
    ),
    (
        "error-in-a-backward-hook",
        "x = torch.ones(2, requires_grad=True)\n"
        "x.register_hook(lambda g: 1 / 0)\n(x * 2).sum().backward()",
    ),
    ("warning", "import warnings\nwarnings.warn('careful')\nresult = 1"),
    (
        "exception-in-a-weakref-callback",
        "import weakref\nclass Box:\n    pass\n"
        "box = Box()\nref = weakref.ref(box, lambda r: 1 / 0)\ndel box\nresult = 1",
    ),
    (
        "exception-while-a-generator-closes",
        "def gen():\n    try:\n        yield 1\n    finally:\n        raise ValueError('in close')\n"
        "g = gen()\nnext(g)\ndel g\nresult = 1",
    ),
    ("refusing-stub-repr", "result = repr(open) + repr(input)"),
]


@pytest.mark.parametrize("source", [s for _, s in SHOWN], ids=[n for n, _ in SHOWN])
def test_nothing_of_grill_shows_in_what_a_run_prints_raises_or_returns(either_sandbox, source):
    outcome = either_sandbox.run(SNIPPET, {"source": "import torch\n" + source})
    assert outcome.status in ("ok", "error"), outcome.error
    assert_nothing_of_grill(outcome)
