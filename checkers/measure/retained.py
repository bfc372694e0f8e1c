"""Find everything that still holds an autograd graph, and say how the snippet reaches it.

The scan starts from the snippet's names (module globals, and the locals of its frames still
running) and goes breadth-first through containers (dict keys included), object and class
attributes, the closures and default arguments of functions the snippet defined,
`functools.partial` arguments and the locals of the snippet's paused generators, so the
first path found is the shortest: `running`, `losses[17]`, `cache['h'][3]`,
`tracker.history[-1]`. A holder is a tensor with a `grad_fn`, or a graph node kept on its
own (`loss.grad_fn` stored without its tensor). Parameters and other leaf tensors hold no
graph and are not reported; a leaf's `.grad` is, when it has one (`create_graph=True`).

It reads real storage only (`checkers.measure.storage`): no method a snippet could define
is ever called, dict keys are rendered without `repr` of the snippet's objects, and the
walk is iterative with caps on the objects it visits, the items it reads from one
container and its depth. What the caps leave unread is counted (`HolderScan.unread`): a
holder the scan could not reach is not proof that there is none.
"""

from __future__ import annotations

import types
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import torch

from checkers.measure import storage
from checkers.policy import Measuring

_EXCEPTION_PARTS = tuple(
    (f".{name}", BaseException.__dict__[name])
    for name in ("args", "__traceback__", "__cause__", "__context__")
)
"""What an exception holds, read through BaseException's own descriptors (never a property
a subclass of the snippet's defines)."""

MAX_OBJECTS = 100_000
"""Objects one scan visits at most (holders included)."""
MAX_ITEMS = 20_000
"""Items read from one container at most."""
MAX_DEPTH = 10_000
"""Steps from a root at most."""
PATH_HEAD = 6
PATH_TAIL = 5
"""A path deeper than HEAD + TAIL steps is written with its first and last steps only."""
KEY_WIDTH = 40
"""Characters of a dict key shown in a path."""
ELIDED = "…"

_ATOMS = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    bytearray,
    range,
    slice,
    torch.dtype,
    torch.device,
    torch.Size,
    types.ModuleType,
    types.CodeType,
    type(Ellipsis),
    type(NotImplemented),
)
_ATOM_IDS = frozenset(id(kind) for kind in _ATOMS)
_MODULE_TABLES = ("_parameters", "_buffers", "_modules")
_CONTAINER_KINDS = {list: "list", tuple: "tuple", deque: "deque", dict: "dict", set: "set"}
_CONTAINER_KINDS[frozenset] = "set"


@dataclass(frozen=True)
class Found:
    path: str
    holder: torch.Tensor | torch.autograd.graph.Node
    steps: tuple[str, ...] = ()
    """The path's steps (`history`, `[3]`, `['loss']`, `.h`); an elided middle is `…`."""
    kinds: tuple[str, ...] = ()
    """What each step reached: `tensor`, `node`, `object`, `module`, `function`, `class`,
    or a container with its length (`list:40`, `tuple:2`, `dict:3`, `deque:8`, `set:5`)."""

    @property
    def root(self) -> torch.autograd.graph.Node | None:
        """The graph node the holder keeps alive (None only if torch now refuses a tensor's
        `grad_fn`, which it gave when the holder was found)."""
        if storage.is_a(self.holder, torch.Tensor):
            return storage.grad_fn(self.holder)  # type: ignore[arg-type]
        return self.holder  # type: ignore[return-value]


def grad_fn_of(tensor: torch.Tensor) -> torch.autograd.graph.Node | None:
    """`tensor.grad_fn`, read from the C++ tensor (see `checkers.measure.storage.grad_fn`)."""
    return storage.grad_fn(tensor)


def is_grader_name(name: object) -> bool:
    """Names the sandbox or grader put in the namespace (`_getattr_`, `__grill_step__`...)."""
    if type(name) is not str:
        return False
    return (
        name.startswith("__") or (name.startswith("_") and name.endswith("_")) or name == "_print"
    )


