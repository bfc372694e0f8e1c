"""The capability model as a property: whatever a snippet composes out of what it may hold
(attributes of any name, calls, items, iteration, nested containers, class hierarchies,
`mro()` and `__subclasses__()`, enum's functional API, functools and operator), nothing it
ever gets hold of is a frame, a code object, a cell, a module, a module's globals, the
snippet's own namespace, `gc`, `sys`, or one of grill's own objects.

The oracle below decides what is forbidden from the objects themselves, without asking
grill's identity code; every value the generated snippet obtains is recorded and judged.
"""

from __future__ import annotations

import gc
import sys
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers import policy
from checkers.policy.standins import is_stand_in

ROOTS = [
    "torch",
    "torch.nn",
    "nn.Linear(2, 2)",
    "torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)",
    "torch.ones(2, requires_grad=True) * 2",
    "(torch.ones(2, requires_grad=True) * 2).grad_fn",
    "torch.utils.data.DataLoader([1, 2])",
    "enum.Enum('E', 'A B', module='types', qualname='SimpleNamespace')",
    "enum",
    "functools",
    "operator",
    "itertools",
    "collections",
    "contextlib.ExitStack()",
    "(lambda x: x)",
    "(i for i in range(3))",
    "ValueError('x')",
    "print",
    "type",
    "object",
    "().__class__",
    "{'a': [1, (2, {3: 4})]}",
    "os",
    "sys",
    "os.path",
    "inspect",
    "typing",
    "dataclasses",
    "weakref",
    "types",
    "logging.getLogger('x')",
    "argparse.ArgumentParser()",
    "warnings",
    "torch.nn.modules.module.register_module_forward_hook(lambda *a: None)",
    "torch.optim.optimizer.register_optimizer_step_pre_hook(lambda *a: None)",
    "torch.autograd.Function",
    "torch.autograd.graph",
]
NAMES = [
    "__class__", "__mro__", "__bases__", "__base__", "__subclasses__", "__dict__",
    "__globals__", "__closure__", "__code__", "__self__", "__func__", "__wrapped__",
    "__defaults__", "__kwdefaults__", "__builtins__", "__init__", "__getattribute__",
    "__reduce_ex__", "__objclass__", "__get__", "__module__", "__members__", "mro",
    "gi_frame", "gi_code", "f_back", "f_globals", "f_locals", "tb_frame", "tb_next",
    "__traceback__", "next_functions", "grad_fn", "apply", "hooks_dict_ref", "metadata",
    "_execution_engine", "_engine", "_forward_hooks", "_parameters", "param_groups",
    "state", "items", "values", "keys", "copy", "pop", "register_hook", "modules",
    "parameters", "environ", "argv", "stdout", "exc_info", "partial", "reduce",
    "attrgetter", "methodcaller", "chain", "getmembers", "currentframe", "stack",
    "signature", "SimpleNamespace", "FunctionType", "CodeType", "__call__", "with_traceback",
    "_write", "_call_print", "handlers", "root", "manager", "loggerDict", "filters",
]  # fmt: skip

OPS = st.one_of(
    st.tuples(st.just("attr"), st.sampled_from(NAMES)),
    st.tuples(st.just("call"), st.integers(0, 2)),
    st.tuples(st.just("item"), st.sampled_from([0, -1, 1, "'a'", "'__builtins__'", "'root'"])),
    st.tuples(st.just("iter"), st.none()),
    st.tuples(st.just("next"), st.none()),
    st.tuples(st.just("vars"), st.none()),
    st.tuples(st.just("dir"), st.none()),
    st.tuples(st.just("nest"), st.none()),
    st.tuples(st.just("attrgetter"), st.sampled_from(NAMES)),
    st.tuples(st.just("partial"), st.none()),
)

PROLOGUE = """\
import torch, enum, functools, operator, itertools, collections, contextlib, inspect
import typing, dataclasses, weakref, types, logging, argparse, warnings, os, sys
import torch.nn as nn
import torch.optim.optimizer, torch.nn.modules.module
seen = []
"""


