"""The runtime half of the policy: what the rewritten snippet calls for every attribute read
and write, call, item, iteration, unpacking, `with`, decorator, import and print.

One rule runs through them: every value that crosses into snippet code passes
`identity.admit`, every callee `identity.callable_admitted`, and every write is judged by what
it would change. Names are judged by what they reach, not by their underscores: a snippet's
own classes and instances are its own business (`self.__dict__`, `super().__setattr__`);
anything's harmless dunders (`obj.__class__.__name__`) read as data; what leads to
interpreter internals, to the attribute and class protocols the sandbox keeps, or to grill's
own objects is refused. While grill measures, every guard refuses to act (`Measuring`), so
snippet code that runs then (a finalizer, a weakref callback) can compute but change nothing.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # CPython's str.format internals: no stub
import builtins
import collections
import contextlib
import dataclasses
import dis
import enum
import functools
import inspect
import io
import logging
import operator
import string
import sys
import traceback
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NoReturn, cast

from checkers.policy import descriptors, global_state, ranked, settings, tables
from checkers.policy.identity import (
    OPEN_KINDS,
    ModuleProxy,
    admit,
    callable_admitted,
    class_state_reason,
    closed_reason,
    describe,
    installed,
    is_own,
    module_proxy,
    on_module_access,
    open_type,
    proxy_for,
    proxy_target,
    replace,
    replace_bound,
    replacement,
)
from checkers.policy.refusal import (
    OWN_CLASSES,
    Measuring,
    Refused,
    candidate_frame,
    is_namespace,
    not_available,
    ranked_now,
)
from checkers.policy.standins import (
    TRACEBACK_STAND_INS,
    candidate_dataclass,
    confined_open,
    confined_torch,
    single_process_data_loader,
    stand_in,
)
from checkers.policy.views import VIEWS, view_attribute

_measuring = [False]
"""Whether grill is measuring now (grill's own module state: no snippet reaches it)."""


@contextlib.contextmanager
def measuring() -> Iterator[None]:
    """While grill scans and measures, snippet code that runs anyway acts on nothing."""
    was, _measuring[0] = _measuring[0], True
    snippets = None if was else global_state.swapped_for_grills()
    try:
        yield
    finally:
        if snippets is not None:
            global_state.put(snippets)
        _measuring[0] = was


def _check() -> None:
    if _measuring[0]:
        raise Measuring()


_ALWAYS_CLOSED = frozenset(
    {"__globals__", "__builtins__", "__closure__", "__code__", "__loader__", "__spec__"}
)
"""Special attributes refused on everything, the snippet's own functions included."""

MODULE_DUNDERS = frozenset({"__name__", "__version__", "__file__", "__doc__", "__all__"})
"""A module's special names a snippet may read (`torch.__version__`)."""

PLAIN_VALUES = (bool, int, float, str, type(None))
"""What a module setting may hold and be set to (`torch.backends.cudnn.benchmark = True`)."""


# -- attributes -------------------------------------------------------------------------------


def guarded_getattr(obj: object, name: object, *default: object) -> object:
    """`obj.name` in snippet code (every attribute read is rewritten to this)."""
    if _measuring[0]:  # (`_check()`, inline: this runs on every attribute read)
        raise Measuring()
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if type(obj) is ModuleProxy:
        return module_attribute(obj, name, *default)
    if isinstance(obj, types.ModuleType):
        return module_attribute(module_proxy(obj), name, *default)
    reason = None if type(obj) in OPEN_KINDS else closed_reason(obj)
    if reason is not None:
        raise not_available(f"{describe(obj)}.{name}", reason)
    refusal = attribute_reason(obj, name) if name in _NAMES_IN_TABLES else None
    if refusal is not None:
        # `object.__setattr__` in a class's own `__setattr__`: grill's guarded twin, not a refusal
        found = getattr(obj, name, None)
        if found is None or replacement(found) is found:
            raise not_available(f"{_short(obj)}.{name}", refusal)
        return replacement(found)
    if name == "__init__":
        return _init_of(obj)
    if name == "f_back" and isinstance(obj, types.FrameType):
        return _frame_back(obj)
    value = getattr(obj, name, *default)
    if type(value) in OPEN_KINDS:  # (`admit`'s first test, before naming the read)
        return value
    return admit(value, f"{_short(obj)}.{name}")


def _frame_back(frame: types.FrameType) -> types.FrameType | None:
    """The snippet's own caller of its own frame: the stack as the snippet wrote it, without
    the guards between its frames."""
    back = frame.f_back
    while back is not None and not is_namespace(back.f_globals):
        back = back.f_back
    return back


def current_frame() -> types.FrameType | None:
    """`inspect.currentframe()` in snippet code: the snippet's own innermost frame."""
    return candidate_frame()


def own_stack(context: int = 1) -> list[inspect.FrameInfo]:
    """`inspect.stack()` in snippet code: the snippet's own frames, innermost first."""
    found, frame = [], candidate_frame()
    while frame is not None:
        found.append(inspect.FrameInfo(frame, *inspect.getframeinfo(frame, context)))
        frame = _frame_back(frame)
    return found


_NAMES_IN_TABLES = frozenset(
    (*_ALWAYS_CLOSED, *tables.INTERPRETER_DUNDERS, *tables.DENIED_ATTRIBUTES)
) | frozenset(tables.GRAPH_NODE_ATTRIBUTES)
"""Every name `attribute_reason` may refuse (the tables are constants): any other name is
judged by the object alone, without a call."""


def attribute_reason(obj: object, name: str) -> str | None:
    """Why `obj.name` is refused (the object itself being open), or None."""
    if name in _ALWAYS_CLOSED:
        return tables.INTERPRETER_DUNDERS[name]
    if name not in _NAMES_IN_TABLES:
        return None  # (the cheap test first: most names are in no table)
    if is_own(obj):
        return None
    if name in tables.INTERPRETER_DUNDERS:
        return tables.INTERPRETER_DUNDERS[name]
    if name in tables.DENIED_ATTRIBUTES:
        return tables.DENIED_ATTRIBUTES[name]
    if name in tables.GRAPH_NODE_ATTRIBUTES and _is_graph_node(obj):
        return tables.GRAPH_NODE_ATTRIBUTES[name]
    return None


def _is_graph_node(obj: object) -> bool:
    graph = sys.modules.get("torch.autograd.graph")
    return graph is not None and isinstance(obj, graph.Node)


def guarded_hasattr(obj: object, name: object) -> bool:
    """`hasattr` under the rules of attribute reads: asking about a closed name is refused
    like reading it."""
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def guarded_setattr(obj: object, name: object, value: object) -> None:
    """`obj.name = value`: the snippet's own objects as it likes; other objects' data, but no
    class or module it did not define (monkeypatching torch would fool the grader), and none
    of their special attributes."""
    _check()
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if type(obj) is ModuleProxy:
        return set_module_attribute(obj, name, value)
    _check_write(obj, name)
    setattr(obj, name, value)


def guarded_delattr(obj: object, name: object) -> None:
    _check()
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    _check_write(obj, name)
    delattr(obj, name)


def _check_write(obj: object, name: str) -> None:
    if type(obj) is ModuleProxy or isinstance(obj, types.ModuleType):
        raise not_available(f"{describe(obj)}.{name} = ...", "a module's globals")
    if isinstance(obj, types.FrameType):
        raise not_available(f"frame.{name} = ...", "frames are read-only")
    reason = closed_reason(obj)
    if reason is not None:
        raise not_available(f"{describe(obj)}.{name} = ...", reason)
    if name in _ALWAYS_CLOSED:
        raise not_available(f"{_short(obj)}.{name} = ...", tables.INTERPRETER_DUNDERS[name])
    if is_own(obj):
        if name == "__class__":
            raise not_available(f"{_short(obj)}.__class__ = ...", "an object keeps its class")
        return
    if isinstance(obj, type):
        raise not_available(
            f"{describe(obj)}.{name} = ...", "changing a class the snippet did not define"
        )
    if name.startswith("__") and name.endswith("__"):
        raise not_available(f"{_short(obj)}.{name} = ...", "special attributes of torch's objects")
    if name in tables.GRAPH_NODE_ATTRIBUTES and _is_graph_node(obj):
        raise not_available(f"{_short(obj)}.{name} = ...", tables.GRAPH_NODE_ATTRIBUTES[name])


class Writer:
    """What `obj.name = v`, `obj[k] = v` and their `del` write through (RestrictedPython's
    `_write_`): each write is judged by its target and its name."""

    __slots__ = ("_target",)

    def __init__(self, target: object) -> None:
        object.__setattr__(self, "_target", target)

    def __setattr__(self, name: str, value: object) -> None:
        guarded_setattr(object.__getattribute__(self, "_target"), name, value)

    def __delattr__(self, name: str) -> None:
        guarded_delattr(object.__getattribute__(self, "_target"), name)

    def __setitem__(self, key: object, value: object) -> None:
        guarded_setitem(object.__getattribute__(self, "_target"), key, value)

    def __delitem__(self, key: object) -> None:
        guarded_delitem(object.__getattribute__(self, "_target"), key)


def guarded_write(obj: object) -> Writer:
    _check()
    return Writer(obj)


def _init_of(obj: object) -> Callable[..., object]:
    """`__init__` runs only on the snippet's own objects: `super().__init__(...)` in its own
    class, `Base.__init__(self, ...)` with its own `self`, `self.__init__()`. Anything else
    (a torch object, a logger, one of grill's) would be re-targeted or re-opened by it."""
    if isinstance(obj, super):
        if is_own(obj):
            return obj.__init__  # type: ignore[misc, no-any-return]  # (its own object's)
        raise not_available(f"super({_short(obj.__self__)}).__init__")  # type: ignore[attr-defined]
    if isinstance(obj, type):
        return _unbound_init(obj)
    if type(obj) in OWN_CLASSES:
        return obj.__init__  # type: ignore[misc, no-any-return]  # (its class is the snippet's)
    raise not_available(
        f"{_short(obj)}.__init__", "re-initialising an object the snippet did not make"
    )


@functools.lru_cache(maxsize=256)
def _unbound_init(base: type) -> Callable[..., object]:
    """`Base.__init__` as a snippet holds it: callable only with the snippet's own `self`."""

    def init(self: object, *args: object, **kwargs: object) -> object:
        if type(self) not in OWN_CLASSES or base not in type(self).__mro__:
            raise not_available(f"{base.__qualname__}.__init__({_short(self)})")
        return base.__init__(self, *args, **kwargs)  # type: ignore[misc]  # (on its own `self`)

    init.__name__ = init.__qualname__ = f"{base.__qualname__}.__init__"
    return stand_in(init)


def _short(obj: object) -> str:
    """A short name for refusals: the class name for instances, the qualname for types."""
    if type(obj) is ModuleProxy:
        return describe(obj)
    return obj.__qualname__ if isinstance(obj, type) else type(obj).__name__


# -- modules --------------------------------------------------------------------------------


def module_attribute(proxy: ModuleProxy, attr: str, *default: object) -> object:
    """`module.attr` for snippet code: the view's offer (os, sys), or the module's attribute
    judged like any value; a submodule only under its own name."""
    _check()
    module, why = proxy_target(proxy)
    path = f"{module}.{attr}"
    if why == settings.KEPT:
        return settings.read(module, attr)
    if why is not None:
        return _toward_settings(path, why)
    if attr.startswith("__") and attr.endswith("__") and attr not in MODULE_DUNDERS:
        raise not_available(path, "a module's own internals")
    if module in VIEWS:
        return view_attribute(module, attr)
    ranked = ranked_now() is not None
    reason = tables.torch_reason(path, ranked) if tables.is_torch(module) else None
    if reason is not None:
        return _toward_settings(path, reason)
    real = sys.modules[module]
    try:
        value = getattr(real, attr)
    except AttributeError:
        # A loaded submodule its package does not hold (`from torch.optim import optimizer`):
        # its proxy, here, before Python's `from ... import` falls back to sys.modules and
        # would hand over the real module.
        submodule = sys.modules.get(path)
        if isinstance(submodule, types.ModuleType):
            return module_proxy(submodule)
        closed = tables.module_reason(path, ranked)
        if closed is not None and installed(path):  # `import logging.config` binds `logging`
            return proxy_for(path, closed)
        if default:
            return default[0]
        raise AttributeError(f"module '{module}' has no attribute '{attr}'") from None
    if attr == "__all__" and isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, types.ModuleType):
        if getattr(value, "__name__", None) != path:  # `torch.os`: not under its own name
            raise not_available(path, "a module reached through another module's globals")
        return module_proxy(value)
    found = replacement(value)
    if found is not value:
        return found
    reason = closed_reason(value)
    if reason is not None:
        raise not_available(path, reason)
    return value


