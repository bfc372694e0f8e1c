"""The capability model as a walk: everything a snippet can reach from the open surface (every
open module and torch namespace, os and sys as the sandbox shows them, each of their names, one
level of those names' attributes, and what a class's `mro()` returns), read through the very
guards snippet code goes through, and nothing reached is a module, a frame, a code object, a
module's globals, or a function or class of a capability module (processes, the network,
native code, compilation, pickling, the interpreter itself). The closed modules are listed
here, not taken from grill's own tables."""

from __future__ import annotations

import sys
import types

import pytest

from checkers import policy
from checkers.policy import guards, identity, tables
from checkers.policy.refusal import Refused
from checkers.policy.standins import is_stand_in

CLOSED = (
    "os",
    "posix",
    "sys",
    "subprocess",
    "socket",
    "_socket",
    "ctypes",
    "_ctypes",
    "importlib",
    "threading",
    "_thread",
    "multiprocessing",
    "concurrent",
    "pickle",
    "_pickle",
    "copyreg",
    "gc",
    "marshal",
    "signal",
    "resource",
    "atexit",
    "faulthandler",
    "torch.serialization",
    "torch.multiprocessing",
    "torch.hub",
    "torch.utils.cpp_extension",
    "torch.fx",
    "torch.export",
    "torch._dynamo",
    "torch._inductor",
    "torch._logging",
    "torch.library",
    "torch._ops",
    "torch.profiler",
    "checkers",
)
OPEN_IN_CLOSED = {"torch.fx._symbolic_trace.is_fx_tracing", "torch.fx._symbolic_trace.wrap"}
"""Queries and markers ordinary model code uses, which grill offers on purpose."""
CLOSED_BUILTINS = {"exec", "eval", "compile", "breakpoint", "input", "globals", "locals"}


def home(value) -> str:
    if isinstance(value, types.FunctionType):
        return f"{value.__globals__.get('__name__', '')}.{value.__code__.co_qualname}"
    return f"{getattr(value, '__module__', None) or ''}.{getattr(value, '__qualname__', '')}"


def from_closed_module(value) -> bool:
    if is_stand_in(value):  # grill's deliberate stand-ins (open, os.getcwd, @dataclass...)
        return False
    if not isinstance(value, (types.FunctionType, type, types.BuiltinFunctionType)):
        return False
    path = home(value)
    if path.startswith("builtins.") and path.split(".")[1] in CLOSED_BUILTINS:
        return True
    if path in OPEN_IN_CLOSED:
        return False
    return any(path.startswith(closed + ".") for closed in CLOSED)


def forbidden(value) -> str | None:
    if isinstance(value, types.ModuleType):
        return "a real module"
    if isinstance(value, (types.FrameType, types.CodeType, types.CellType)):
        return "interpreter internals"
    if isinstance(value, dict) and any(value is m.__dict__ for m in list(sys.modules.values())):
        return "a module's globals"
    if from_closed_module(value):
        return "a function or class from a capability module"
    return None


def reach(obj, name):
    """`obj.name` read as snippet code reads it; None where the sandbox refuses it."""
    try:
        return guards.guarded_getattr(obj, name)
    except (Refused, AttributeError, RuntimeError, TypeError, NotImplementedError):
        return None


TORCH_NAMESPACES = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.parametrize",
    "torch.nn.utils.parametrizations",
    "torch.nn.utils.rnn",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.optim.swa_utils",
    "torch.autograd",
    "torch.autograd.graph",
    "torch.autograd.functional",
    "torch.func",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.sparse",
    "torch.distributions",
    "torch.amp",
    "torch.cuda",
    "torch.backends",
    "torch.backends.cudnn",
    "torch.utils.data",
    "torch.utils.checkpoint",
    "torch.jit",
    "torch.compiler",
    "torch.distributed",
    "torch.overrides",
)
OPEN_STDLIB = sorted(m for m in tables.OPEN_STDLIB if m != "__future__")


@pytest.fixture(scope="module")
def snippet_frame():
    """The guards look for a running snippet's frame."""
    return policy.candidate_namespace(policy.compile_candidate("x = 1"))


def surface():
    """(path, value) for every name of every open module, and one level below it."""
    for module in (*TORCH_NAMESPACES, *OPEN_STDLIB, "os", "sys", "gc", "os.path"):
        try:
            proxy = guards.import_proxy(module)
        except Refused:
            continue
        real = __import__(module, fromlist=["_"])
        for name in sorted(n for n in dir(real) if not n.startswith("_")):
            value = reach(proxy, name)
            if value is None:
                continue
            yield f"{module}.{name}", value
            if isinstance(value, identity.ModuleProxy):
                continue
            for attribute in sorted(n for n in dir(value) if not n.startswith("_"))[:200]:
                inner = reach(value, attribute)
                if inner is not None:
                    yield f"{module}.{name}.{attribute}", inner
            if isinstance(value, type):
                try:
                    yield f"{module}.{name}.mro()", guards.guarded_call(reach(value, "mro"))
                except (Refused, TypeError):
                    pass


def test_nothing_reachable_from_the_allowed_surface_is_a_door_out(snippet_frame):
    found: list[str] = []
    seen = 0

    def walk():
        nonlocal seen
        for path, value in surface():
            seen += 1
            items = value if isinstance(value, (list, tuple)) else [value]
            for item in items:
                why = forbidden(item)
                if why:
                    found.append(f"{path}: {why} ({item!r:.80})")

    snippet_frame["walk"] = walk
    exec(compile("walk()", "<snippet>", "exec"), snippet_frame)
    assert seen > 5000, "the walk must cover the open surface"
    assert found == [], "\n".join(found)
