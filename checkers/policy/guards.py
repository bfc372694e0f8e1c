"""The runtime half of the sandbox policy: what RestrictedPython's rewritten code calls for
every attribute read and write, call, item, iteration, import and print of a snippet.

Every value that enters snippet code from outside it passes `identity.admit`, and every callee
`identity.callable_admitted` (see `checkers.policy.identity` for the model). Names with one leading
underscore are the snippet's own business on its own objects; torch's private names and every
dunder stay closed. Imported by the sandbox child and the grader's in-process tests only.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # CPython's str.format internals: no stub
import builtins
import dis
import functools
import operator
import string
import sys
import types
import weakref
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from typing import NoReturn, cast

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from checkers.policy import tables
from checkers.policy.identity import (
    ModuleProxy,
    admit,
    callable_admitted,
    closed_reason,
    describe,
    import_proxy,
    instance_private,
    is_graph_node,
    open_type,
    proxied_name,
)
from checkers.policy.refusal import (
    CANDIDATE_MARK,
    PRIVATE_NAMES,
    candidate_classes,
    candidate_frame,
    not_available,
)
from checkers.policy.standins import stand_in

INIT = "__init__"
STR_FORMATTERS = (str.format, str.format_map)

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

# -- attributes -------------------------------------------------------------------------------


def guarded_getattr(obj: object, name: object, *default: object) -> object:
    """`obj.name` in snippet code (RestrictedPython rewrites every attribute read to this)."""
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if isinstance(obj, types.ModuleType):
        # A real module a torch function handed back (torch.get_device_module()): read it
        # as its proxy would be read, or not at all.
        if obj.__name__ not in tables.ALLOWED_MODULES:
            raise not_available(f"{obj.__name__}.{name}")
        obj = ModuleProxy(obj.__name__)
    if isinstance(obj, ModuleProxy):
        if name.startswith("_"):
            raise not_available(f"{proxied_name(obj)}.{name}")
        return getattr(obj, name, *default)
    if closed_reason(obj) is not None:
        raise not_available(f"{describe(obj)}.{name}")
    if name == INIT:
        return _init_of(obj)
    if name.startswith("_"):
        _check_private(obj, name)
    elif (
        name in INSPECT_ATTRIBUTES
        or name in tables.DENIED_ATTRIBUTES
        or (name in tables.DENIED_NODE_ATTRIBUTES and is_graph_node(obj))
    ):
        raise not_available(f"{short_name(obj)}.{name}")
    value = getattr(obj, name, *default)
    if is_str_formatter(value):
        return policed_formatter(value)
    if isinstance(value, types.ModuleType):
        if value.__name__ not in tables.ALLOWED_MODULES:
            raise not_available(f"{short_name(obj)}.{name}")
        return ModuleProxy(value.__name__)
    return admit(value)


def guarded_hasattr(obj: object, name: object) -> bool:
    """`hasattr` under the same rules as attribute reads: asking about a closed name is
    refused like reading it."""
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def _check_private(obj: object, name: str) -> None:
    """`obj._name`: only a name the snippet itself declares, on an object of its own, and
    never one that torch's classes (or torch's per-instance state) already use."""
    owned = obj if isinstance(obj, type) else type(obj)
    if isinstance(obj, super):
        owned = obj.__thisclass__  # type: ignore[attr-defined]  # (typeshed omits it)
    classes = candidate_classes()
    if (
        name.startswith("__")
        or name not in _private_names()
        or owned not in classes
        and not any(base in classes for base in owned.__mro__)
    ):
        raise not_available(f"{short_name(obj)}.{name}")
    if torch_uses(owned, name, classes):
        raise not_available(f"{short_name(obj)}.{name}")


def torch_uses(cls: type, name: str, classes: Container[type]) -> bool:
    """Whether a class the snippet did not write, in `cls`'s hierarchy, defines or keeps `name`
    (nn.Module's `_parameters`, an optimizer's `_optimizer_step_code`, a DataLoader's
    `_get_iterator`)."""
    for base in cls.__mro__:
        if base not in classes and (name in vars(base) or name in instance_private(base)):
            return True
    return False


def _private_names() -> frozenset[str]:
    frame = candidate_frame()
    return frame.f_globals.get(PRIVATE_NAMES, frozenset()) if frame is not None else frozenset()


def write_private(obj: object, name: str) -> object:
    """Target of `obj._name = ...` / `del obj._name`: the same rule as reading it."""
    guarded_write(obj)
    _check_private(obj, name)
    return obj


def guarded_write(obj: object) -> object:
    """`obj.x = ...` / `obj[k] = ...` target: any open object, but no module and no class the
    snippet did not define (monkeypatching torch would fool the grader). Module proxies refuse
    writes themselves."""
    if isinstance(obj, types.ModuleType):
        raise not_available(f"module {obj.__name__} attributes")
    if isinstance(obj, type) and obj not in candidate_classes():
        raise not_available(f"{obj.__qualname__} attributes")
    if closed_reason(obj) is not None:
        raise not_available(f"{describe(obj)} attributes")
    return obj


def _init_of(obj: object) -> Callable[..., object]:
    """`__init__` runs only on the snippet's own objects: `super().__init__(...)` in its own
    class, `Base.__init__(self, ...)` with its own `self`, `self.__init__()`. Anything else
    (a proxy, a torch object, a logger) would be re-targeted or re-opened by it."""
    classes = candidate_classes()
    if isinstance(obj, super):
        target = obj.__self__  # type: ignore[attr-defined]  # (typeshed omits it)
        if type(target) in classes or isinstance(target, type) and target in classes:
            # (a bound __init__, of the snippet's own object)
            return obj.__init__  # type: ignore[misc, no-any-return]
        raise not_available(f"super({short_name(target)}).__init__")
    if isinstance(obj, type):
        return _unbound_init(obj)
    if type(obj) in classes:
        return obj.__init__  # type: ignore[misc, no-any-return]  # (its class is the snippet's)
    raise not_available(f"{short_name(obj)}.__init__")


@functools.lru_cache(maxsize=256)
def _unbound_init(base: type) -> Callable[..., object]:
    """`Base.__init__` as a snippet holds it: callable only with the snippet's own `self`."""

    def init(self: object, *args: object, **kwargs: object) -> object:
        if type(self) not in candidate_classes() or base not in type(self).__mro__:
            raise not_available(f"{base.__qualname__}.__init__({short_name(self)})")
        return base.__init__(self, *args, **kwargs)  # type: ignore[misc]  # (on its own `self`)

    init.__name__ = init.__qualname__ = f"{base.__qualname__}.__init__"
    return stand_in(init)