def _toward_settings(path: str, why: str) -> ModuleProxy:
    """A closed path is refused where it is read, but for the way to a compiler's settings
    module (`torch._inductor.config`), which imports."""
    found = settings.toward(path, why)
    if found is None:
        raise not_available(path, why)
    return found


def set_module_attribute(proxy: ModuleProxy, attr: str, value: object) -> None:
    """`torch.backends.cudnn.benchmark = True`: a setting that is a plain value may be changed;
    a function, class or table may not be replaced (that would fool the grader)."""
    _check()
    module, why = proxy_target(proxy)
    if why == settings.KEPT:
        settings.write(module, attr, value)
        return
    path = f"{module}.{attr}"
    real = sys.modules.get(module)
    current = getattr(real, attr, None) if real is not None and why is None else None
    if (
        why is not None
        or module in VIEWS
        or attr.startswith("_")
        or not isinstance(current, PLAIN_VALUES)
        or not isinstance(value, PLAIN_VALUES)
        or current is not None
        and type(value) is not type(current)
    ):
        raise not_available(f"{path} = ...", "only a module's plain settings may be changed")
    setattr(real, attr, value)


on_module_access(module_attribute, set_module_attribute)


# -- calls, items, iteration ------------------------------------------------------------------


_CLASS_FACTORIES: set[int] = set()


