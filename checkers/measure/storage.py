"""What an object really holds, read without running a line of the snippet's code.

Everything grill walks while it measures (the scan of what holds graph, the values a task
compares, what a torch call returned) is the snippet's data, and the snippet may have given
its classes any method: an `__iter__` that yields nothing, an `items()` that lies, a
`__repr__` or `__eq__` or `__hash__` that empties the list holding the graphs, a property
that deletes it, a `__getattr__` that answers anything. So nothing here calls a method the
snippet could define. It reads storage with the C-level methods of the base types (`list`,
`tuple`, `dict`, `set`, `frozenset`, `deque`), an instance's `__dict__` and `__slots__`
through the descriptors CPython itself made for them (never a property or `__getattr__`),
a class's namespace and MRO through `type`'s own descriptors, a tensor's graph through
`torch._C.TensorBase`'s, and tells types apart by identity in the real MRO, never by
`isinstance` (which reads `__class__`, a name a class may define) or `==`.

Callers run with torch functions disabled (the ledger's `paused()`), so a tensor subclass's
`__torch_function__` is not called for the getters either.
"""

from __future__ import annotations

import functools
import gc
import types
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import cast

import torch

_MRO = type.__dict__["__mro__"]
_NAMESPACE = type.__dict__["__dict__"]
_NAME = type.__dict__["__name__"]
_MODULE = type.__dict__["__module__"]
_FLAGS = type.__dict__["__flags__"]
_DICTOFFSET = type.__dict__["__dictoffset__"]
HEAPTYPE = 1 << 9
"""Py_TPFLAGS_HEAPTYPE: a class made by a `class` statement (or `type()`), not by C."""

_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"]
_GRAD = torch._C.TensorBase.__dict__["grad"]
_IS_LEAF = torch._C.TensorBase.__dict__["is_leaf"]
_RETAINS_GRAD = torch._C.TensorBase.__dict__["retains_grad"]
_BASE = torch._C.TensorBase.__dict__["_base"]
_HOOKS = torch._C.TensorBase.__dict__["_backward_hooks"]
_PARTIAL = {name: functools.partial.__dict__[name] for name in ("func", "args", "keywords")}

_dict_descriptors: dict[int, tuple[type, object]] = {}
_slot_descriptors: dict[int, tuple[type, tuple[tuple[str, object], ...]]] = {}


def mro(cls: type) -> tuple[type, ...]:
    """`cls.__mro__` as CPython stores it (a metaclass may define `__mro__`)."""
    return _MRO.__get__(cls)  # type: ignore[no-any-return]


_subclass: dict[tuple[int, int], tuple[type, bool]] = {}


def is_sub(cls: type, base: type) -> bool:
    """`issubclass(cls, base)` by identity in the real MRO (no `__subclasscheck__`); kept
    per class (a class's MRO does not change), next to the class so no id is reused."""
    key = (id(cls), id(base))
    known = _subclass.get(key)
    if known is not None and known[0] is cls:
        return known[1]
    found = any(klass is base for klass in mro(cls))
    if len(_subclass) < 65_536:
        _subclass[key] = (cls, found)
    return found


def is_a(value: object, base: type) -> bool:
    """`isinstance(value, base)` from the value's real type (no `__class__`)."""
    return is_sub(type(value), base)


def type_name(cls: type) -> str:
    name = _NAME.__get__(cls)
    return name if type(name) is str else "?"


def module_of(cls: type) -> str:
    """The module a class says it belongs to, or '' when that is not a plain string."""
    try:
        module = _MODULE.__get__(cls)
    except AttributeError:
        return ""
    return module if type(module) is str else ""


def namespace(cls: type) -> Iterator[tuple[object, object]]:
    """A class's own namespace (its real dict), name and value."""
    proxy = _NAMESPACE.__get__(cls)
    return iter(cast("Iterable[tuple[object, object]]", types.MappingProxyType.items(proxy)))


def is_heap_type(cls: type) -> bool:
    return bool(_FLAGS.__get__(cls) & HEAPTYPE)


# -- containers -------------------------------------------------------------------------------


_READERS: tuple[tuple[type, object], ...] = (
    (dict, dict.items),
    (list, list.__iter__),
    (tuple, tuple.__iter__),
    (deque, deque.__iter__),
    (set, set.__iter__),
    (frozenset, frozenset.__iter__),
)


_kinds: dict[int, tuple[type, type | None]] = {}


def container_kind(value: object) -> type | None:
    """The base container type whose storage `value` has (`list` for a list subclass,
    `dict` for an OrderedDict), or None; kept per class."""
    cls = type(value)
    known = _kinds.get(id(cls))
    if known is not None and known[0] is cls:
        return known[1]
    classes = mro(cls)
    found = next((kind for kind, _ in _READERS if any(k is kind for k in classes)), None)
    if len(_kinds) < 65_536:
        _kinds[id(cls)] = (cls, found)
    return found


def items(value: object, kind: type, cap: int) -> tuple[list[object], bool]:
    """At most `cap` items of a container's real storage (for a dict, its (key, value) pairs:
    see `pairs`), and whether there were more."""
    reader = cast(Callable[[object], Iterable[object]], next(r for k, r in _READERS if k is kind))
    found = list(islice(reader(value), cap + 1))
    return found[:cap], len(found) > cap


