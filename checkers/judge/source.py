"""What the snippet's source says, for messages and hints: where a kept value was stored,
what was stored, and a few facts about how it trains. Pure AST reading, no torch, so the
parent judges with it.
"""

from __future__ import annotations

import ast
import builtins
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

MUTATORS = frozenset({"append", "appendleft", "extend", "insert", "add", "update", "setdefault"})
TRIED_CALLS = frozenset({"collect", "empty_cache"})
"""Calls people try against a leak that free nothing still referenced (`gc.collect()`,
`torch.cuda.empty_cache()`): flagged `tried:NAME`, so the hint can say why they did not help."""
HOOK_REGISTRATIONS = frozenset(
    {
        "register_hook",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
        "register_post_accumulate_grad_hook",
    }
)


def assignment_line(tree: ast.Module, path: str) -> int | None:
    """The snippet line that most likely stored the tensor at `path`.

    Looks for assignments to the path's last name (`running += loss`, `self.history = ...`)
    and, when the path indexes into a container, calls that fill it (`losses.append(...)`).
    A statement that fills the very container the path names wins (`stats['policy_loss']`
    over `stats['return']`, `self.preds` for `metric.preds`), then a line inside a loop over
    one outside it; among equals the last one wins.
    """
    name, indexed = _last_name(path)
    if name is None:
        return None
    tail = _container_tail(path)
    candidates = [
        (
            indexed if store.fills is None else store.fills == indexed or not indexed,
            bool(tail) and store.container is not None and store.container.endswith(tail),
            store.in_loop,
            store.line,
        )
        for store in _stores(tree)
        if store.name == name
    ]
    if not candidates:
        return None
    return max(candidates)[3]


@dataclass(frozen=True)
class _Store:
    """A statement that stores into a name: an assignment (`fills`: whether it fills a
    container, by a subscript or in place) or a mutator call (`fills` None)."""

    name: str
    fills: bool | None
    container: str | None
    """The container's code as written, single-quoted (`self.stats['loss']`); None if it
    cannot be written back."""
    in_loop: bool
    line: int


_STORES: weakref.WeakKeyDictionary[ast.Module, tuple[_Store, ...]] = weakref.WeakKeyDictionary()
"""Each tree's stores, read once: a leak with hundreds of holders asks `assignment_line` for
each, and walking the whole tree (and every loop in it) per holder took a minute for a
400-line script."""


def _stores(tree: ast.Module) -> tuple[_Store, ...]:
    if tree not in _STORES:
        _STORES[tree] = tuple(_read_stores(tree))
    return _STORES[tree]


def _read_stores(tree: ast.Module) -> Iterator[_Store]:
    in_loop = _lines_in_loops(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in _target_names(target):
                    name = _names(part)
                    if name is not None:
                        fills = isinstance(target, ast.Subscript) or isinstance(node, ast.AugAssign)
                        container = target.value if isinstance(target, ast.Subscript) else target
                        yield _Store(
                            name, fills, _code(container), node.lineno in in_loop, node.lineno
                        )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and (name := _names(_container(node.func.value))) is not None
        ):
            yield _Store(name, None, _code(node.func.value), node.lineno in in_loop, node.lineno)


def _container_tail(path: str) -> str:
    """What a path says of its container past its root name, its last positions dropped:
    `['policy_loss']` for `stats['policy_loss'][3]`, `.preds` for `metric.preds[2]`."""
    bare = re.sub(r"(\[\d+\]|\{\.\.\.\})+$", "", path)
    match = re.match(r"[^.\[]+", bare)
    return bare[match.end() :] if match else ""


def _code(node: ast.AST) -> str | None:
    """A container as written (`self.preds`, `stats['policy_loss']`), to compare with a
    path's tail; None where it cannot be written back."""
    try:
        return ast.unparse(node).replace('"', "'")
    except (ValueError, RecursionError):
        return None


def _target_names(target: ast.AST) -> list[ast.AST]:
    """What an assignment target writes to: the names and attributes along `a.b[k].c` and in
    unpacked tuples, never those inside a subscript's key (`index[(Tag(losses), 1)] = x`
    does not store into `losses`)."""
    found: list[ast.AST] = []
    stack = [target]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        elif isinstance(node, ast.Starred):
            stack.append(node.value)
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            stack.append(node.value)
    return found


def stored_name(tree: ast.Module, line: int | None) -> str | None:
    """The variable a container is filled with at `line` (`h` in `states.append(h)` or
    `cache[k] = h`), so the hint can say `h.detach()`; None for anything but a plain name."""
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and node.args
        ):
            value = node.args[-1]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) for t in node.targets
        ):
            value = node.value
        else:
            continue
        if isinstance(value, ast.Name):
            return value.id
    return None