def guarded_call(func: Callable[..., object], *args: object, **kwargs: object) -> object:
    """Every call in snippet code: the callee must be open, and so must what it returns. A
    class a call makes for the snippet (`namedtuple`, `Enum('Color', ...)`, `type(...)`) is the
    snippet's own."""
    if _measuring[0]:  # (`_check()`, inline: this runs on every call)
        raise Measuring()
    callee = callable_admitted(func)
    if len(args) == 3 and isinstance(func, type) and issubclass(func, type):
        args = _in_snippet_module(args)
    result = callee(*args, **kwargs)
    if type(result) in OPEN_KINDS:  # (`admit`'s first test; no such value is a class)
        return result
    if (
        isinstance(result, type)
        and result is not func
        and _made_a_class(func, args, kwargs, result)
    ):
        OWN_CLASSES.add(result)
        return result
    return admit(result)


def _made_a_class(
    func: object, args: tuple[object, ...], kwargs: dict[str, object], made: type
) -> bool:
    """Whether this call built `made`, a new class, for the snippet: a class factory
    (`namedtuple`), a metaclass called as `M(name, bases, namespace)`, or an Enum's functional
    API `Enum('Color', 'RED GREEN')` (`type(x)` and `Color(1)` only look one up); where the
    snippet's own metaclass did the making, only as `made_by_snippet` allows."""
    if id(func) in _CLASS_FACTORIES:
        return not _snippet_metaclass_in(func, args, kwargs) or made_by_snippet(made)
    if not isinstance(func, type):
        return False
    if issubclass(func, type):
        return len(args) == 3 and (func not in OWN_CLASSES or made_by_snippet(made))
    return (
        isinstance(func, enum.EnumType)
        and len(args) >= 2
        and (type(func) not in OWN_CLASSES or made_by_snippet(made))
    )


