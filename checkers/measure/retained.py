"""Find everything that still holds an autograd graph, and say how the snippet reaches it.

The scan starts from the snippet's names (module globals, and the locals of its frames still
running) and goes breadth-first through containers at any depth, object and class
attributes, the closures and default arguments of functions the snippet defined,
`functools.partial` arguments and the locals of the snippet's paused generators, so the
first path found is the shortest: `running`, `losses[17]`, `cache['h'][3]`,
`tracker.history[-1]`. A holder is a tensor with a `grad_fn`, or a graph node kept on its
own (`loss.grad_fn` stored without its tensor). Parameters and other leaf tensors hold no
graph and are not reported; a leaf's `.grad` is, when it has one (`create_graph=True`).
"""

from __future__ import annotations

import functools
import types
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import torch

from checkers.policy import Measuring

MAX_OBJECTS = 100_000
MAX_DEPTH = 24
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
    torch.dtype,
    torch.device,
    torch.Size,
    types.ModuleType,
)
_MODULE_TABLES = ("_parameters", "_buffers", "_modules")


@dataclass(frozen=True)
class Found:
    path: str
    holder: torch.Tensor | torch.autograd.graph.Node

    @property
    def root(self) -> torch.autograd.graph.Node | None:
        """The graph node the holder keeps alive (None only if torch now refuses a tensor's
        `grad_fn`, which it gave when the holder was found)."""
        return grad_fn_of(self.holder) if isinstance(self.holder, torch.Tensor) else self.holder


def grad_fn_of(tensor: torch.Tensor) -> torch.autograd.graph.Node | None:
    """`tensor.grad_fn`, or None where torch refuses to give it (a view of a leaf that was
    changed in place under no_grad raises): the grader never fails on a tensor torch built."""
    try:
        return tensor.grad_fn
    except RuntimeError:
        return None


def is_grader_name(name: str) -> bool:
    """Names the sandbox or grader put in the namespace (`_getattr_`, `__grill_step__`...)."""
    return (
        name.startswith("__") or (name.startswith("_") and name.endswith("_")) or name == "_print"
    )


def graph_holders(roots: Mapping[str, object], filename: str) -> Iterator[Found]:
    """Each graph-bearing tensor or kept graph node reachable from `roots`, shortest paths
    first. A holder reached by several paths (`loss`, and `losses[2]` which holds the same
    tensor) is yielded under each, so a container is counted whole; containers and objects
    are walked once."""
    queue = deque((name, value, 0) for name, value in roots.items() if not is_grader_name(name))
    seen: set[int] = {id(roots)}
    found = 0
    while queue and len(seen) + found < MAX_OBJECTS:
        path, value, depth = queue.popleft()
        if isinstance(value, _ATOMS) or _is_grill_object(value):
            continue
        if isinstance(value, torch.autograd.graph.Node):
            found += 1
            yield Found(path, value)
            continue
        if isinstance(value, torch.Tensor):
            if grad_fn_of(value) is not None:
                found += 1
                yield Found(path, value)
            elif value.grad is not None and grad_fn_of(value.grad) is not None:
                found += 1
                yield Found(f"{path}.grad", value.grad)
            hooks = getattr(value, "_backward_hooks", None)
            if hooks and id(hooks) not in seen:
                queue.append((f"{path}._backward_hooks", hooks, depth + 1))
            continue
        if id(value) in seen:
            continue
        seen.add(id(value))
        if depth < MAX_DEPTH:
            queue.extend(
                (child_path, child, depth + 1)
                for child_path, child in _children(path, value, filename)
            )


def frame_roots(frames: Sequence[types.FrameType]) -> dict[str, object]:
    """The names running snippet frames see, innermost first: a function's locals win over
    the module's globals."""
    roots: dict[str, object] = {}
    for frame in frames:
        for name, value in frame.f_locals.items():
            roots.setdefault(name, value)
    for frame in frames:
        if frame.f_locals is not frame.f_globals:
            for name, value in frame.f_globals.items():
                roots.setdefault(name, value)
    return roots