@dataclass(slots=True)
class _Entry:
    parent: _Entry | None
    step: str
    kind: str
    depth: int
    head: tuple[tuple[str, str], ...]


@dataclass
class HolderScan:
    """One walk from `roots`: iterate it for the holders; after that, how much it read."""

    roots: Mapping[str, object]
    filename: str
    max_objects: int = MAX_OBJECTS
    limit: int | None = None
    """Holders to find at most (the rest is counted as unread)."""
    visited: int = 0
    unread: int = 0
    """Objects the caps left unread (items past MAX_ITEMS, past MAX_DEPTH, past
    MAX_OBJECTS): where a holder could still be."""
    _snippet_classes: dict[int, tuple[type, bool]] = field(default_factory=dict)

    @property
    def capped(self) -> bool:
        return self.unread > 0

    def __iter__(self) -> Iterator[Found]:
        return iter(self.walk())

    def walk(self) -> list[Found]:
        """The holders, shortest paths first (at most `limit`), read with torch functions
        disabled so no tensor subclass's `__torch_function__` answers a getter."""
        with torch._C.DisableTorchFunction():
            return self._walk()

    def _walk(self) -> list[Found]:
        found: list[Found] = []
        queue: deque[tuple[object, _Entry]] = deque()
        for name, value in storage.pairs(self.roots, MAX_ITEMS)[0]:
            if not is_grader_name(name):
                self._push(queue, value, None, _name(name), False)
        seen: set[int] = {id(self.roots)}
        named: set[int] = set()
        """Objects first walked as a root name (`states`), walked once more where a container
        holds them too (`hidden_history[29]` is the same tuple): the container counts whole."""
        while queue:
            if self.visited >= self.max_objects or (
                self.limit is not None and len(found) >= self.limit
            ):
                self.unread += len(queue)
                break
            value, entry = queue.popleft()
            self.visited += 1
            if entry.kind == "node":
                found.append(self._found(entry, value))
                continue
            if entry.kind == "tensor":
                found.extend(self._tensor(queue, value, entry))  # type: ignore[arg-type]
                continue
            if id(value) in seen:
                if id(value) not in named or entry.depth == 0:
                    continue
                named.discard(id(value))
            else:
                seen.add(id(value))
                if entry.depth == 0:
                    named.add(id(value))
            if entry.depth >= MAX_DEPTH:
                self.unread += 1
                continue
            for step, child, fresh in self._children(value, entry):
                self._push(queue, child, entry, step, fresh)
        return found

    # -- one object -------------------------------------------------------------------------

    def _push(
        self,
        queue: deque[tuple[object, _Entry]],
        value: object,
        parent: _Entry | None,
        step: str,
        fresh: bool,
    ) -> None:
        """Queue `value` reached from `parent` by `step` (`fresh`: a new root, such as a class
        reached from its instance, or a global a function names)."""
        if id(type(value)) in _ATOM_IDS or _is_grill_object(value):
            return
        if len(queue) + self.visited >= self.max_objects:
            self.unread += 1
            return
        if fresh:
            parent = None
        depth = parent.depth + 1 if parent is not None else 0
        kind = _kind(value)
        head = parent.head if parent is not None else ()
        if len(head) < PATH_HEAD:
            head = (*head, (step, kind))
        queue.append((value, _Entry(parent, step, kind, depth, head)))

    def _found(self, entry: _Entry, holder: object) -> Found:
        steps = _steps(entry)
        path = "".join(step for step, _ in steps)
        return Found(
            path,
            holder,  # type: ignore[arg-type]
            tuple(step for step, _ in steps),
            tuple(kind for _, kind in steps),
        )

    def _tensor(
        self, queue: deque[tuple[object, _Entry]], tensor: torch.Tensor, entry: _Entry
    ) -> Iterator[Found]:
        if storage.grad_fn(tensor) is not None:
            yield self._found(entry, tensor)
        else:
            grad = storage.grad(tensor)
            if grad is not None and storage.grad_fn(grad) is not None:
                yield self._found(
                    _Entry(entry, ".grad", "tensor", entry.depth + 1, entry.head), grad
                )
        hooks = storage.backward_hooks(tensor)
        if hooks is not None:
            self._push(queue, hooks, entry, "._backward_hooks", False)

    def _children(self, value: object, entry: _Entry) -> Iterator[tuple[str, object, bool]]:
        kind = storage.container_kind(value)
        if kind is not None:
            yield from self._container(value, kind)
            if kind is dict or not storage.is_heap_type(type(value)):
                return
            # a subclass of a container may carry attributes too (a list with a `.meta`)
        cls = type(value)
        if cls is types.FunctionType:
            if value.__code__.co_filename == self.filename:  # type: ignore[attr-defined]
                yield from _function_children(value)  # type: ignore[arg-type]
        elif cls is types.MethodType:
            yield "", value.__self__, False  # type: ignore[attr-defined]
            yield "", value.__func__, False  # type: ignore[attr-defined]
        elif cls is types.BuiltinMethodType:  # `history.append` handed around as a callback
            yield ".__self__", value.__self__, False  # type: ignore[attr-defined]
        elif cls is types.CellType:
            try:
                yield "", value.cell_contents, False  # type: ignore[attr-defined]
            except ValueError:
                pass
        elif cls is types.GeneratorType:  # a coroutine-style meter's running state
            frame = value.gi_frame  # type: ignore[attr-defined]
            if frame is not None and frame.f_code.co_filename == self.filename:
                for name, item in storage.pairs(frame.f_locals, MAX_ITEMS)[0]:
                    yield f".<locals>.{_name(name)}", item, False
        elif storage.is_sub(cls, BaseException):  # a caught exception kept for a report
            for name, descriptor in _EXCEPTION_PARTS:
                part = descriptor.__get__(value, cls)
                if name == ".args" and type(part) is tuple:
                    for index, item in enumerate(part):
                        yield f".args[{index}]", item, False
                elif part is not None:
                    yield name, part, False
            yield from self._attributes(value)
        elif cls is types.TracebackType:  # its frames keep their locals alive
            frame = value.tb_frame  # type: ignore[attr-defined]
            # (a module's frame holds its globals, which are roots of their own)
            if frame.f_code.co_filename == self.filename and frame.f_locals is not frame.f_globals:
                for name, item in storage.pairs(frame.f_locals, MAX_ITEMS)[0]:
                    yield f".<{frame.f_code.co_name} locals>.{_name(name)}", item, False
            if value.tb_next is not None:  # type: ignore[attr-defined]
                yield ".tb_next", value.tb_next, False  # type: ignore[attr-defined]
        elif storage.is_sub(cls, type):
            if self._defined_by_snippet(value):  # type: ignore[arg-type]
                for name, item in storage.namespace(value):  # type: ignore[arg-type]
                    if not (type(name) is str and name.startswith("__")):
                        yield f".{_name(name)}", item, False
        elif storage.is_sub(cls, functools_partial()):
            func, args, keywords = storage.partial_parts(value)
            yield ".func", func, False
            if type(args) is tuple:
                for index, item in enumerate(args):
                    yield f".args[{index}]", item, False
            if type(keywords) is dict:
                for name, item in storage.pairs(keywords, MAX_ITEMS)[0]:
                    yield f".keywords[{_key(name)}]", item, False
        else:
            yield from self._attributes(value)

    def _container(self, value: object, kind: type) -> Iterator[tuple[str, object, bool]]:
        found, more = storage.items(value, kind, MAX_ITEMS)
        if more:
            self.unread += 1
        if kind is dict:
            entries = cast("list[tuple[object, object]]", found)
            for index, (key, item) in enumerate(entries):
                yield f"[{_key(key)}]", item, False
                if id(type(key)) not in _ATOM_IDS:
                    yield f".<keys>[{index}]", key, False  # a key can hold a graph too
        elif kind in (set, frozenset):
            for item in found:
                yield "{...}", item, False
        else:
            for index, item in enumerate(found):
                yield f"[{index}]", item, False

    def _attributes(self, value: object) -> Iterator[tuple[str, object, bool]]:
        attributes = storage.instance_dict(value)
        is_module = storage.is_a(value, torch.nn.Module)
        if attributes is not None:
            for name, item in storage.pairs(attributes, MAX_ITEMS)[0]:
                if (
                    is_module
                    and type(name) is str
                    and name in _MODULE_TABLES
                    and storage.container_kind(item) is dict
                ):
                    for inner, child in storage.pairs(item, MAX_ITEMS)[0]:
                        yield f".{_name(inner)}", child, False
                else:
                    yield f".{_name(name)}", item, False
        else:
            for item in storage.hidden_attributes(value):
                yield ".<attribute>", item, False
        for name, item in storage.slot_values(value):
            yield f".{name}", item, False
        cls = type(value)
        if self._defined_by_snippet(cls):
            yield storage.type_name(cls), cls, True

    def _defined_by_snippet(self, cls: type) -> bool:
        known = self._snippet_classes.get(id(cls))
        if known is not None and known[0] is cls:
            return known[1]
        own = any(
            isinstance(member, types.FunctionType)
            and type(member) is types.FunctionType
            and member.__code__.co_filename == self.filename
            for _, member in storage.namespace(cls)
        )
        self._snippet_classes[id(cls)] = (cls, own)
        return own


