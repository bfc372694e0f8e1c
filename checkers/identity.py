"""The capability model, decided by what an object is, not by the name it was reached under.

Everything a snippet can hold is one of three things:
- a *value*: numbers, strings, containers, tensors, dtypes, devices...;
- the snippet's *own*: the classes and functions it defined, and their instances;
- a *capability* from an open home: a function, class or object whose home (the module it
  was defined in, and its name there) is open: torch's tree minus its closed families, and the
  standard-library modules training code needs, each with the names it offers.
Modules travel only as grill's proxies. Every object that reaches snippet code from outside it
(an attribute read, a call's result, an item, an iteration) passes `admit`, and every callee
passes `callable_admitted`, so an object from a closed home is refused wherever it comes from:
a torch re-export of `functools.wraps`, a `logging.Logger`, the class behind a stand-in that
`mro()` hands back, a file object.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from fnmatch import fnmatchcase

import torch

from checkers import capabilities
from checkers.facades import is_stand_in
from checkers.refusal import CANDIDATE_MARK, candidate_classes, not_available

BUILTIN_TYPES = frozenset(
    {
        "object",
        "int",
        "float",
        "complex",
        "bool",
        "str",
        "bytes",
        "list",
        "tuple",
        "dict",
        "set",
        "frozenset",
        "range",
        "slice",
        "enumerate",
        "zip",
        "map",
        "filter",
        "reversed",
        "super",
        "property",
        "staticmethod",
        "classmethod",
        "NoneType",
        "ellipsis",
        "NotImplementedType",
        "generator",
        "list_iterator",
        "list_reverseiterator",
        "tuple_iterator",
        "range_iterator",
        "set_iterator",
        "str_ascii_iterator",
        "str_iterator",
        "dict_keyiterator",
        "dict_valueiterator",
        "dict_itemiterator",
        "dict_reversekeyiterator",
        "dict_keys",
        "dict_values",
        "dict_items",
        "callable_iterator",
        "bytes_iterator",
        "longrange_iterator",
        "method",
        "function",
        "builtin_function_or_method",
        "method-wrapper",
        "cell",
        "odict_keys",
        "odict_values",
        "odict_items",
        "odict_iterator",
        "dict_reverseitemiterator",
        "dict_reversevalueiterator",
        "set_reverseiterator",
        "bytearray_iterator",
        "bytearray",
    }
)
"""Builtin types whose instances a snippet may hold (values, iterators, its own functions)."""

_FAST = {
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    type(None),
    list,
    tuple,
    dict,
    set,
    frozenset,
    range,
    slice,
    torch.Tensor,
    torch.nn.Parameter,
    torch.Size,
    torch.dtype,
    torch.device,
    capabilities.ModuleProxy,
}


def admit(value: object, depth: int = 2) -> object:
    """`value`, if a snippet may hold it (see the module docstring); else a refusal. Containers
    a call returns are looked into, `depth` levels down, so `mro()` cannot hand out a class."""
    kind = type(value)
    if kind in _FAST:
        # (exact-type tests, the fast path of every guard: the checker cannot narrow on them)
        if depth and kind in (list, tuple, set, frozenset) and len(value) <= 4096:  # type: ignore[arg-type]
            for item in value:  # type: ignore[attr-defined]
                if type(item) not in _FAST:
                    admit(item, depth - 1)
        elif depth and kind is dict and len(value) <= 4096:  # type: ignore[arg-type]
            for item in value.values():  # type: ignore[attr-defined]
                if type(item) not in _FAST:
                    admit(item, depth - 1)
        return value
    if isinstance(value, types.ModuleType):  # torch.get_device_module(): only as its proxy
        if value.__name__ in capabilities.ALLOWED_MODULES and not capabilities.denial_reason(
            value.__name__
        ):
            return capabilities.ModuleProxy(value.__name__)
        raise not_available(value.__name__)
    reason = closed_reason(value)
    if reason is not None:
        raise not_available(describe(value), reason)
    return value


def callable_admitted(func: Callable[..., object]) -> Callable[..., object]:
    """A callee, if a snippet may call it."""
    if type(func) in _FAST:
        return func
    reason = closed_reason(func)
    if reason is not None:
        raise not_available(f"{describe(func)}()", reason)
    return func


def open_type(kind: type) -> None:
    """Let instances of one of grill's stand-in types through (the snippet's `print`)."""
    _FAST.add(kind)


def closed_reason(value: object) -> str | None:
    """Why a snippet may not hold `value`, or None when it may."""
    if type(value) in _FAST or is_stand_in(value) or _own(value):
        return None
    if isinstance(value, types.ModuleType):
        return "a module is only offered through its allowed name"
    if isinstance(value, (types.FrameType, types.CodeType, types.TracebackType)):
        return "interpreter internals"
    if isinstance(value, type):
        return home_reason(value.__module__, value.__qualname__)
    if isinstance(value, types.FunctionType):
        # Where its code really runs: `functools.wraps` copies a wrapped function's
        # `__module__` and `__qualname__` onto a decorator's wrapper (torch.no_grad does).
        return home_reason(value.__globals__.get("__name__"), value.__code__.co_qualname)
    if isinstance(value, types.MethodType):
        return closed_reason(value.__func__) or closed_reason(value.__self__)
    if isinstance(value, types.BuiltinFunctionType):  # builtin functions and bound C methods
        owner = value.__self__
        if owner is None or isinstance(owner, types.ModuleType):
            module = value.__module__ or getattr(owner, "__name__", None) or "builtins"
            return home_reason(module, value.__qualname__)
        if value.__name__ in capabilities.DENIED_ATTRIBUTES:
            return capabilities.DENIED_ATTRIBUTES[value.__name__]
        return closed_reason(owner)
    if isinstance(
        value,
        (
            types.MethodWrapperType,
            types.WrapperDescriptorType,
            types.MethodDescriptorType,
            types.ClassMethodDescriptorType,
            types.GetSetDescriptorType,
            types.MemberDescriptorType,
        ),
    ):
        owner = getattr(value, "__objclass__", None) or type(getattr(value, "__self__", None))
        if value.__name__ in capabilities.DENIED_ATTRIBUTES:
            return capabilities.DENIED_ATTRIBUTES[value.__name__]
        return closed_reason(owner)
    if isinstance(value, functools.partial):
        return closed_reason(value.func)
    if isinstance(value, torch.autograd.graph.Node):  # C++ node types call themselves builtins
        return None
    kind = type(value)
    return home_reason(kind.__module__, kind.__qualname__)


def _own(value: object) -> bool:
    """The snippet's own: a class it defined, an instance of one, a function it defined."""
    classes = candidate_classes()
    if isinstance(value, type):
        return value in classes
    if type(value) in classes:
        return True
    if isinstance(value, types.FunctionType):
        return bool(value.__globals__.get(CANDIDATE_MARK))
    return False


