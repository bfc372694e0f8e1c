"""The worker's `torch._dynamo` stand-in: training never imports the compiler, and anything
else asked of the stand-in gets the real module, loaded once."""

from __future__ import annotations

import subprocess
import sys

from pace import bound


def test_a_worker_trains_with_every_optimizer_without_importing_the_compiler(sandbox):
    outcome = sandbox.run("probe_jobs:compiler_loaded", {})
    assert outcome.result == {"dynamo": "EagerDynamo", "sympy": False}, outcome


def test_a_run_that_needs_the_compiler_loads_it_inside_the_isolation(either_sandbox):
    """The real module is read from torch's own files, which every layer lets a run read."""
    outcome = either_sandbox.run("probe_jobs:compiler_on_demand", {})
    assert outcome.result == {"found": True, "dynamo": "module"}, outcome


# One interpreter, as in the worker: torch imported and the stand-in installed once, then each
# way of asking for more tried in a forked child of its own (the swap to the real module is
# one-way), then `install` once the real module is loaded.
SCRIPT = """
import os, sys, traceback, warnings
warnings.simplefilter("error", ImportWarning)
import torch
from checkers.sandbox import eager_dynamo
eager_dynamo.install(torch)
from torch.utils.checkpoint import checkpoint
model = torch.nn.Linear(2, 1)
opt = torch.optim.Adam(model.parameters())
checkpoint(model, torch.randn(3, 2), use_reentrant=False).sum().backward()  # reads the settings
opt.step()
for module in list(sys.modules.values()):  # as inspect.getmodule does for a warning's frame
    getattr(module, "__file__", None)
assert eager_dynamo.installed() and "sympy" not in sys.modules, "training loaded the compiler"
settings = torch._dynamo.config

def attribute():
    torch._dynamo.config.cache_size_limit

def submodule():
    import torch._dynamo.utils

def name_from_it():
    from torch._dynamo import eval_frame

for ask in (attribute, submodule, name_from_it):
    pid = os.fork()
    if pid == 0:
        try:
            ask()
            import torch._dynamo.utils as utils
            assert not eager_dynamo.installed()
            assert torch._dynamo is sys.modules["torch._dynamo"]
            assert hasattr(torch._dynamo, "optimize"), "not the real module"
            assert utils is sys.modules["torch._dynamo.utils"] is torch._dynamo.utils
            assert torch._dynamo.eval_frame.utils is utils, "a module of the compiler ran twice"
            assert utils.__spec__.origin == utils.__file__, "its spec is not its own"
            assert torch._dynamo.config is settings, "the settings were loaded twice"
            opt.step()
        except BaseException:
            print(ask.__name__, traceback.format_exc(), file=sys.stderr)
            os._exit(1)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0, ask.__name__

real = eager_dynamo.load_real()
eager_dynamo.install(torch)
assert torch._dynamo is real and not eager_dynamo.installed(), "install replaced the real one"
"""


def test_anything_else_asked_loads_the_real_module_in_its_place_and_only_once():
    # torch imported, then the compiler loaded four times (each in a forked child but the last)
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=bound(15)
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