def step(kind: str, arg: object, target: str, other: str) -> str:
    expression = {
        "attr": f"getattr({target}, {arg!r})",
        "call": f"{target}(*[{other}][:{arg}])",
        "item": f"{target}[{arg}]",
        "iter": f"list({target})",
        "next": f"next(iter({target}))",
        "vars": f"vars({target})",
        "dir": f"[getattr({target}, n, None) for n in dir({target})[:40]]",
        "nest": f"list(zip(zip(map(lambda x: x, [{target}, {other}]))))",
        "attrgetter": f"operator.attrgetter({arg!r})({target})",
        "partial": f"functools.partial({target})()",
    }[kind]
    return expression


def program(roots: list[int], ops: list[tuple[int, tuple[str, object]]]) -> str:
    lines = [PROLOGUE]
    names: list[str] = []
    for i, root in enumerate(roots):
        lines.append(
            f"try:\n    v{i} = {ROOTS[root]}\n    seen.append(v{i})\nexcept BaseException:\n    v{i} = None"
        )
        names.append(f"v{i}")
    for j, (source, (kind, arg)) in enumerate(ops):
        target = names[source % len(names)]
        other = names[(source + 1) % len(names)]
        name = f"w{j}"
        body = step(kind, arg, target, other)
        lines.append(
            f"try:\n    {name} = {body}\n    seen.append({name})\n"
            f"    for _x in {name} if isinstance({name}, (list, tuple)) else ():\n"
            "        seen.append(_x)\n"
            f"except BaseException:\n    {name} = None"
        )
        names.append(name)
    return "\n".join(lines) + "\n"


def grill_classes() -> set[type]:
    """grill's classes, but for the faces it hands snippets on purpose: module proxies and
    `print`."""
    from checkers.policy.guards import CandidatePrint
    from checkers.policy.identity import ModuleProxy

    found = set()
    for name, module in list(sys.modules.items()):
        if name == "checkers" or name.startswith("checkers."):
            for value in vars(module).values():
                if isinstance(value, type) and value.__module__ == name and not is_stand_in(value):
                    found.add(value)
    return found - {ModuleProxy, CandidatePrint}


def forbidden(
    value: object, namespace: dict, module_dicts: set[int], grill: set[type]
) -> str | None:
    """Why the snippet must never hold `value`, judged from what it is."""
    if isinstance(value, (types.FrameType, types.CodeType, types.CellType, types.ModuleType)):
        return type(value).__name__
    if value is namespace or value is sys.modules or id(value) in module_dicts:
        return "globals"
    if value is gc or value is sys:
        return "gc or sys"
    if isinstance(value, type) and value in grill:
        return f"grill's class {value.__qualname__}"
    if type(value) in grill:
        return f"an instance of grill's {type(value).__qualname__}"
    if isinstance(value, types.FunctionType) and not is_stand_in(value):
        home = value.__globals__.get("__name__", "")
        if (
            isinstance(home, str)
            and home.startswith("checkers")
            and value.__globals__ is not namespace
        ):
            return f"grill's function {value.__qualname__}"
    if isinstance(value, types.MethodType):
        return forbidden(value.__self__, namespace, module_dicts, grill)
    return None


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    roots=st.lists(st.integers(0, len(ROOTS) - 1), min_size=2, max_size=4),
    ops=st.lists(st.tuples(st.integers(0, 50), OPS), min_size=1, max_size=12),
)
def test_nothing_a_snippet_composes_from_what_it_may_hold_is_forbidden(
    roots, ops, tmp_path_factory
):
    source = program(roots, ops)
    compiled = policy.compile_candidate(source, "<fuzz>")
    namespace = policy.candidate_namespace(compiled)
    try:
        policy.run_candidate(compiled, namespace)
    except (policy.Refused, policy.CandidateError):
        pass
    finally:
        policy.finish(namespace)
    module_dicts = {
        id(m.__dict__) for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)
    }
    grill = grill_classes()
    for value in namespace.get("seen", []):
        reason = forbidden(value, namespace, module_dicts, grill)
        assert reason is None, f"the snippet got hold of {reason}: {value!r:.200}\n\n{source}"


@pytest.mark.parametrize("root", ROOTS)
def test_every_root_is_something_ordinary_code_may_hold(root):
    """The roots themselves are ordinary: each is held without a refusal."""
    source = PROLOGUE + f"value = {root}\n"
    compiled = policy.compile_candidate(source, "<root>")
    namespace = policy.candidate_namespace(compiled)
    try:
        policy.run_candidate(compiled, namespace)
    finally:
        policy.finish(namespace)
