"""The escape suite, round two: the generic doors of issue 11 and more, each inside an
ordinary-looking training loop, each run with bubblewrap and again without it (process mode).

Every attack must end refused (not graded, exit 3) or graded with the right verdict, touch no
canary, reach no listener, see no secret, leave no process, and show nothing of grill.
"""

from __future__ import annotations

import os
import socket
import textwrap

import pytest
from sandbox_witness import SNIPPET, process_tree

from checkers.api import grade_source
from checkers.verdict import EXIT_FAILED, EXIT_NOT_GRADED

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
    # 1. re-initialising what the snippet does not own
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
    # 2. real objects torch re-exports, reached by any route
    (
        "functools-wraps-reexport",
        "from torch.optim import lr_scheduler\nlr_scheduler.wraps",
        "'functools.wraps' is not available",
    ),
    (
        "from-import-reexport",
        "from torch.optim.lr_scheduler import wraps",
        "'functools.wraps' is not available",
    ),
    (
        "handle-torch-function",
        "import torch.nn.functional as F\nF.handle_torch_function",
        "'torch.overrides.handle_torch_function' is not available",
    ),
    (
        "mro-hands-out-the-real-loader",
        "from torch.utils.data import DataLoader\nDataLoader.mro()",
        "'torch.utils.data.dataloader.DataLoader' is not available",
    ),
    (
        "partial-of-the-real-loader",
        "import functools\nfrom torch.utils.data import DataLoader\n"
        "functools.partial(*DataLoader.mro()[1:2])([1], num_workers=4)",
        "'torch.utils.data.dataloader.DataLoader' is not available",
    ),
    (
        "disable-torch-function",
        "with torch.DisableTorchFunction():\n    kept = model(torch.ones(1, 4))",
        "'torch._C.DisableTorchFunction' is not available",
    ),
    ("disable-subclass", "torch.DisableTorchFunctionSubclass()", "is not available"),
    ("private-c-module", "torch._C._get_tracing_state()", "'torch._C' is not available"),
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
    ("json-dump-to-a-file", "import json\njson.dump", "'json.dump' is not available"),
    (
        "contextlib-redirect",
        "import contextlib\ncontextlib.redirect_stdout",
        "'contextlib.redirect_stdout' is not available",
    ),
    ("types-function-type", "import types\ntypes.FunctionType", "'types.FunctionType' is not"),
    (
        "operator-attrgetter",
        "import operator\noperator.attrgetter('__class__')(1)",
        "'operator.attrgetter' is not available",
    ),
    ("logging-import", "import logging", "'logging' is not available in the sandbox (its handlers"),
    ("gc-import", "import gc", "'gc' is not available in the sandbox (reaches every object"),
    # 3. the grader's own state and torch's private state
    ("node-metadata", "loss.grad_fn.metadata['grill'] = None", "'MeanBackward0.metadata' is not"),
    ("node-saved-tensors", "loss.grad_fn._saved_self", "'MeanBackward0._saved_self' is not"),
    ("module-private-table", "model._parameters.clear()", "'Linear._parameters' is not available"),
    ("module-hook-table", "model._forward_hooks", "'Linear._forward_hooks' is not available"),
    (
        "optimizer-private",
        "opt._optimizer_step_pre_hooks",
        "'SGD._optimizer_step_pre_hooks' is not",
    ),
    (
        "override-loader-iterator",
        "from torch.utils.data import DataLoader\nclass Loader(DataLoader):\n"
        "    def _get_iterator(self):\n        return iter([])",
        "'Loader._get_iterator (overriding a private name of its base)' is not available",
    ),
    (
        "override-call-impl",
        "class Net(nn.Module):\n    def _call_impl(self, *args):\n        return 0",
        "'Net._call_impl (overriding a private name of its base)' is not available",
    ),
    (
        "shadow-module-table",
        "class Net(nn.Module):\n    _parameters = {}",
        "'Net._parameters (overriding a private name of its base)' is not available",
    ),
    ("private-of-the-print-stand-in", "print._write", "'CandidatePrint._write' is not available"),
    (
        "monkeypatch-torch-class",
        "nn.Linear.forward = print",
        "'Linear attributes' is not available",
    ),
    ("format-reads-a-dunder", "'{0.__class__}'.format(1)", "'int.__class__' is not available"),
    (
        "format-reads-torch-private",
        "'{0._parameters}'.format(model)",
        "'Linear._parameters' is not available",
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
        "'torch.cuda.memory.set_per_process_memory_fraction' is not available",
    ),
    (
        "record-memory-history",
        "torch.cuda.memory._record_memory_history()",
        "'torch.cuda.memory' is not available",
    ),
    ("real-module-from-a-call", "torch.get_device_module('cpu')", "'torch.cpu' is not available"),
    (
        "reserved-grader-name",
        "_write_private_ = print",
        '"_write_private_" is an invalid variable name',
    ),
    ("reserved-temporary-name", "_tmp0 = 1", '"_tmp0" is an invalid variable name'),
]