def graph_holders(roots: Mapping[str, object], filename: str) -> Iterator[Found]:
    """Each graph-bearing tensor or kept graph node reachable from `roots`, shortest paths
    first. A holder reached by several paths (`loss`, and `losses[2]` which holds the same
    tensor) is yielded under each, so a container is counted whole; containers and objects
    are walked once."""
    return iter(HolderScan(roots, filename))


def frame_roots(frames: Sequence[types.FrameType]) -> dict[str, object]:
    """The names running snippet frames see, innermost first: a function's locals win over
    the module's globals."""
    roots: dict[str, object] = {}
    for frame in frames:
        for name, value in storage.pairs(frame.f_locals, MAX_ITEMS)[0]:
            if type(name) is str and name not in roots:
                roots[name] = value
    for frame in frames:
        if frame.f_locals is not frame.f_globals:
            for name, value in storage.pairs(frame.f_globals, MAX_ITEMS)[0]:
                if type(name) is str and name not in roots:
                    roots[name] = value
    return roots


def functools_partial() -> type:
    import functools

    return functools.partial


def _function_children(function: types.FunctionType) -> Iterator[tuple[str, object, bool]]:
    """A snippet function's closure, defaults, and the module globals it names (a helper that
    keeps losses in a global it was never passed)."""
    module = function.__globals__
    for name in function.__code__.co_names:
        if is_grader_name(name) or type(module) is not dict:
            continue
        value = dict.get(module, name)
        if (
            value is not None
            and not storage.is_a(value, type)
            and type(value) is not types.FunctionType
        ):
            yield name, value, True
    cells = function.__closure__ or ()
    for name, cell in zip(function.__code__.co_freevars, cells, strict=False):
        try:
            yield f".<closure>.{name}", cell.cell_contents, False
        except ValueError:  # a cell not yet assigned
            continue
    for index, default in enumerate(function.__defaults__ or ()):
        yield f".<defaults>[{index}]", default, False
    kwdefaults = function.__kwdefaults__
    if type(kwdefaults) is dict:
        for key, value in storage.pairs(kwdefaults, MAX_ITEMS)[0]:
            yield f".<defaults>.{_name(key)}", value, False


