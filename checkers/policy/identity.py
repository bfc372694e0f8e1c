"""The capability model: what a snippet may hold, decided by what an object *is*.

Every object that crosses into snippet code (an attribute read, a call's result, an item, an
iteration step, an unpacked value, a parameter, a `with` target, a caught exception) passes
`admit`; every callee passes `callable_admitted`. An object is judged by facts the snippet
cannot forge: its identity against grill's stand-ins and replacements; the namespace and
module globals it may be; and where it really lives (`verified_home`): a class is placed at
`module.qualname` only when that path, looked up in the real module, is the very same class;
a function by the module whose globals it runs in; a C function by the module it belongs to.
`__module__`, `__qualname__` and `__name__`, which a snippet (or `functools.wraps`, or an
`Enum(..., module=...)`) can set, are never believed on their own.

Containers are judged lazily: a list, tuple, dict or set is open as a whole, and each value is
judged when it is taken out (iteration, indexing, unpacking), so a large container costs
nothing until it is touched and a nested one cannot smuggle anything out. Modules travel only
as grill's proxies (`ModuleProxy`), which hold no state a snippet could re-target.
"""

from __future__ import annotations

import builtins
import functools
import importlib.util
import sys
import types
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary, WeakSet, WeakValueDictionary

import torch

from checkers.policy import tables
from checkers.policy.refusal import (
    FACTS_CHANGED,
    OWN_CLASSES,
    RANKED_RUNS,
    is_namespace,
    not_available,
    ranked_now,
)
from checkers.policy.standins import STAND_INS, is_stand_in