SNIPPET_MODULE = "__main__"
"""The snippet's `__name__`: it runs as a script does."""

_MODULE_OF = type.__dict__["__module__"].__get__
"""A class's `__module__` as type keeps it, past any property its metaclass defines."""


def made_by_snippet(made: type) -> bool:
    """Whether `made`, returned by the snippet's own metaclass, was made in snippet code. Such a
    metaclass may return any class it can reach (`torch.Tensor`, `nn.Module`) instead of a new
    one, and a class it returned must not become the snippet's to change; a class made in
    snippet code carries the snippet's module (its `class` statement's namespace, or
    `type.__new__` called from its code), which a library class never does."""
    return bool(_MODULE_OF(made) == SNIPPET_MODULE)


def _in_snippet_module(args: tuple[object, ...]) -> tuple[object, ...]:
    """`M(name, bases, namespace)`'s arguments with the module plain Python gives the class (the
    caller's, the snippet's), which `type.__new__` would take from this module's frame."""
    name, bases, namespace = args
    if type(namespace) is not dict or "__module__" in namespace:
        return args
    return name, bases, {"__module__": SNIPPET_MODULE, **namespace}


def _snippet_metaclass_in(
    func: object, args: tuple[object, ...], kwargs: dict[str, object]
) -> bool:
    """Whether a class factory that takes bases and keywords (`types.new_class`,
    `dataclasses.make_dataclass`) may have made its class through the snippet's own
    metaclass, or through anything it cannot tell (bases that are not a plain tuple of
    classes, a metaclass that is not a library class)."""
    if func is types.new_class:
        bases = kwargs.get("bases", args[1] if len(args) > 1 else ())
        keywords = kwargs.get("kwds", args[2] if len(args) > 2 else None) or {}
    elif func is dataclasses.make_dataclass:
        bases, keywords = kwargs.get("bases", ()), {}
    else:
        return False  # (`namedtuple`, `NamedTuple`, `TypedDict` take no metaclass)
    if type(bases) is not tuple or type(keywords) is not dict:
        return True
    metaclass = keywords.get("metaclass", type)
    return (
        not isinstance(metaclass, type)
        or metaclass in OWN_CLASSES
        or any(not isinstance(base, type) or type(base) in OWN_CLASSES for base in bases)
    )


def guarded_getitem(container: object, key: object) -> object:
    _check()
    return admit(container[key])  # type: ignore[index]  # any object the snippet subscripts


def guarded_setitem(container: object, key: object, value: object) -> None:
    _check()
    reason = closed_reason(container)
    if reason is not None:
        raise not_available(f"{describe(container)}[...] = ...", reason)
    container[key] = value  # type: ignore[index]


def guarded_delitem(container: object, key: object) -> None:
    _check()
    reason = closed_reason(container)
    if reason is not None:
        raise not_available(f"del {describe(container)}[...]", reason)
    del container[key]  # type: ignore[attr-defined]


_PLAIN_ITERABLES = (range, str, bytes)


def guarded_iter(iterable: Iterable[object]) -> Iterator[object]:
    """`for x in iterable`, unpacking and `*iterable` in snippet code: each item is admitted
    as it comes, whatever holds it."""
    _check()
    if type(iterable) in _PLAIN_ITERABLES:
        return iter(iterable)
    return map(_admit_item, iter(iterable))