def _steps(entry: _Entry) -> list[tuple[str, str]]:
    """The path's (step, kind) pairs, root first; a deep one keeps its head and tail."""
    tail: list[tuple[str, str]] = []
    node: _Entry | None = entry
    while node is not None and len(tail) < PATH_TAIL + 1:
        tail.append((node.step, node.kind))
        node = node.parent
    tail.reverse()
    if entry.depth + 1 <= PATH_HEAD + PATH_TAIL:
        whole: list[tuple[str, str]] = []
        node = entry
        while node is not None:
            whole.append((node.step, node.kind))
            node = node.parent
        whole.reverse()
        return whole
    return [*entry.head, (ELIDED, ""), *tail[-PATH_TAIL:]]


_type_kinds: dict[int, tuple[type, str, type | None]] = {}


def _kind(value: object) -> str:
    """What a path's step reached (see `Found.kinds`): the type's kind, kept per type (it is
    read from the real MRO, which `storage` keeps per class too), with a container's length."""
    cls = type(value)
    known = _type_kinds.get(id(cls))
    if known is None or known[0] is not cls:
        known = (cls, *_type_kind(cls, value))
        if len(_type_kinds) < 65_536:
            _type_kinds[id(cls)] = known
    container = known[2]
    if container is not None:
        return f"{_CONTAINER_KINDS[container]}:{container.__len__(value)}"  # type: ignore[index, attr-defined]
    return known[1]


