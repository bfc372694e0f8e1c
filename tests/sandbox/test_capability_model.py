"""The capability model as a property: walk everything a snippet can reach from the allowed
surface (every allowed module, each of its names, one level of their attributes, and what a
class's `mro()` returns) through the very guards snippet code goes through, and assert that
nothing reached is a module, a file object, a frame, a code object, or a function or class from
a closed module. The closed modules are listed here, not taken from grill's own tables."""

from __future__ import annotations

import io
import types

import pytest

from checkers import policy
from checkers.policy import guards, identity, tables
from checkers.policy.refusal import CANDIDATE_CLASSES, CANDIDATE_MARK, PRIVATE_NAMES, Refused
from checkers.policy.standins import is_stand_in

CLOSED = (
    "os",
    "sys",
    "io",
    "_io",
    "subprocess",
    "socket",
    "ctypes",
    "_ctypes",
    "importlib",
    "inspect",
    "logging",
    "threading",
    "_thread",
    "multiprocessing",
    "pickle",
    "_pickle",
    "gc",
    "marshal",
    "shutil",
    "tempfile",
    "pathlib",
    "posix",
    "signal",
    "resource",
    "torch.jit",
    "torch._dynamo",
    "torch._inductor",
    "torch.serialization",
    "torch.overrides",
    "torch.multiprocessing",
    "torch.distributed",
    "torch.hub",
    "torch.utils.cpp_extension",
    "torch.utils.data.dataloader",
    "torch.fx",
    "torch.export",
    "torch._logging",
    "torch.library",
    "torch._ops",
    "checkers",
)
CLOSED_BUILTINS = {
    "open",
    "exec",
    "eval",
    "compile",
    "__import__",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "breakpoint",
    "input",
}


def from_closed_module(value) -> bool:
    if is_stand_in(value):  # grill's deliberate stand-ins (the policed str.format, @dataclass)
        return False
    if isinstance(value, types.FunctionType):
        module = value.__globals__.get("__name__", "")
    elif isinstance(value, (type, types.BuiltinFunctionType)):
        module = getattr(value, "__module__", None) or ""
        if module == "builtins" and getattr(value, "__name__", "") in CLOSED_BUILTINS:
            return True
    else:
        return False
    return any(module == closed or module.startswith(closed + ".") for closed in CLOSED)


def forbidden(value) -> str | None:
    if isinstance(value, types.ModuleType):
        return "a real module"
    if isinstance(value, io.IOBase):
        return "a file object"
    if isinstance(value, (types.FrameType, types.CodeType, types.TracebackType)):
        return "interpreter internals"
    if from_closed_module(value):
        return "a function or class from a closed module"
    return None


def reach(obj, name):
    """`obj.name` read as snippet code reads it; None where the sandbox refuses it."""
    try:
        return guards.guarded_getattr(obj, name)
    except (Refused, AttributeError, RuntimeError, TypeError, NotImplementedError):
        return None


@pytest.fixture(scope="module")
def snippet_frame():
    """The guards look for a running snippet's frame (its classes, its private names)."""
    namespace = policy.candidate_namespace(policy.compile_candidate("x = 1"))
    return {
        CANDIDATE_MARK: True,
        CANDIDATE_CLASSES: namespace[CANDIDATE_CLASSES],
        PRIVATE_NAMES: frozenset(),
    }


def surface():
    """(path, value) for every name of every allowed module, and one level below it."""
    for module in sorted(tables.ALLOWED_MODULES):
        if tables.denial_reason(module):
            continue
        proxy = identity.import_proxy(module)
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
                    yield f"{module}.{name}.mro()", guards.guarded_call(value.mro)
                except Refused:
                    pass


def test_nothing_reachable_from_the_allowed_surface_is_a_door_out(snippet_frame):
    exec_globals = dict(snippet_frame)
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

    exec(compile("walk()", "<snippet>", "exec"), {**exec_globals, "walk": walk})
    assert seen > 3000, "the walk must cover the allowed surface"
    assert found == [], "\n".join(found)
