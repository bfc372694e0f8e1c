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

import builtins
import functools
import importlib
import sys
import types
from collections.abc import Callable
from fnmatch import fnmatchcase
from types import ModuleType
from typing import Self

import torch

from checkers.policy import tables
from checkers.policy.refusal import CANDIDATE_MARK, candidate_classes, not_available
from checkers.policy.standins import SAFE_REPLACEMENTS, is_stand_in


class ModuleProxy:
    """Stands in for an allowed module; every attribute goes through `resolve`. Its module is
    fixed when it is made: `__init__` does nothing, so calling it again re-targets nothing."""

    __slots__ = ("_grill_module",)
    _grill_module: str

    def __new__(cls, name: str) -> Self:
        proxy = object.__new__(cls)
        object.__setattr__(proxy, "_grill_module", name)
        return proxy

    def __init__(self, name: str) -> None:
        pass

    def __getattr__(self, attr: str) -> object:
        return resolve(self._grill_module, attr)

    def __setattr__(self, attr: str, value: object) -> None:
        path = f"{self._grill_module}.{attr}"
        if path not in tables.SETTABLE or type(value) is not bool:
            raise not_available(f"{path} = ...")
        setattr(importlib.import_module(self._grill_module), attr, value)

    def __delattr__(self, attr: str) -> None:
        raise not_available(f"del {self._grill_module}.{attr}")

    def __repr__(self) -> str:
        return f"<module '{self._grill_module}' (sandboxed)>"

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)


def proxied_name(proxy: ModuleProxy) -> str:
    name: str = object.__getattribute__(proxy, "_grill_module")
    return name


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
    ModuleProxy,
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
        if value.__name__ in tables.ALLOWED_MODULES and not tables.denial_reason(value.__name__):
            return ModuleProxy(value.__name__)
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
        if value.__name__ in tables.DENIED_ATTRIBUTES:
            return tables.DENIED_ATTRIBUTES[value.__name__]
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
        if value.__name__ in tables.DENIED_ATTRIBUTES:
            return tables.DENIED_ATTRIBUTES[value.__name__]
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
        if top in BUILTIN_TYPES or top in _BUILTIN_NAMES or _is_exception(top):
            return None
        return "a builtin the sandbox does not offer"
    path = f"{module}.{qualname}"
    if module == "torch" or module.startswith("torch."):
        for patterns, reason in tables.CLOSED_TORCH_HOMES:
            if any(fnmatchcase(path, pattern) for pattern in patterns):
                return reason
        denied = tables.denial_reason(path)
        return denied
    if module in tables.STDLIB_HOMES:
        names = tables.STDLIB_HOMES[module]
        top = qualname.split(".", 1)[0]
        if path not in tables.CLOSED_STDLIB_NAMES and (
            names is ...
            or names is None
            and not top.startswith("_")
            or isinstance(names, frozenset)
            and top in names
        ):
            return None
        return f"the sandbox offers only some of {module}, not this"
    return f"from {module}, a module the sandbox does not offer"


_BUILTIN_NAMES = frozenset(tables.CANDIDATE_BUILTINS)


def _is_exception(name: str) -> bool:
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def describe(value: object) -> str:
    """How a refusal names an object: `logging.Logger`, `functools.wraps`, `FileIO.write`."""
    if isinstance(value, ModuleProxy):
        return proxied_name(value)
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    if isinstance(name, str) and (callable(value)):
        return f"{module}.{name}" if isinstance(module, str) else name
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__} object"


# -- modules: the snippet holds proxies, never a module ---------------------------------------


def is_graph_node(obj: object) -> bool:
    graph = sys.modules.get("torch.autograd.graph")
    return graph is not None and isinstance(obj, graph.Node)


def home(value: object) -> str | None:
    """Where a class or function was defined (`torch.jit.CompilationUnit`), so that a closed
    family stays closed under any name that re-exports it."""
    module = getattr(value, "__module__", None) if callable(value) else None
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return f"{module}.{name}" if isinstance(module, str) and isinstance(name, str) else None


@functools.cache
def _torch_instance_private() -> frozenset[str]:
    """Private names torch keeps on instances of the classes snippets subclass."""
    import torch

    module = torch.nn.Module()
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
    names = set(vars(module)) | set(vars(optimizer)) | set(vars(scheduler))
    return frozenset(name for name in names if name.startswith("_"))


def instance_private(cls: type) -> frozenset[str]:
    """The private names torch may keep on an instance of `cls` (none for non-torch classes)."""
    module = getattr(cls, "__module__", "") or ""
    return _torch_instance_private() if module.startswith("torch") else frozenset()


def import_proxy(name: str) -> ModuleProxy:
    """The proxy an `import name` statement gets; refuses modules not on the allowlist."""
    why = tables.module_reason(name)
    if why is not None:
        raise not_available(name, why)
    importlib.import_module(name)
    return ModuleProxy(name)


def resolve(module: str, attr: str) -> object:
    """`module.attr` for candidate code: checked, then wrapped when it is itself a module."""
    path = f"{module}.{attr}"
    if (
        attr.startswith("_")
        or tables.denial_reason(path)
        or attr not in tables.ONLY_NAMES.get(module, (attr,))
    ):
        raise not_available(path)
    if path in SAFE_REPLACEMENTS:
        return SAFE_REPLACEMENTS[path]()
    real = importlib.import_module(module)
    try:
        value = getattr(real, attr)
    except AttributeError:
        raise AttributeError(f"module '{module}' has no attribute '{attr}'") from None
    origin = home(value)
    if origin is not None and tables.denial_reason(origin):
        raise not_available(path)
    if isinstance(value, ModuleType):
        return wrap_value(path, value)
    return admit(value)


def wrap_value(path: str, value: object) -> object:
    """Modules travel only as proxies, and only under their canonical allowed name."""
    if isinstance(value, ModuleType):
        if value.__name__ == path and path in tables.ALLOWED_MODULES:
            return ModuleProxy(path)
        raise not_available(path)
    return value