def short_name(obj: object) -> str:
    """A short name for refusals: the class name for instances, the qualname for types."""
    if isinstance(obj, ModuleProxy):
        return proxied_name(obj)
    return obj.__qualname__ if isinstance(obj, type) else type(obj).__name__


# -- calls, items, iteration ------------------------------------------------------------------


def guarded_call(func: Callable[..., object], *args: object, **kwargs: object) -> object:
    """Every call in snippet code: the callee must be open, and so must what it returns. A
    class a call makes for the snippet (`namedtuple`, `Enum('Color', ...)`) takes the module of
    its caller, which is this guard's: it is the snippet's own, and said to be."""
    result = callable_admitted(func)(*args, **kwargs)
    if isinstance(result, type) and result.__module__ == __name__:
        result.__module__ = "__main__"
        # called from snippet code, whose namespace holds the set (never the empty tuple)
        cast("weakref.WeakSet[type]", candidate_classes()).add(result)
    return admit(result)


def guarded_getitem(container: object, key: object) -> object:
    return admit(container[key])  # type: ignore[index]  # any object the snippet subscripts


def guarded_iter(iterable: Iterable[object]) -> Iterator[object]:
    """`for x in iterable` in snippet code: each item is admitted as it comes."""
    if type(iterable) in (list, tuple, range, str, dict, set, frozenset):
        return iter(iterable)  # values in these were admitted when they reached the snippet
    return map(admit, iter(iterable))


def inplace(op: str, target: object, value: object) -> object:
    """`x += y` keeps Python's in-place meaning (a tensor's add_, a list's extend)."""
    return INPLACE_OPERATORS[op](target, value)


