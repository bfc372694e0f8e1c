"""The errors a carried graph causes, explained where torch only says what failed.

A tensor carried from one step into the next without `detach()` (`h = rnn(x, h)`) links each
step's graph to the last one's. The next backward pass runs into the earlier step's graph,
whose buffers the earlier pass freed: torch raises "Trying to backward through the graph a
second time ... Specify retain_graph=True". Following that advice hides the error and keeps
every step's graph (the leak), until an optimizer step changes a weight an old graph saved and
torch raises "modified by an inplace operation". The ledger finds the newest node an earlier
step made that the failing pass reached (`Ledger.on_carried`); here, the names of the running
snippet's frames whose graph reaches it, the one the source feeds back into itself preferred,
and the teaching that goes with torch's message. Two losses over one forward are one step's
graph: that error is torch's alone, and is not explained here.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import torch

from checkers.measure import storage
from checkers.measure.ledger import GraphNode

MAX_WALK = 20_000
"""Nodes walked per name looking for the carried node, at most."""


@dataclass(frozen=True)
class Carried:
    """What carried an earlier step's graph into the failing backward pass."""

    names: tuple[str, ...]
    """Names of the snippet's frames whose graph reaches it, innermost frame first."""
    born_step: int
    """The optimizer steps done when its graph was made (0: before the first)."""
    sequences: frozenset[str] = frozenset()
    """Those of `names` that hold a tuple or list of tensors (an LSTM's `(h, c)`)."""


def holders(node: GraphNode, roots: Mapping[str, object]) -> dict[str, bool]:
    """The names in `roots` whose tensor (or tuple or list of tensors) reaches `node`, each
    with whether it is a tuple or list."""
    named = {}
    for name, value in roots.items():
        if type(name) is str and not name.startswith("_"):
            items = list(value[:16]) if isinstance(value, (tuple, list)) else [value]
            if any(_reaches(item, node) for item in items):
                named[name] = isinstance(value, (tuple, list))
    return named


def found(names: Mapping[str, bool], born_step: int) -> Carried:
    """A `Carried` from `holders`' answer."""
    return Carried(tuple(names), born_step, frozenset(name for name, seq in names.items() if seq))


def _reaches(value: object, node: GraphNode) -> bool:
    if not isinstance(value, torch.Tensor):
        return False
    start = cast("GraphNode | None", storage.grad_fn(value))
    seen: set[int] = set()
    keep: list[object] = []  # holds each wrapper, so no id is reused mid-walk
    stack = [start] if start is not None else []
    while stack and len(seen) < MAX_WALK:
        current = stack.pop()
        if current is node:
            return True
        if id(current) in seen:
            continue
        seen.add(id(current))
        keep.append(current)
        stack.extend(child for child, _ in current.next_functions if child is not None)
    return False


def explained(message: str, source: str, carried: Carried) -> str:
    """torch's `message`, followed by what carried the graph and what to do about it."""
    name, line = _carrier(source, carried.names)
    who = f"`{name}`" if name else "a tensor carried from step to step"
    where = f" (line {line})" if line else ""
    if name is None:
        detach = "`.detach()` on it"
    elif name in carried.sequences:
        detach = f"`{name} = tuple(t.detach() for t in {name})`"
    else:
        detach = f"`{name} = {name}.detach()`"
    if "inplace" in message:
        what = (
            " retain_graph=True hid the first error this causes and kept every step's graph"
            " alive (memory grows each step); then an optimizer step changed a weight that an"
            " old graph had saved, and the backward pass running back into it failed."
        )
    else:
        what = (
            " this step's backward pass runs on into that graph, which the earlier pass"
            " already used and freed. retain_graph=True would hide this error and keep every"
            " step's graph alive instead (memory grows each step)."
        )
    return (
        f"{message}\n\nWhy: {who}{where} carries the graph made in step"
        f" {carried.born_step + 1} into the next step: it is never detached, so{what}"
        f" Detach it where it crosses the step boundary ({detach} at the end of each step,"
        " after backward()); then no step needs an earlier step's graph."
    )


def _carrier(source: str, names: tuple[str, ...]) -> tuple[str | None, int | None]:
    """Of `names`, the one an assignment inside a loop feeds back into itself (`h = rnn(x, h)`,
    `out, hidden = model(x, hidden)`), with that line, one the loop never detaches first (an
    LSTM's `c` carried while `h = h.detach()`); else the first name, with the line of its
    first assignment in a loop."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return (names[0] if names else None), None
    fed: dict[str, int] = {}
    assigned: dict[str, int] = {}
    detached: set[str] = set()
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for node in ast.walk(loop):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            written = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            read = (
                {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                if node.value is not None
                else set()
            )
            detaching = any(
                isinstance(n, ast.Attribute) and n.attr in ("detach", "detach_")
                for n in ast.walk(node.value or node)
            )
            for name in written:
                if detaching:
                    detached.add(name)
                    continue
                assigned.setdefault(name, node.lineno)
                if name in read or isinstance(node, ast.AugAssign):
                    fed.setdefault(name, node.lineno)
    for name in sorted(names, key=lambda n: n in detached):  # `h = h.detach()`: not it
        if name in fed:
            return name, fed[name]
    if not names:
        return None, None
    return names[0], assigned.get(names[0])