def pairs(value: object, cap: int) -> tuple[list[tuple[object, object]], bool]:
    """At most `cap` (key, value) pairs of a dict's real storage (`value` is a dict or a
    subclass of one), and whether there were more."""
    found, more = items(value, dict, cap)
    return cast("list[tuple[object, object]]", found), more


# -- instances --------------------------------------------------------------------------------


def instance_dict(value: object) -> dict[str, object] | None:
    """The instance's own `__dict__`, through the descriptor CPython made for it (never a
    property of the same name); None when it has none."""
    cls = type(value)
    cached = _dict_descriptors.get(id(cls))
    if cached is None or cached[0] is not cls:
        descriptor: object = None
        for klass in mro(cls):
            if not is_heap_type(klass):
                continue
            for name, member in namespace(klass):
                if (
                    type(name) is str
                    and name == "__dict__"
                    and type(member) is types.GetSetDescriptorType
                ):
                    descriptor = member
                    break
            if descriptor is not None:
                break
        cached = _dict_descriptors[id(cls)] = (cls, descriptor)
    descriptor = cached[1]
    if descriptor is None:
        return None
    try:
        found = descriptor.__get__(value, cls)  # type: ignore[attr-defined]
    except (TypeError, AttributeError):
        return None
    return found if type(found) is dict else None


def hidden_attributes(value: object) -> list[object]:
    """The attribute values of an instance whose class hid its `__dict__` descriptor (a class
    attribute named `__dict__`): what the garbage collector sees it refer to, names unknown."""
    cls = type(value)
    if not is_heap_type(cls) or not _DICTOFFSET.__get__(cls):
        return []
    return [item for item in gc.get_referents(value) if item is not cls]


def slot_values(value: object) -> Iterator[tuple[str, object]]:
    """The values in the instance's `__slots__`, through their member descriptors."""
    cls = type(value)
    cached = _slot_descriptors.get(id(cls))
    if cached is None or cached[0] is not cls:
        found: list[tuple[str, object]] = []
        for klass in mro(cls):
            if not is_heap_type(klass):
                continue
            for name, member in namespace(klass):
                if type(name) is str and type(member) is types.MemberDescriptorType:
                    found.append((name, member))
        cached = _slot_descriptors[id(cls)] = (cls, tuple(found))
    for name, member in cached[1]:
        try:
            yield name, member.__get__(value, cls)  # type: ignore[attr-defined]
        except (AttributeError, TypeError):  # an empty slot
            continue


_NAMESPACE_DICT = types.SimpleNamespace.__dict__["__dict__"]


def attribute_values(value: object, cap: int) -> list[object]:
    """At most `cap` of the values an instance holds in its attributes: its `__dict__`, its
    `__slots__`, or a `SimpleNamespace`'s fields (torchtext's `Batch` with `batch.src`, a
    dataclass, a namespace), read from real storage."""
    if type(value) is types.SimpleNamespace:
        fields = _NAMESPACE_DICT.__get__(value)
        return list(islice(dict.values(fields), cap)) if type(fields) is dict else []
    if not is_heap_type(type(value)):
        return []
    own = instance_dict(value)
    found = list(islice(dict.values(own), cap)) if own is not None else []
    found.extend(v for _, v in islice(slot_values(value), max(cap - len(found), 0)))
    return found


def partial_parts(value: object) -> tuple[object, object, object]:
    """A `functools.partial`'s func, args and keywords (a subclass may shadow the names)."""
    func, args, keywords = (_PARTIAL[name].__get__(value) for name in ("func", "args", "keywords"))
    return func, args, keywords


# -- tensors ----------------------------------------------------------------------------------


def grad_fn(tensor: torch.Tensor) -> torch.autograd.graph.Node | None:
    """`tensor.grad_fn` as the C++ tensor has it, or None where torch refuses it (a view of a
    leaf changed in place under no_grad raises)."""
    try:
        return _GRAD_FN.__get__(tensor)  # type: ignore[no-any-return]
    except RuntimeError:
        return None


def grad(tensor: torch.Tensor) -> torch.Tensor | None:
    """`tensor.grad` where torch keeps one (a leaf, or a tensor that retains its grad); reading
    it elsewhere makes torch warn, and the warning would be shown as the snippet's."""
    try:
        if not (_IS_LEAF.__get__(tensor) or _RETAINS_GRAD.__get__(tensor)):
            return None
        found = _GRAD.__get__(tensor)
    except RuntimeError:
        return None
    return found if found is not None and is_a(found, torch.Tensor) else None


def base(tensor: torch.Tensor) -> torch.Tensor | None:
    return _BASE.__get__(tensor)  # type: ignore[no-any-return]


def backward_hooks(tensor: torch.Tensor) -> object:
    return _HOOKS.__get__(tensor)


_node_types: dict[int, tuple[type, bool]] = {}


def is_node(value: object) -> bool:
    """Whether `value` is an autograd graph node: one of torch's C++ node types, or the
    backward class torch made for a custom Function (what `torch.autograd.graph.Node`'s
    `__subclasshook__` accepts, decided without calling it)."""
    cls = type(value)
    known = _node_types.get(id(cls))
    if known is None or known[0] is not cls:
        functions = torch._C._functions
        name = type_name(cls)
        node = functions.__dict__.get(name) is cls or is_sub(
            cls, torch.autograd.function.BackwardCFunction
        )
        known = _node_types[id(cls)] = (cls, node)
    return known[1]


def numel(tensor: torch.Tensor) -> int:
    return int(torch._C.TensorBase.numel(tensor))