def in_loop(attack: str) -> str:
    return LOOP.format(attack=textwrap.indent(attack, "    "))


@pytest.mark.parametrize(
    "attack,fragment", [(a, f) for _, a, f in REFUSED], ids=[name for name, _, _ in REFUSED]
)
def test_an_attack_in_a_training_loop_is_refused_and_changes_nothing(
    either_sandbox, witness, attack, fragment
):
    baseline = process_tree(either_sandbox.worker_pid)
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(in_loop(attack))})
    assert outcome.status == "refused", (outcome.error, outcome.output)
    assert fragment in outcome.error.message
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


# -- isolation, with jobs that act as a snippet would after getting past the policy ---------


def test_the_box_has_a_host_name_of_its_own(sandbox):
    outcome = sandbox.run("probe_jobs:host_name", {})
    assert outcome.result == {"host": "grill"}
    assert socket.gethostname() != "grill"


def test_a_run_that_writes_past_its_scratch_cap_is_stopped(either_sandbox, witness):
    baseline = process_tree(either_sandbox.worker_pid)
    files = either_sandbox.limits.scratch_bytes // (1024 * 1024) + 16
    outcome = either_sandbox.run("probe_jobs:fill_scratch", {"files": files, "pause": 0.01})
    stopped = (outcome.status == "limit" and outcome.error.kind == "disk") or (
        outcome.status == "ok" and outcome.result["written"] < files
    )  # the tmpfs is full
    assert stopped, (outcome.status, outcome.error, outcome.result)
    witness.assert_untouched(outcome, either_sandbox, baseline)


@pytest.fixture
def host_file(tmp_path):
    path = tmp_path / "host-file"
    path.write_text("mine")
    os.chmod(path, 0o644)
    before = os.stat(path)
    yield path
    after = os.stat(path)
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (
        before.st_mode,
        before.st_uid,
        before.st_mtime_ns,
    )
    with pytest.raises(OSError):
        os.getxattr(path, b"user.grill")


def test_a_host_files_mode_owner_times_and_attributes_are_out_of_reach(either_sandbox, host_file):
    outcome = either_sandbox.run("probe_jobs:change_host_file", {"path": str(host_file)})
    assert outcome.status == "ok"
    assert all(result is not True for result in outcome.result["changed"].values()), outcome.result


def test_the_kernel_log_is_out_of_reach(either_sandbox):
    outcome = either_sandbox.run("probe_jobs:read_kernel_log", {})
    assert outcome.result["klogctl"] < 0
    assert outcome.result["kmsg"] != "read"


def test_no_udp_datagram_leaves_the_run(either_sandbox):
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.3)
    outcome = either_sandbox.run("probe_jobs:send_udp", {"port": listener.getsockname()[1]})
    assert outcome.result["sent"] is False
    with pytest.raises(socket.timeout):
        listener.recvfrom(64)


def test_no_named_unix_socket_is_reached(either_sandbox, tmp_path):
    path = tmp_path / "listener.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o777)
    listener.listen(1)
    listener.settimeout(0.3)
    outcome = either_sandbox.run("probe_jobs:connect_unix", {"path": str(path)})
    assert outcome.result["connected"] is False
    with pytest.raises(socket.timeout):
        listener.accept()


# -- the verdict comes from grill or not at all ---------------------------------------------


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
    baseline = process_tree(either_sandbox.worker_pid)
    verdict = grade_source(source, sandbox=either_sandbox, seconds=3)
    assert verdict.verdict == expected, (verdict.verdict, verdict.message, verdict.error)
    assert verdict.exit_code == (EXIT_FAILED if expected == "leak" else 0)
    witness.assert_untouched(verdict_outcome(verdict), either_sandbox, baseline)


def test_a_run_that_exits_early_after_leaking_is_never_clean(either_sandbox):
    source = LEAK + (
        "for step in range(30):\n    loss = model(torch.randn(8, 4)).pow(2).mean()\n"
        "    loss.backward()\n    kept.append(loss)\nraise SystemExit(0)\n"
    )
    verdict = grade_source(source, sandbox=either_sandbox)
    assert (verdict.verdict, verdict.exit_code) == ("error", EXIT_NOT_GRADED)


class verdict_outcome:
    """A verdict read as the witness reads an Outcome."""

    def __init__(self, verdict):
        self.output, self.result = verdict.output, verdict.message
        self.error, self.traceback = verdict.error, verdict.extra.get("traceback", "")