# -- imports ----------------------------------------------------------------------------------


def guarded_import(
    name: str,
    globals: Mapping[str, object] | None = None,
    locals: Mapping[str, object] | None = None,
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> ModuleProxy | None:
    """`__import__` as snippet code sees it.

    An `import` statement in snippet code gets a capability proxy. torch's C code can also
    reach this function (C-level imports look `__import__` up in the builtins of the frame on
    top, which may be the snippet's); such callers read the module from sys.modules, so they
    get the real import and a None that no snippet code can receive."""
    caller = sys._getframe(1)
    if caller.f_globals.get(CANDIDATE_MARK) and is_import_statement(caller):
        if level:
            raise not_available("relative import")
        proxy = import_proxy(name)
        return proxy if fromlist else import_proxy(name.partition(".")[0])
    builtins.__import__(name, globals, locals, fromlist, level)
    return None


def is_import_statement(frame: types.FrameType) -> bool:
    return frame.f_code.co_code[frame.f_lasti] == dis.opmap["IMPORT_NAME"]


# -- builtins the sandbox replaces --------------------------------------------------------------


def refusing_stub(name: str) -> Callable[..., NoReturn]:
    """A builtin the sandbox does not offer: calling it is a refusal naming it."""

    def refused(*args: object, **kwargs: object) -> NoReturn:
        raise not_available(f"{name}()")

    refused.__name__ = refused.__qualname__ = name  # its repr names the builtin, not grill
    refused.__module__ = "builtins"
    return stand_in(refused)


def is_str_formatter(value: object) -> bool:
    """`str.format` and `str.format_map`, however reached (`'...'.format`, `S.format` on a
    str subclass, `super().format`): their templates read attributes and items
    (`{0.__class__}`) that the policy would never see, so they are handed out policed."""
    if isinstance(value, types.BuiltinMethodType) and isinstance(value.__self__, str):
        return value.__name__ in ("format", "format_map")
    return any(value is formatter for formatter in STR_FORMATTERS)


class PolicedFormatter(string.Formatter):
    """`str.format` with each `.attr` and `[key]` of a template field read as snippet code
    reads it: `'{:.4f}'.format(loss)` works, `'{0.__class__}'.format(1)` is refused."""

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
    formatter = PolicedFormatter()
    template = getattr(method, "__self__", None)
    policed: Callable[..., object]
    if not isinstance(template, str):  # str.format(template, ...) read from the class

        def policed(template: object, *args: object, **kwargs: object) -> object:
            if not isinstance(template, str):
                raise TypeError(f"descriptor '{method.__name__}' requires a 'str' object")
            return policed_formatter(getattr(template, method.__name__))(*args, **kwargs)
    elif method.__name__ == "format_map":

        def policed(mapping: Mapping[str, object]) -> object:
            return formatter.vformat(template, (), mapping)
    else:

        def policed(*args: object, **kwargs: object) -> object:
            return formatter.vformat(template, args, kwargs)

    policed.__name__ = policed.__qualname__ = f"str.{method.__name__}"  # what its repr shows
    policed.__module__ = "builtins"
    return stand_in(policed)


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
        if file is not None:
            raise not_available("print(file=...)")
        text = (sep if isinstance(sep, str) else " ").join(map(str, objects)) + (
            end if isinstance(end, str) else "\n"
        )
        if self.written >= self.limit:
            return
        room = self.limit - self.written
        if len(text) > room:
            text = text[:room] + f"\n[output truncated after {self.limit} characters]\n"
        self.written += len(text)
        sys.stdout.write(text)

    def __call__(self) -> str:
        return ""


class CandidatePrint:
    """`print` as the snippet holds it (`print(print)`, `key=print`): it prints, and its
    repr and format name nothing of grill."""

    __slots__ = ("_write",)

    def __init__(self, write: Callable[..., None]) -> None:
        self._write = write

    def __call__(self, *objects: object, **options: object) -> None:
        return self._write(*objects, **options)

    def __repr__(self) -> str:
        return "<built-in function print>"

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)


open_type(CandidatePrint)