def _names(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _container(node: ast.AST) -> ast.AST:
    """The named container a mutator call fills: `self.metrics` for `self.metrics['loss'].append`,
    `history` for `history.setdefault(k, []).append`."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
        ):
            node = node.func.value
        else:
            return node


def _last_name(path: str) -> tuple[str | None, bool]:
    """The name a path's value was stored under, and whether the path indexes into it:
    `tracker.history[3]` -> ("history", True); `records[3]['loss']` -> ("records", True);
    `model.1._forward_hooks[5].<closure>.acts[0]` -> ("acts", True); `running` -> ("running", False)."""
    indexed = path.endswith("]") or path.endswith("}")
    bare = re.sub(r"\[[^\]]*\]|\{[^}]*\}", "", path)
    parts = [p for p in bare.split(".") if p and not p.startswith("<") and not p.isdigit()]
    return (parts[-1] if parts else None), indexed


def lines_after_loops(tree: ast.Module) -> set[int]:
    """Lines of statements that follow a loop in the same body (the module's, a function's)
    and lie in no loop themselves: what runs once the loop is over (`pred =
    torch.stack(all_values)` after the training loop)."""
    lines: set[int] = set()
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.FunctionDef)):
            continue
        after = False
        for statement in scope.body:
            if isinstance(statement, (ast.For, ast.While)):
                after = True
            elif after and not isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
                in_loops = _lines_in_loops(ast.Module(body=[statement], type_ignores=[]))
                lines.update(
                    n.lineno
                    for n in ast.walk(statement)
                    if hasattr(n, "lineno") and n.lineno not in in_loops
                )
    return lines


def _lines_in_loops(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            for node in ast.walk(loop):
                if hasattr(node, "lineno"):
                    lines.add(node.lineno)
    return lines


def source_flags(tree: ast.Module) -> frozenset[str]:
    """Facts about the source that shape the hint: `retain_graph` and `create_graph` passed as
    True; `hook_in_loop` for a hook registered inside a loop; `carried:NAME` for state fed
    back into the call that replaces it (`out, h = rnn(x, h)`, `h = Cell.apply(x + h)`); and
    `feeds:NAME` for any name computed from itself (`total = total + loss`, `mean = 0.9 * mean`);
    `tried:collect`, `tried:empty_cache` and `tried:del` for `gc.collect()`,
    `torch.cuda.empty_cache()` and a `del` of a name inside a loop; and `reset:NAME` for a name
    made afresh every step before its backward call (`loss = 0`)."""
    flags: set[str] = set()
    in_loop = _lines_in_loops(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            flags.update(f"feeds:{name}" for name in _fed_back(node))
        if isinstance(node, ast.Call):
            flags.update(
                keyword.arg
                for keyword in node.keywords
                if keyword.arg in ("retain_graph", "create_graph")
                and isinstance(keyword.value, ast.Constant)
                and keyword.value.value is True
            )
            if _called_name(node) in HOOK_REGISTRATIONS and node.lineno in in_loop:
                flags.add("hook_in_loop")
            if _called_name(node) in TRIED_CALLS:
                flags.add(f"tried:{_called_name(node)}")
        if (
            isinstance(node, ast.Delete)
            and node.lineno in in_loop
            and any(isinstance(target, ast.Name) for target in node.targets)
        ):
            flags.add("tried:del")
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and not _calls_builtin(node.value)
            and not _calls_torch(node.value)
        ):
            # `best = min(best, loss)` keeps and `acc = torch.cat([acc, out])` collects: neither carries
            targets = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            fed_back = {
                n.id for a in node.value.args for n in ast.walk(a) if isinstance(n, ast.Name)
            }
            flags.update(f"carried:{name}" for name in targets & fed_back)
    flags.update(f"reset:{name}" for name in _reset_each_step(tree))
    return frozenset(flags)


def _reset_each_step(tree: ast.Module) -> set[str]:
    """Names made afresh every step: assigned a value not computed from themselves in a loop's
    body at the level of that loop's backward call, before it (`loss = 0` ahead of `for t ...:
    loss = loss + ...` and `loss.backward()`). A total like that is no state carried from step
    to step, however it feeds itself within the step."""
    reset: set[str] = set()
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        fresh: set[str] = set()
        for statement in loop.body:
            if any(_is_backward(n) for n in ast.walk(statement)) and not isinstance(
                statement, (ast.For, ast.While)
            ):
                reset |= fresh
            if isinstance(statement, ast.Assign):
                written = {t.id for t in statement.targets if isinstance(t, ast.Name)}
                fresh |= written - _fed_back(statement)
    return reset


def _is_backward(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward"
    )


def _fed_back(node: ast.Assign | ast.AugAssign) -> set[str]:
    """Names an assignment computes from themselves (`total = total + loss`, `self.mean =
    0.9 * self.mean + x`, `h = cell(x, h)`, `total += loss`): state carried from step to step."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    flat = [
        part
        for target in targets
        for part in (target.elts if isinstance(target, ast.Tuple) else [target])
    ]
    written = {name for part in flat if (name := _names(part)) is not None}
    if isinstance(node, ast.AugAssign):
        return written
    read = {name for part in ast.walk(node.value) if (name := _names(part)) is not None}
    return written & read


def hook_line(tree: ast.Module) -> int | None:
    """The line of the first hook registration inside a loop."""
    in_loop = _lines_in_loops(tree)
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _called_name(node) in HOOK_REGISTRATIONS
        and node.lineno in in_loop
    ]
    return min(lines, default=None)


def hook_function_lines(tree: ast.Module) -> set[int]:
    """Lines of the functions that a hook registration inside a loop registers (by name, or a
    lambda written in the call): what they store piles up as the registrations do."""
    in_loop = _lines_in_loops(tree)
    registered: set[str] = set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _called_name(node) in HOOK_REGISTRATIONS
            and node.lineno in in_loop
        ):
            for argument in node.args:
                if isinstance(argument, ast.Name):
                    registered.add(argument.id)
                elif isinstance(argument, ast.Lambda):
                    lines.update(n.lineno for n in ast.walk(argument) if hasattr(n, "lineno"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in registered:
            lines.update(n.lineno for n in ast.walk(node) if hasattr(n, "lineno"))
    return lines


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _calls_torch(call: ast.Call) -> bool:
    """`torch.cat(...)`, `torch.nn.functional.pad(...)`: an op on tensors, not a cell or a model."""
    func = call.func
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id == "torch"


def _calls_builtin(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and hasattr(builtins, call.func.id)