# References taken once, at import, before any snippet runs: the snippet can rebind none of
# them (it reaches no module globals), and nothing here looks a type up by name at call time.
_MODULES: dict[str, types.ModuleType] = sys.modules
_ModuleType = types.ModuleType
_FunctionType = types.FunctionType
_MethodType = types.MethodType
_BuiltinFunctionType = types.BuiltinFunctionType
_MethodWrapperType = types.MethodWrapperType
_FrameType, _CodeType, _CellType = types.FrameType, types.CodeType, types.CellType
_DESCRIPTORS = (
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
)
_Node = torch.autograd.graph.Node
_partial = functools.partial
_BUILTINS: dict[str, object] = dict(vars(builtins))
_type_dict = type.__dict__["__dict__"].__get__  # a class's own namespace, read without hooks
_type_module = type.__dict__["__module__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_type_flags = type.__dict__["__flags__"].__get__
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class whose `__module__`, `__qualname__` can change

OPEN_KINDS: set[type] = {
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    type(None),
    type(...),
    type(NotImplemented),
    slice,
    range,
    torch.Tensor,
    torch.nn.Parameter,
    torch.Size,
    torch.dtype,
    torch.device,
    torch.memory_format,
    torch.layout,
    torch.finfo,
    torch.iinfo,
}
"""Exact types a snippet may always hold: the fast path of every guard."""

_CONTAINERS: frozenset[type] = frozenset(
    {
        list,
        tuple,
        dict,
        set,
        frozenset,
        bytearray,
        OrderedDict,
        defaultdict,
        deque,
        WeakValueDictionary,
        WeakKeyDictionary,
        WeakSet,
    }
)
"""Containers, open as a whole unless they are a namespace or a module's global state."""

_replacements: dict[int, tuple[object, object]] = {}
"""id(real object) -> (the real object, the stand-in a snippet gets instead)."""

_proxies: dict[str, ModuleProxy] = {}
_proxied: dict[int, tuple[ModuleProxy, str, str | None]] = {}
"""id(proxy) -> (proxy, module name, None if open else why it is closed)."""


def replace(real: object, stand_in: object) -> None:
    """Wherever a snippet would get `real` (by any name, from any call), it gets `stand_in`."""
    _replacements[id(real)] = (real, stand_in)


def replacement(value: object) -> object:
    found = _replacements.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    if type(value) is _BuiltinFunctionType:
        by_owner = _bound_replacements.get(value.__name__)  # (most names have none: no walk)
        if by_owner is not None:
            for owner in type(value.__self__).__mro__:  # a snippet's str subclass formats too
                bound = by_owner.get(owner)
                if bound is not None:
                    return bound(value)
    return value


_bound_replacements: dict[str, dict[type, Callable[[Any], object]]] = {}
"""Method name -> owner class -> the stand-in maker for that C method bound to an owner."""


def replace_bound(owner: type, name: str, stand_in: Callable[[Any], object]) -> None:
    """Wherever a snippet would get the C method `name` bound to an `owner` (a new object
    each time: `'{}'.format`), it gets `stand_in(method)`."""
    _bound_replacements.setdefault(name, {})[owner] = stand_in


def open_type(kind: type) -> None:
    """Let instances of one of grill's stand-in types through (the snippet's `print`)."""
    OPEN_KINDS.add(kind)


# -- modules: the snippet holds proxies, never a module ---------------------------------------


class ModuleProxy:
    """Stands in for a module; every attribute goes through `resolve`. It keeps nothing of its
    own: which module it stands for is grill's record, so no write can re-target it."""

    __slots__ = ("__weakref__",)

    def __getattr__(self, attr: str) -> object:
        return _module_hooks["read"](self, attr)

    def __setattr__(self, attr: str, value: object) -> None:
        _module_hooks["write"](self, attr, value)

    def __delattr__(self, attr: str) -> None:
        raise not_available(f"del {proxied_name(self)}.{attr}")

    def __repr__(self) -> str:
        return f"<module '{proxied_name(self)}' (sandboxed)>"

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __dir__(self) -> list[str]:
        name, why = proxy_target(self)
        if why is not None:
            return []
        module = _MODULES.get(name)
        return sorted(n for n in vars(module) if not n.startswith("_")) if module else []


_module_hooks: dict[str, Callable[..., Any]] = {}
"""How a proxy reads and writes its module's attributes: the guards' rules, installed by
`checkers.policy.guards` when it loads (it builds on this module, not the other way)."""


def on_module_access(read: Callable[..., object], write: Callable[..., None]) -> None:
    _module_hooks.update(read=read, write=write)


def proxy_for(name: str, why: str | None = None) -> ModuleProxy:
    """The one proxy for module `name` (closed with `why`, or open)."""
    key = f"{name}\0{why or ''}"
    proxy = _proxies.get(key)
    if proxy is None:
        proxy = object.__new__(ModuleProxy)
        _proxies[key] = proxy
        _proxied[id(proxy)] = (proxy, name, why)
    return proxy


def proxy_target(proxy: ModuleProxy) -> tuple[str, str | None]:
    _, name, why = _proxied[id(proxy)]
    return name, why


def proxied_name(proxy: ModuleProxy) -> str:
    return proxy_target(proxy)[0]


def module_proxy(module: types.ModuleType) -> ModuleProxy:
    """A real module handed back to the snippet (`torch.get_device_module()`), as its proxy."""
    name = module_name(module)
    if name is None:
        raise not_available(getattr(module, "__name__", "a module"), "a module grill cannot place")
    return proxy_for(name, tables.module_reason(name, ranked_now() is not None))


def module_name(module: types.ModuleType) -> str | None:
    """The name under which `module` really is in `sys.modules`."""
    claimed = module.__dict__.get("__name__")
    if isinstance(claimed, str) and _MODULES.get(claimed) is module:
        return claimed
    found = _module_names().get(id(module))
    return found[1] if found is not None and found[0] is module else None


_by_id: dict[int, tuple[types.ModuleType, str]] = {}
_by_globals: dict[int, str] = {}
_global_state: dict[int, object] = {}
"""id -> the container itself, held so that no later object is mistaken for it by its id."""
_module_dicts: dict[int, dict[str, object]] = {}
_scanned: set[str] = set()
_seen = [0]


def _refresh() -> None:
    """Index modules loaded since the last look: their objects' ids, their globals' ids, and
    the mutable containers among their globals (torch's and the standard library's state)."""
    if len(_MODULES) == _seen[0]:
        return
    for name, module in list(_MODULES.items()):
        if name in _scanned or not isinstance(module, _ModuleType):
            continue
        _scanned.add(name)
        namespace = module.__dict__
        _module_dicts[id(namespace)] = namespace
        if namespace.get("__name__") == name or id(namespace) not in _by_globals:
            _by_id[id(module)] = (module, name)  # (`os.path` is `posixpath`: its own wins)
            _by_globals[id(namespace)] = name
        if name == "__main__" or name.startswith("checkers"):
            _global_state[id(namespace)] = namespace
        for value in list(namespace.values()):
            if type(value) in _CONTAINERS and type(value) is not tuple:
                _global_state[id(value)] = value
    _seen[0] = len(_MODULES)


def _module_names() -> dict[int, tuple[types.ModuleType, str]]:
    _refresh()
    return _by_id


def is_global_state(value: object) -> bool:
    """A module's namespace, or a mutable container among a module's globals: interpreter-
    global state (sys.modules, torch's hook tables, a module's registry) is not the snippet's."""
    _refresh()
    return _global_state.get(id(value)) is value or _module_dicts.get(id(value)) is value


# -- where an object really lives ----------------------------------------------------------


def verified_home(value: object) -> tuple[str, str] | None:
    """(module, qualname) where `value` really lives, or None when it cannot be placed."""
    if isinstance(value, type):
        return _class_home(value)
    if isinstance(value, _FunctionType):
        return _function_home(value)
    if isinstance(value, _BuiltinFunctionType):
        return _builtin_home(value)
    return None


def _class_home(cls: type) -> tuple[str, str] | None:
    module, qualname = _type_module(cls), _type_qualname(cls)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    found: object = _MODULES.get(module)
    if found is None:
        return None
    for part in qualname.split("."):
        namespace = found.__dict__ if isinstance(found, _ModuleType) else None
        if namespace is None and isinstance(found, type):
            namespace = _type_dict(found)
        if namespace is None or part not in namespace:
            return None
        found = namespace[part]
    return (module, qualname) if found is cls else None


def _function_home(function: types.FunctionType) -> tuple[str, str] | None:
    _refresh()
    module = _by_globals.get(id(function.__globals__))
    if module is None:
        return None
    return module, function.__code__.co_qualname


def _builtin_home(function: types.BuiltinFunctionType) -> tuple[str, str] | None:
    owner = function.__self__
    name = function.__name__
    if isinstance(owner, _ModuleType):
        module = module_name(owner)
    elif owner is None:
        module = function.__module__
    else:
        return None  # a bound C method: judged by its owner
    holder = _MODULES.get(module) if isinstance(module, str) else None
    if holder is None or holder.__dict__.get(name) is not function:
        return None
    return module, name  # type: ignore[return-value]  # (module is a str when holder exists)


# -- decisions remembered ----------------------------------------------------------------------

_OBJECT, _INSTANCES, _WRITERS = 0, 1, 2
_Decision = tuple[object, str | None, tuple[object, object] | None]
"""(the object, why it is closed or None, a class's names when decided: `_names`)"""
_decided: tuple[dict[int, _Decision], ...] = tuple({} for _ in range(6))
"""Decisions that rest only on what an object is (a function, a class, a C function, or the
class of instances judged by their class alone) and on facts that only move at grill's hand
or by a run's start and end: which classes are the snippet's, which objects are stand-ins
(`FACTS_CHANGED`), which modules are loaded. Keyed by the object's id next to the object,
held, so that no other object takes its id; all forgotten when one of those facts moves. A
class's entry also keeps the names it had (`_names`), which `functools.update_wrapper` can
change, and is taken only while it still has them. Six tables: an object's own decision or
its instances', or a function's as a writer of class state (`tables.CLASS_STATE_WRITERS`),
outside a ranked run or in one."""
_decided_on = [-1, -1]
_DECISIONS_KEPT = 1 << 16
"""At most this many decisions a table (a snippet making functions in a loop): then anew."""


def _decisions(which: int) -> dict[int, _Decision]:
    if _decided_on[0] != len(_MODULES) or _decided_on[1] != FACTS_CHANGED[0]:
        for table in _decided:
            table.clear()
        for methods in _methods_decided:
            methods.clear()
        _decided_on[0], _decided_on[1] = len(_MODULES), FACTS_CHANGED[0]
    table = _decided[which + 3 * (RANKED_RUNS[0] > 0 and ranked_now() is not None)]
    if len(table) >= _DECISIONS_KEPT:
        table.clear()
    return table


def _names(cls: type) -> tuple[object, object] | None:
    """What a class's placement reads and a snippet could rewrite: its module and qualname
    (None for a static type, whose names never change)."""
    if not _type_flags(cls) & _HEAP_TYPE:
        return None
    return _type_module(cls), _type_qualname(cls)


def _same_names(judged: object, names: tuple[object, object] | None) -> bool:
    """Whether a class still has the names it was decided with (anything else has none)."""
    if names is None:
        return True
    return _type_module(judged) is names[0] and _type_qualname(judged) is names[1]


_Judged = TypeVar("_Judged")


def _remembered(which: int, judged: _Judged, decide: Callable[[_Judged], str | None]) -> str | None:
    """`decide(judged)`, remembered in table `which` for as long as the facts it rests on hold
    (`_decisions`), and, for a class, as long as it keeps its names."""
    table = _decisions(which)
    known = table.get(id(judged))
    if known is not None and known[0] is judged and _same_names(judged, known[2]):
        return known[1]
    reason = decide(judged)
    table[id(judged)] = (judged, reason, _names(judged) if isinstance(judged, type) else None)
    return reason


_MethodDecision = tuple[object, type, object, tuple[object, object] | None, str | None]
"""(the function, the class of its owner, its name, that class's names, the decision)"""
_methods_decided: tuple[dict[tuple[int, int], _MethodDecision], ...] = ({}, {})
"""`_method_reason`'s decisions, outside a ranked run or in one, forgotten with the others."""


def _method_decisions() -> dict[tuple[int, int], _MethodDecision]:
    _decisions(_OBJECT)  # (forgets them all when a fact has moved)
    table = _methods_decided[RANKED_RUNS[0] > 0 and ranked_now() is not None]
    if len(table) >= _DECISIONS_KEPT:
        table.clear()
    return table


def _judged_by_kind(kind: type) -> bool:
    """Whether every instance of `kind` is judged alike, by `kind` alone: its instances are
    neither classes, `super` objects, partials, frames nor descriptors (judged by what they
    hold), and `isinstance` cannot see another class in them: nothing in its MRO but `object`
    defines `__class__` or `__getattribute__`, and nothing there is the snippet's (which it
    may change). The snippet's own classes are open whatever they define."""
    if kind in OWN_CLASSES:
        return True
    if issubclass(kind, _JUDGED_ONE_BY_ONE) or kind is _MethodWrapperType:
        return False
    for base in _type_mro(kind):
        if base is object:
            continue
        if base in OWN_CLASSES:
            return False
        namespace = _type_dict(base)
        if "__class__" in namespace or "__getattribute__" in namespace:
            return False
    return True


_JUDGED_ONE_BY_ONE = (type, super, _partial, _FrameType, *_DESCRIPTORS)


# -- the rule --------------------------------------------------------------------------------


def closed_reason(value: object) -> str | None:
    """Why a snippet may not hold `value`, or None when it may."""
    kind = type(value)
    if kind in OPEN_KINDS or kind is ModuleProxy or STAND_INS.get(id(value)) is value:
        return None
    # The callables a snippet touches most, by exact type (which no object can fake, and
    # which none of the checks above or below them in the chain could match otherwise):
    # straight to their own rule.
    if kind is _BuiltinFunctionType:
        return _builtin_reason(value)  # type: ignore[arg-type]
    if kind is _MethodType:
        return _method_reason(value)  # type: ignore[arg-type]
    if kind is _FunctionType:
        return function_reason(value)  # type: ignore[arg-type]
    if kind in _CONTAINERS or kind is types.MappingProxyType:
        if is_namespace(value) or is_global_state(value):
            return "interpreter-global state: a module's globals, or grill's"
        return None
    if kind is type:  # a plain class: nothing in `_instance_reason` could match it sooner
        return class_reason(value)  # type: ignore[arg-type]
    table = _decisions(_INSTANCES)
    known = table.get(id(kind))
    if known is not None and known[0] is kind and _same_names(kind, known[2]):
        return known[1]
    reason = _instance_reason(value, kind)
    if _judged_by_kind(kind):
        table[id(kind)] = (kind, reason, _names(kind))
    return reason


def _instance_reason(value: object, kind: type) -> str | None:
    if _own(value):
        return None
    if isinstance(value, _ModuleType):
        return "a module is only offered through its own name"
    if isinstance(value, _FrameType) and is_namespace(value.f_globals):
        return None  # the snippet's own frame (`inspect.currentframe()` in its own code)
    if isinstance(value, (_FrameType, _CodeType, _CellType)):
        return "interpreter internals: frames, code and closures"
    if isinstance(value, type):
        return class_reason(value)
    if isinstance(value, _FunctionType):
        return function_reason(value)
    if isinstance(value, _MethodType):
        return _method_reason(value)
    if isinstance(value, _BuiltinFunctionType):
        return _builtin_reason(value)
    if isinstance(value, _MethodWrapperType):
        return _bound_reason(value.__self__, value.__name__)
    if isinstance(value, _DESCRIPTORS):
        owner = value.__objclass__
        return _bound_reason(owner, value.__name__) if isinstance(owner, type) else "unplaced"
    if isinstance(value, _partial):
        return closed_reason(value.func)
    if isinstance(value, _Node):  # C++ node types call themselves builtins
        return None
    return class_reason(kind)


def _method_reason(method: types.MethodType) -> str | None:
    """A bound method: as open as its function and its owner, but for the names and the
    class state the sandbox keeps. A Python function bound to an instance judged by its class
    alone is decided once for that function, class and name."""
    function, owner = method.__func__, method.__self__
    if type(function) is not _FunctionType:
        return _bound_method_reason(method, function, owner)
    kind = type(owner)
    name = function.__name__  # (what `method.__name__` reads)
    table = _method_decisions()
    key = (id(function), id(kind))
    known = table.get(key)
    if (
        known is not None
        and known[0] is function
        and known[1] is kind
        and known[2] is name
        and _same_names(kind, known[3])
    ):
        return known[4]
    reason = _bound_method_reason(method, function, owner)
    instances = _decisions(_INSTANCES).get(id(kind))
    if kind in OPEN_KINDS or instances is not None and instances[0] is kind:
        table[key] = (function, kind, name, _names(kind), reason)
    return reason


def _bound_method_reason(method: types.MethodType, function: object, owner: object) -> str | None:
    reason = closed_reason(function)
    if reason is not None:
        return reason
    name = method.__name__
    reason = closed_reason(owner)
    if reason is not None:
        return reason
    if _own(owner):  # (then no class state of another's is written either)
        return None
    return _name_reason(owner, name) or _class_state_reason(function, owner)


def _builtin_reason(function: types.BuiltinFunctionType) -> str | None:
    owner = function.__self__
    if owner is None or isinstance(owner, _ModuleType):
        return _remembered(_OBJECT, function, _module_function_reason)
    kind = type(owner)
    if kind in OPEN_KINDS:  # a tensor's method, a str's: `_bound_reason` without a call,
        # as none of these kinds is a class, a function or `super`, nor claims another class
        if kind in OWN_CLASSES:
            return None
        return _name_reason(owner, function.__name__)
    return _bound_reason(owner, function.__name__)


def _module_function_reason(function: types.BuiltinFunctionType) -> str | None:
    """A C function of a module (or of none): as open as where it really lives."""
    home = _builtin_home(function)
    if home is None:
        return "a function grill cannot place"
    return home_reason(*home)


def _class_state_reason(function: object, owner: object) -> str | None:
    """`tables.CLASS_STATE_WRITERS` bound to a class the snippet did not define."""
    if not isinstance(function, _FunctionType):
        return None
    why = _remembered(_WRITERS, function, _writer_reason)
    return None if why is None or _own(owner) else why


def _writer_reason(function: types.FunctionType) -> str | None:
    home = _function_home(function)
    return tables.CLASS_STATE_WRITERS.get(".".join(home)) if home is not None else None


def class_state_reason(function: object, owner: object) -> str | None:
    return _class_state_reason(function, owner)


def _bound_reason(owner: object, name: str) -> str | None:
    """A method bound to (or defined on) `owner`: as open as its owner, except the names
    that are effects or that lead to the protocols the sandbox keeps."""
    reason = closed_reason(owner)
    if reason is not None:
        return reason
    if _own(owner):  # (a class the snippet defined is its own too)
        return None
    return _name_reason(owner, name)


def _name_reason(owner: object, name: str) -> str | None:
    """The names of methods that are effects, or lead to the protocols the sandbox keeps."""
    if name == "__get__" and isinstance(owner, _DESCRIPTORS):  # `type(x).attr.__get__(x)`
        name = owner.__name__
        if name in tables.GRAPH_NODE_ATTRIBUTES:
            return tables.GRAPH_NODE_ATTRIBUTES[name]
    if name in tables.DENIED_ATTRIBUTES:
        return tables.DENIED_ATTRIBUTES[name]
    if name in tables.INTERPRETER_DUNDERS:
        return tables.INTERPRETER_DUNDERS[name]
    return None


def class_reason(cls: type) -> str | None:
    if cls in OWN_CLASSES or is_stand_in(cls):
        return None
    return _remembered(_OBJECT, cls, _class_reason)


def _class_reason(cls: type) -> str | None:
    home = _class_home(cls)
    if home is not None:
        return _placed_class_reason(cls, home, ranked_now() is not None)
    # Not where it claims to live: a class torch or the standard library made at run time
    # (a parametrized module's class, a local class), or one that pretends. It is as open as
    # what it is made of.
    for base in cls.__mro__[1:]:
        reason = class_reason(base)
        if reason is not None:
            return reason
    for member in _type_dict(cls).values():
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if isinstance(member, _FunctionType) and not _own(member):
            reason = function_reason(member)
            if reason is not None:
                return reason
    return None


@functools.lru_cache(maxsize=4096)
def _placed_class_reason(cls: type, home: tuple[str, str], ranked: bool) -> str | None:
    """A class where it claims to live is as closed as its home, or as any class it builds
    on (a torch dispatch mode subclassed elsewhere is still a dispatch mode)."""
    reason = _home_reason(*home, ranked)
    if reason is not None:
        return reason
    for base in cls.__mro__[1:-1]:
        if base in OWN_CLASSES or is_stand_in(base):
            continue
        base_home = _class_home(base)
        if base_home is not None and _home_reason(*base_home, ranked) is not None:
            return _home_reason(*base_home, ranked)
    return None


def function_reason(function: types.FunctionType) -> str | None:
    return _remembered(_OBJECT, function, _function_reason)


def _function_reason(function: types.FunctionType) -> str | None:
    if _own(function) or is_stand_in(function):
        return None
    home = _function_home(function)
    if home is None:
        return "a function grill cannot place"
    return home_reason(*home)


def home_reason(module: str, qualname: str) -> str | None:
    """Why the objects living at `module.qualname` are closed, or None when they are open
    (to the run whose code runs now: torch.distributed is open to a rank of a ranked run)."""
    return _home_reason(module, qualname, ranked_now() is not None)


@functools.lru_cache(maxsize=8192)
def _home_reason(module: str, qualname: str, ranked: bool) -> str | None:
    path = f"{module}.{qualname}"
    if module == "checkers" or module.startswith("checkers."):
        return "grill's own machinery"
    if tables.is_torch(module):
        return tables.torch_reason(path, ranked)
    if module == "builtins":
        top = qualname.split(".", 1)[0]
        if top in tables.BUILTIN_TYPES or top in _BUILTIN_NAMES or _is_exception(top):
            return None
        return "a builtin the sandbox does not offer"
    if module in tables.STDLIB_HOMES or module in ("typing_extensions",):
        for name, why in tables.CLOSED_NAMES.items():
            if path == name or path.startswith(name + "."):
                return why
        return None
    closed = tables.module_reason(module, ranked)
    return f"from {module}: {closed}" if closed else None


_BUILTIN_NAMES = frozenset(tables.CANDIDATE_BUILTINS)


def _is_exception(name: str) -> bool:
    value = _BUILTINS.get(name)
    return isinstance(value, type) and issubclass(value, BaseException)


def _own(value: object) -> bool:
    """The snippet's own: a class it defined, an instance of one, a function it defined."""
    if isinstance(value, type):
        return value in OWN_CLASSES
    if type(value) in OWN_CLASSES:
        return True
    if isinstance(value, _FunctionType):
        return is_namespace(value.__globals__)
    if isinstance(value, super):
        target = value.__self__  # type: ignore[attr-defined]  # (typeshed omits it)
        return type(target) in OWN_CLASSES or isinstance(target, type) and target in OWN_CLASSES
    return False


def is_own(value: object) -> bool:
    return _own(value)


def admit(value: object, subject: str | None = None) -> object:
    """`value` as the snippet may hold it: itself, grill's stand-in for it, or a refusal
    naming `subject` (how the snippet reached it), else the value itself."""
    kind = type(value)
    if kind in OPEN_KINDS:
        return value
    replaced = _replacements.get(id(value))
    if replaced is not None and replaced[0] is value:
        return replaced[1]
    found = replacement(value) if kind is _BuiltinFunctionType else value
    if found is not value:
        return found
    if isinstance(value, _ModuleType):
        return module_proxy(value)
    reason = closed_reason(value)
    if reason is not None:
        raise not_available(subject or describe(value), reason)
    return value


def callable_admitted(func: Callable[..., object]) -> Callable[..., object]:
    """A callee, as the snippet may call it."""
    replaced = _replacements.get(id(func))
    if replaced is not None and replaced[0] is func:
        return replaced[1]  # type: ignore[return-value]  # (a stand-in is callable)
    found = replacement(func) if type(func) is _BuiltinFunctionType else func
    if found is not func:
        return found  # type: ignore[return-value]  # (a stand-in is callable)
    reason = closed_reason(func)
    if reason is not None:
        raise not_available(f"{describe(func)}()", reason)
    return func


def describe(value: object) -> str:
    """How a refusal names an object: `logging.Logger`, `functools.wraps`, `FileIO.write`."""
    if type(value) is ModuleProxy:
        return proxied_name(value)
    home = verified_home(value)
    if home is not None:
        return ".".join(home)
    if isinstance(value, type):
        return f"{_type_module(value)}.{_type_qualname(value)}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if isinstance(name, str) and callable(value):
        return name
    kind = type(value)
    module = _type_module(kind)
    prefix = "" if module == "builtins" else f"{module}."
    return f"{prefix}{_type_qualname(kind)} object"


def installed(name: str) -> bool:
    """Whether `import name` would find a module here (a missing one is the snippet's error,
    raised as under plain Python; an installed but closed one is a refusal when used)."""
    if name in _MODULES:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