def _admit_item(value: object) -> object:
    if _measuring[0]:  # (`_check()`, inline: this runs on every item iterated)
        raise Measuring()
    return admit(value)


def guarded_mapping(mapping: object) -> dict[object, object]:
    """`**mapping` in a call or a dict display: its keys and values admitted."""
    _check()
    keys = mapping.keys()  # type: ignore[attr-defined]
    return {admit(key): admit(mapping[key]) for key in keys}  # type: ignore[index]


def guarded_admit(value: object) -> object:
    """What a parameter, a caught exception, a value sent into a generator or a pattern's
    capture holds, as it arrives in snippet code."""
    _check()
    return admit(value)


def augmented_attribute(obj: object, name: str, op: str, value: object) -> None:
    """`obj.name op= value` where `obj` is not safe to evaluate twice: read, combine, write,
    each judged as on its own."""
    guarded_setattr(obj, name, inplace(op, guarded_getattr(obj, name), value))


def augmented_item(container: object, key: object, op: str, value: object) -> None:
    guarded_setitem(container, key, inplace(op, guarded_getitem(container, key), value))


def inplace(op: str, target: object, value: object) -> object:
    """`x += y` keeps Python's in-place meaning (a tensor's add_, a list's extend)."""
    _check()
    return INPLACE_OPERATORS[op](target, value)


INPLACE_OPERATORS: dict[str, Callable[[object, object], object]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "@=": operator.imatmul,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
}


class GuardedContext:
    """`with cm as x:` in snippet code: `cm` must be open, and what its `__enter__` gives is
    admitted like any value."""

    __slots__ = ("_manager", "_exit")

    def __init__(self, manager: object) -> None:
        kind = type(manager)
        object.__setattr__(self, "_manager", manager)
        object.__setattr__(self, "_exit", kind.__exit__)  # type: ignore[attr-defined]

    def __enter__(self) -> object:
        manager = object.__getattribute__(self, "_manager")
        return admit(type(manager).__enter__(manager))

    def __exit__(self, *exc: object) -> object:
        manager = object.__getattribute__(self, "_manager")
        return object.__getattribute__(self, "_exit")(manager, *exc)


def guarded_with(manager: object) -> GuardedContext:
    _check()
    reason = closed_reason(manager)
    if reason is not None:
        raise not_available(f"with {describe(manager)}", reason)
    return GuardedContext(manager)


def guarded_decorator(decorator: object) -> Callable[[object], object]:
    """`@decorator` in snippet code: called as any call is, its result admitted."""
    _check()
    return functools.partial(guarded_call, decorator)  # type: ignore[arg-type]  # (checked there)


# -- classes ------------------------------------------------------------------------------------


class ClassMaker:
    """What a snippet's `class` statement builds with: the metaclass its bases (or its own
    `metaclass=`) call for, through that metaclass's own `__prepare__` (an Enum body needs
    its namespace), and the class remembered as the snippet's."""

    __slots__ = ()

    def __prepare__(
        self, name: str, bases: tuple[type, ...], **kwargs: object
    ) -> Mapping[str, object]:
        meta = _metaclass(bases, kwargs)
        prepare = getattr(meta, "__prepare__", None)
        return prepare(name, bases, **_class_keywords(kwargs)) if prepare else {}

    def __call__(
        self, name: str, bases: tuple[type, ...], namespace: dict[str, object], **kwargs: object
    ) -> type:
        meta = _metaclass(bases, kwargs)
        cls: type = meta(name, bases, namespace, **_class_keywords(kwargs))
        if meta not in OWN_CLASSES or made_by_snippet(cls):
            OWN_CLASSES.add(cls)
        return cls


GRILL_META = "__grill_meta__"
"""The keyword a `class X(metaclass=M)` statement's M travels under to `ClassMaker`."""


def _metaclass(bases: tuple[type, ...], kwargs: Mapping[str, object]) -> type:
    explicit = kwargs.get(GRILL_META)
    meta: type = type if explicit is None else callable_admitted(explicit)  # type: ignore[assignment, arg-type]
    for base in bases:
        reason = closed_reason(base)
        if reason is not None:
            raise not_available(f"class ...({describe(base)})", reason)
        if issubclass(type(base), meta):
            meta = type(base)
    return meta


def _class_keywords(kwargs: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in kwargs.items() if k != GRILL_META}


# -- imports ----------------------------------------------------------------------------------