def _type_kind(cls: type, value: object) -> tuple[str, type | None]:
    """The kind of every value of `cls`, or the base container type whose length completes it."""
    if storage.is_sub(cls, torch.Tensor):
        return "tensor", None
    if storage.is_node(value):
        return "node", None
    container = storage.container_kind(value)
    if container is not None:
        return "", container
    if any(cls is kind for kind in (types.FunctionType, types.MethodType, types.BuiltinMethodType)):
        return "function", None
    if storage.is_sub(cls, torch.nn.Module):
        return "module", None
    if storage.is_sub(cls, type):
        return "class", None
    if storage.is_sub(cls, BaseException):
        return "exception", None
    return "object", None


def _is_grill_object(value: object) -> bool:
    """The sandbox's capability proxies and the grader's own objects: not the snippet's data."""
    return storage.module_of(type(value)).startswith("checkers.")


def _name(name: object) -> str:
    """A name as it appears in a path: itself when it is a plain string, else its key form."""
    return name if type(name) is str else _key(name)


def _key(key: object, depth: int = 0) -> str:
    """A dict key as a path shows it, without calling anything of the snippet's: the plain
    values grill knows (strings, numbers, None, and tuples of them), else `<TypeName>`."""
    cls = type(key)
    if isinstance(key, str) and cls is str:
        text = str.__repr__(key)
    elif cls is bool or key is None:
        text = "True" if key is True else "False" if key is False else "None"
    elif isinstance(key, int) and cls is int:
        text = int.__repr__(key)
    elif isinstance(key, float) and cls is float:
        text = float.__repr__(key)
    elif isinstance(key, tuple) and cls is tuple and depth < 2:
        parts: list[str] = [_key(part, depth + 1) for part in list(tuple.__iter__(key))[:4]]
        more = ", …" if tuple.__len__(key) > 4 else ("," if len(parts) == 1 else "")
        text = f"({', '.join(parts)}{more})"
    else:
        text = f"<{storage.type_name(cls)}>"
    return text if len(text) <= KEY_WIDTH else text[: KEY_WIDTH - 1] + ELIDED


_SAVED_NAMES: dict[int, tuple[type, tuple[str, ...]]] = {}


def saved_tensors(node: object) -> Iterator[torch.Tensor]:
    """The tensors a graph node saved for its backward, while it still holds them. Only for
    nodes whose saved values no hook of the snippet's packs (see the ledger's `hooked`):
    reading one runs its unpack hook."""
    cls = type(node)
    cached = _SAVED_NAMES.get(id(cls))
    if cached is None or cached[0] is not cls:
        names = tuple(
            name
            for klass in storage.mro(cls)
            for name, _ in storage.namespace(klass)
            if type(name) is str and name.startswith("_saved_")
        )
        cached = _SAVED_NAMES[id(cls)] = (cls, names)
    for name in cached[1]:
        try:
            value = getattr(node, name)
        except RuntimeError:  # freed by backward(): it holds nothing any more
            continue
        except Measuring:  # its unpack hook is the snippet's (or recomputes it: checkpoint)
            continue
        for item in value if type(value) is tuple or type(value) is list else (value,):
            if storage.is_a(item, torch.Tensor):
                yield item