@functools.lru_cache(maxsize=4096)
def home_reason(module: str | None, qualname: str) -> str | None:
    """Why the home `module.qualname` is closed, or None when it is open."""
    module = module or "builtins"
    if module == "builtins":
        top = qualname.split(".", 1)[0]
        if top in BUILTIN_TYPES or top in _builtin_names() or _is_exception(top):
            return None
        return "a builtin the sandbox does not offer"
    path = f"{module}.{qualname}"
    if module == "torch" or module.startswith("torch."):
        for patterns, reason in capabilities.CLOSED_TORCH_HOMES:
            if any(fnmatchcase(path, pattern) for pattern in patterns):
                return reason
        denied = capabilities.denial_reason(path)
        return denied
    if module in capabilities.STDLIB_HOMES:
        names = capabilities.STDLIB_HOMES[module]
        top = qualname.split(".", 1)[0]
        if path not in capabilities.CLOSED_STDLIB_NAMES and (
            names is ...
            or names is None
            and not top.startswith("_")
            or isinstance(names, frozenset)
            and top in names
        ):
            return None
        return f"the sandbox offers only some of {module}, not this"
    return f"from {module}, a module the sandbox does not offer"


@functools.cache
def _builtin_names() -> frozenset[str]:
    from checkers.policy import CANDIDATE_BUILTINS

    return frozenset(CANDIDATE_BUILTINS)


def _is_exception(name: str) -> bool:
    import builtins

    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def describe(value: object) -> str:
    """How a refusal names an object: `logging.Logger`, `functools.wraps`, `FileIO.write`."""
    if isinstance(value, capabilities.ModuleProxy):
        return capabilities.proxied_name(value)
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    if isinstance(name, str) and (callable(value)):
        return f"{module}.{name}" if isinstance(module, str) else name
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__} object"