def guarded_import(
    name: str,
    globals: Mapping[str, object] | None = None,
    locals: Mapping[str, object] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> ModuleProxy | None:
    """`__import__` as snippet code sees it.

    An `import` statement in snippet code gets a proxy: an open module's, a view of os and
    sys, or, for a module the sandbox does not offer but which is installed, one that refuses
    where it is used (so an import in a branch that never runs costs nothing). A module that
    is not installed raises ModuleNotFoundError, as under plain Python. torch's C code can
    also reach this function (C-level imports use the builtins of the frame on top); such
    callers get the real import and a None that no snippet code can receive."""
    caller = sys._getframe(1)
    if is_namespace(caller.f_globals) and _is_import_statement(caller):
        _check()
        if level:
            raise not_available("relative import", "a snippet is one file")
        proxy = import_proxy(name)
        return proxy if fromlist else import_proxy(name.partition(".")[0])
    builtins.__import__(name, globals, locals, fromlist or (), level)
    return None


def import_proxy(name: str) -> ModuleProxy:
    if name in VIEWS:
        return proxy_for(name)
    if name == "os.path":
        return proxy_for("posixpath")
    why = tables.module_reason(name, ranked_now() is not None)
    if why is not None:
        if settings.is_settings(name):
            return proxy_for(name, settings.KEPT)
        if not installed(name):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return proxy_for(name, why)
    module = __import__(name)
    del module
    return proxy_for(name)


def _is_import_statement(frame: types.FrameType) -> bool:
    return frame.f_code.co_code[frame.f_lasti] == dis.opmap["IMPORT_NAME"]


# -- builtins the sandbox polices -------------------------------------------------------------


def refusing_stub(name: str, why: str) -> Callable[..., NoReturn]:
    """A builtin the sandbox does not offer: calling it is a refusal naming it."""

    def refused(*args: object, **kwargs: object) -> NoReturn:
        raise not_available(f"{name}()", why)

    refused.__name__ = refused.__qualname__ = name  # its repr names the builtin, not grill
    refused.__module__ = "builtins"
    return stand_in(refused)


_MISSING = object()


def candidate_getattr(obj: object, name: object, default: object = _MISSING) -> object:
    if default is _MISSING:
        return guarded_getattr(obj, name)
    try:
        return guarded_getattr(obj, name)
    except AttributeError:
        return default


def candidate_vars(*obj: object) -> object:
    if not obj:
        return candidate_locals()
    return guarded_getattr(obj[0], "__dict__")


def candidate_dir(*obj: object) -> list[str]:
    if not obj:
        return sorted(candidate_locals())
    (target,) = obj
    reason = closed_reason(target) if type(target) is not ModuleProxy else None
    if reason is not None:
        raise not_available(f"dir({describe(target)})", reason)
    return dir(target)


def candidate_globals() -> Mapping[str, object]:
    """The snippet's own globals, read-only, without grill's guards."""
    frame = candidate_frame()
    namespace = frame.f_globals if frame is not None else {}
    return types.MappingProxyType(
        {k: v for k, v in namespace.items() if not tables.RESERVED_NAME.fullmatch(k)}
    )


def candidate_locals() -> Mapping[str, object]:
    frame = candidate_frame()
    if frame is None or frame.f_locals is frame.f_globals:
        return candidate_globals()
    return {k: v for k, v in frame.f_locals.items() if not tables.RESERVED_NAME.fullmatch(k)}


def _raw_protocol(real: Callable[..., object], writes: bool) -> Callable[..., object]:
    """`object.__getattribute__`, `object.__setattr__` and their `type` twins as a snippet
    holds them: the same checks as `obj.name` and `obj.name = v`, then the real slot (a
    snippet's own `__getattr__` or `__setattr__` calls them to reach its own storage)."""

    def protocol(obj: object, name: str, *value: object) -> object:
        _check()
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
        if writes:
            _check_write(obj, name)
            return real(obj, name, *value)
        reason = closed_reason(obj) or attribute_reason(obj, name)
        if reason is not None or type(obj) is ModuleProxy:
            raise not_available(f"{_short(obj)}.{name}", reason or "a module's internals")
        return admit(real(obj, name))

    protocol.__name__ = protocol.__qualname__ = real.__name__
    return stand_in(protocol)


def members(real: Callable[..., list[tuple[str, object]]]) -> Callable[..., object]:
    """`inspect.getmembers` (and `getmembers_static`) as the snippet reads: the names it may
    not read are left out, as `dir()` and a failed `getattr` would leave them, and each
    value is what the snippet would get (a graph node's `metadata`, where the grader stamps
    its steps, is not among them)."""

    def getmembers(obj: object, predicate: Callable[[object], object] | None = None) -> object:
        _check()
        reason = closed_reason(obj) if type(obj) is not ModuleProxy else None
        if reason is not None:
            raise not_available(f"inspect.{real.__name__}({describe(obj)})", reason)
        found = []
        for name, value in real(obj):
            if type(obj) is not ModuleProxy and attribute_reason(obj, name) is not None:
                continue
            held = replacement(value)
            if held is value and closed_reason(value) is not None:
                continue
            if predicate is None or guarded_call(predicate, held):
                found.append((name, held))
        return found

    getmembers.__name__ = getmembers.__qualname__ = real.__name__
    return stand_in(getmembers)


def attrgetter(*names: str) -> Callable[[object], object]:
    """`operator.attrgetter` whose reads are snippet reads."""

    def get(obj: object) -> object:
        found = []
        for dotted in names:
            value = obj
            for name in dotted.split("."):
                value = guarded_getattr(value, name)
            found.append(value)
        return found[0] if len(found) == 1 else tuple(found)

    return stand_in(get)


def methodcaller(name: str, /, *args: object, **kwargs: object) -> Callable[[object], object]:
    """`operator.methodcaller` whose method lookups and calls are snippet ones."""

    def call(obj: object) -> object:
        return guarded_call(guarded_getattr(obj, name), *args, **kwargs)  # type: ignore[arg-type]

    return stand_in(call)


def _resolved(path: str) -> Callable[..., object]:
    """The object at `module.qualname` (a table's path)."""
    module, _, qualname = path.partition(".")
    found: object = sys.modules[module]
    for part in qualname.split("."):
        found = getattr(found, part)
    return cast(Callable[..., object], found)


def _own_classes_only(real: Callable[..., object], path: str) -> Callable[..., object]:
    """`real(cls, ...)` (ABCMeta.register) on a class the snippet defined; refused on another."""

    def checked(cls: object, *args: object, **kwargs: object) -> object:
        reason = class_state_reason(real, cls)
        if reason is not None:
            raise not_available(f"{describe(cls)}.{path.rpartition('.')[2]}()", reason)
        return real(cls, *args, **kwargs)

    return stand_in(checked)


def policed_builtins() -> dict[str, object]:
    """The stand-ins a snippet's builtins hold in place of the real ones."""
    stubs = {name: refusing_stub(name, why) for name, why in tables.REFUSED_BUILTINS.items()}
    return {
        **stubs,
        "getattr": stand_in(candidate_getattr),
        "setattr": stand_in(guarded_setattr),
        "delattr": stand_in(guarded_delattr),
        "hasattr": stand_in(guarded_hasattr),
        "vars": stand_in(candidate_vars),
        "dir": stand_in(candidate_dir),
        "globals": stand_in(candidate_globals),
        "locals": stand_in(candidate_locals),
        "open": confined_open,
        "__import__": stand_in(guarded_import),
    }


def install_replacements() -> None:
    """Wherever a snippet would reach the real thing, it gets grill's stand-in."""
    import torch
    import torch.utils.data.dataloader

    descriptors.install(lambda: _measuring[0])
    offered = policed_builtins()
    for name, stand in offered.items():
        real = getattr(builtins, name, None)
        if real is not None:
            replace(real, stand)
    for name in ("exec", "eval", "compile", "breakpoint", "input", "help", "memoryview"):
        replace(getattr(builtins, name), offered[name])
    replace(io.open, confined_open)
    replace(descriptors.REAL_OPEN, confined_open)
    for real, writes in (
        (object.__getattribute__, False),
        (object.__setattr__, True),
        (object.__delattr__, True),
        (type.__getattribute__, False),
        (type.__setattr__, True),
        (type.__delattr__, True),
    ):
        replace(real, _raw_protocol(real, writes))
    replace(operator.attrgetter, stand_in(attrgetter))
    for reader in (inspect.getmembers, inspect.getmembers_static):
        replace(reader, members(reader))
    for path in tables.CLASS_STATE_WRITERS:
        replace(_resolved(path), _own_classes_only(_resolved(path), path))
    replace(inspect.currentframe, stand_in(current_frame))
    replace(inspect.stack, stand_in(own_stack))
    replace(operator.methodcaller, stand_in(methodcaller))
    replace(dataclasses.dataclass, candidate_dataclass)
    replace(torch.utils.data.DataLoader, single_process_data_loader())
    save, load = confined_torch()
    replace(torch.save, save)
    replace(torch.load, load)
    for name, stand in TRACEBACK_STAND_INS.items():
        replace(getattr(traceback, name), stand)
    ranked.install()
    for factory in (
        collections.namedtuple,
        dataclasses.make_dataclass,
        types.new_class,
        typing.NamedTuple,
        typing.TypedDict,
    ):
        _CLASS_FACTORIES.add(id(factory))
        stand_in(factory)


# -- str.format -----------------------------------------------------------------------------


class PolicedFormatter(string.Formatter):
    """`str.format` with each `.attr` and `[key]` of a template field read as snippet code
    reads it: `'{:.4f}'.format(loss)` works, `'{0.__globals__}'.format(f)` is refused."""

    def get_field(
        self, field_name: str, args: Sequence[object], kwargs: Mapping[str, object]
    ) -> tuple[object, str]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = guarded_getattr(obj, key) if is_attribute else guarded_getitem(obj, key)
        return obj, first


def policed_formatter(method: Callable[..., object]) -> Callable[..., object]:
    """The policed stand-in for a `format`/`format_map` method, bound or not."""
    template = getattr(method, "__self__", None)
    if type(template) is str:  # (a str subclass may hash and compare as its own code says)
        return _bound_formatter(template, method.__name__)
    if isinstance(template, str):
        return _formatter(template, method.__name__)

    def policed(template: object, *args: object, **kwargs: object) -> object:
        if not isinstance(template, str):  # str.format(template, ...) read from the class
            raise TypeError(f"descriptor '{method.__name__}' requires a 'str' object")
        return policed_formatter(getattr(template, method.__name__))(*args, **kwargs)

    return _shown_as(policed, method.__name__)


@functools.lru_cache(maxsize=1024)
def _bound_formatter(template: str, name: str) -> Callable[..., object]:
    """One stand-in per template and method, however often a loop reads `'{}'.format`: a new
    stand-in each time would grow the stand-ins by one per step and make the policy forget the
    decisions it remembers (`identity`) at every read."""
    return _formatter(template, name)


def _formatter(template: str, name: str) -> Callable[..., object]:
    formatter = PolicedFormatter()
    policed: Callable[..., object]
    if name == "format_map":

        def policed(mapping: Mapping[str, object]) -> object:
            return formatter.vformat(template, (), mapping)
    else:

        def policed(*args: object, **kwargs: object) -> object:
            return formatter.vformat(template, args, kwargs)

    return _shown_as(policed, name)


def _shown_as(policed: Callable[..., object], name: str) -> Callable[..., object]:
    policed.__name__ = policed.__qualname__ = f"str.{name}"  # what its repr shows
    policed.__module__ = "builtins"
    return stand_in(policed)


replace(string.Formatter, stand_in(PolicedFormatter))
# A refusal the snippet caught is an exception like any other to it: printed, re-raised or
# chained with its own message (the run still ends refused, at the first refusal's line).
stand_in(Refused)
open_type(Refused)


class PolicedStrFormatStyle(logging.StrFormatStyle):
    """logging's `{` style, which formats a snippet's template with the real `str.format`
    inside the standard library, formatting it as the snippet's own `str.format` would."""

    def _format(self, record: logging.LogRecord) -> str:
        values = (self._defaults or {}) | record.__dict__  # type: ignore[attr-defined]  # 3.10+
        return PolicedFormatter().vformat(self._fmt, (), values)


replace(logging.StrFormatStyle, stand_in(PolicedStrFormatStyle))
# `logging.Formatter(style="{")` takes its style from this table: grill logs nothing with `{`
_styles: dict[str, tuple[type, str]] = vars(logging)["_STYLES"]
_styles["{"] = (PolicedStrFormatStyle, _styles["{"][1])
# `str.format` and `str.format_map`, however reached (an attribute, `vars(str)["format"]`,
# `inspect.getmembers`): their templates read attributes and items (`{0.__class__}`) that
# the policy would never see, so they are handed out policed.
for _name in ("format", "format_map"):
    replace(getattr(str, _name), policed_formatter(getattr(str, _name)))
    replace_bound(str, _name, policed_formatter)


# -- print ----------------------------------------------------------------------------------


class PrintSink:
    """Where snippet `print` goes: stdout, truncated after the print limit with a note."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.written = 0
        self._call_print = CandidatePrint(self.write)  # what RestrictedPython's code calls

    def write(
        self,
        *objects: object,
        sep: object = " ",
        end: object = "\n",
        file: object = None,
        flush: object = False,
    ) -> None:
        _check()
        if file is not None and file is not sys.stdout and file is not sys.stderr:
            raise not_available("print(file=...)", "print goes to the run's output")
        text = (sep if isinstance(sep, str) else " ").join(map(str, objects)) + (
            end if isinstance(end, str) else "\n"
        )
        if self.written >= self.limit:
            return
        room = self.limit - self.written
        if len(text) > room:
            text = text[:room] + f"\n[output truncated after {self.limit} characters]\n"
        self.written += len(text)
        stream = sys.stderr if file is sys.stderr else sys.stdout
        if stream is not None:
            stream.write(text)

    def __call__(self) -> str:
        return ""


class CandidatePrint:
    """`print` as the snippet holds it (`print(print)`, `key=print`): it prints, and its
    repr and format name nothing of grill."""

    __slots__ = ("_write",)

    def __init__(self, write: Callable[..., None]) -> None:
        object.__setattr__(self, "_write", write)

    def __call__(self, *objects: object, **options: object) -> None:
        object.__getattribute__(self, "_write")(*objects, **options)

    def __setattr__(self, name: str, value: object) -> None:
        raise not_available(f"print.{name} = ...")

    def __repr__(self) -> str:
        return "<built-in function print>"

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)


open_type(CandidatePrint)