def _is_grill_object(value: object) -> bool:
    """The sandbox's capability proxies and the grader's own objects: not the snippet's data."""
    return type(value).__module__.startswith("checkers.")


def _children(path: str, value: object, filename: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, (list, tuple, deque)):
        for index, item in enumerate(value):
            yield f"{path}[{index}]", item
    elif isinstance(value, dict):
        for key, item in list(value.items()):
            yield f"{path}[{_key(key)}]", item
    elif isinstance(value, (set, frozenset)):
        for item in value:
            yield f"{path}{{...}}", item
    elif isinstance(value, types.FunctionType):
        if value.__code__.co_filename == filename:
            yield from _function_children(path, value)
    elif isinstance(value, types.MethodType):
        yield path, value.__self__
        yield path, value.__func__
    elif isinstance(value, types.BuiltinMethodType):  # `history.append` handed around as a callback
        yield f"{path}.__self__", value.__self__
    elif isinstance(value, functools.partial):
        yield f"{path}.func", value.func
        for index, item in enumerate(value.args):
            yield f"{path}.args[{index}]", item
        for name, item in value.keywords.items():
            yield f"{path}.keywords[{name!r}]", item
    elif isinstance(value, types.GeneratorType):  # a coroutine-style meter's running state
        frame = value.gi_frame
        if frame is not None and frame.f_code.co_filename == filename:
            for name, item in list(frame.f_locals.items()):
                yield f"{path}.<locals>.{name}", item
    elif isinstance(value, type):
        if _defined_by_snippet(value, filename):
            for name, item in list(vars(value).items()):
                if not name.startswith("__"):
                    yield f"{path}.{name}", item
    else:
        yield from _attributes(path, value, filename)


def _function_children(path: str, function: types.FunctionType) -> Iterator[tuple[str, object]]:
    """A snippet function's closure, defaults, and the module globals it names (a helper that
    keeps losses in a global it was never passed)."""
    for name in function.__code__.co_names:
        value = function.__globals__.get(name)
        if (
            value is not None
            and not isinstance(value, (type, types.FunctionType))
            and not is_grader_name(name)
        ):
            yield name, value
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=False):
        try:
            yield f"{path}.<closure>.{name}", cell.cell_contents
        except ValueError:  # a cell not yet assigned
            continue
    for index, default in enumerate(function.__defaults__ or ()):
        yield f"{path}.<defaults>[{index}]", default
    for name, default in (function.__kwdefaults__ or {}).items():
        yield f"{path}.<defaults>.{name}", default


def _attributes(path: str, value: object, filename: str) -> Iterator[tuple[str, object]]:
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        for name, item in list(attributes.items()):
            if isinstance(value, torch.nn.Module) and name in _MODULE_TABLES:
                for inner, child in list(item.items()):
                    yield f"{path}.{inner}", child
            else:
                yield f"{path}.{name}", item
    for name in getattr(type(value), "__slots__", ()):
        if isinstance(name, str) and hasattr(value, name):
            yield f"{path}.{name}", getattr(value, name)
    cls = type(value)
    if _defined_by_snippet(cls, filename):
        yield cls.__name__, cls


def _defined_by_snippet(cls: type, filename: str) -> bool:
    return any(
        isinstance(member, types.FunctionType) and member.__code__.co_filename == filename
        for member in vars(cls).values()
    )


def _key(key: object) -> str:
    if isinstance(key, (str, int, float, bool, type(None), tuple)):
        return repr(key)
    return f"<{type(key).__name__}>"


_SAVED_NAMES: dict[type, tuple[str, ...]] = {}


def saved_tensors(node: object) -> Iterator[torch.Tensor]:
    """The tensors a graph node saved for its backward, while it still holds them."""
    names = _SAVED_NAMES.get(type(node))
    if names is None:
        names = _SAVED_NAMES[type(node)] = tuple(
            name for name in dir(type(node)) if name.startswith("_saved_")
        )
    for name in names:
        try:
            value = getattr(node, name)
        except RuntimeError:  # freed by backward(): it holds nothing any more
            continue
        except Measuring:  # its unpack hook is the snippet's (or recomputes it: checkpoint)
            continue
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, torch.Tensor):
                yield item
