"""A hint's code, built as an edit of the snippet's own syntax tree and checked before it is
shown: the edit is applied to a copy of the tree, the whole edited snippet is unparsed and
compiled again, and only an edit that compiles is offered. A shape that cannot be built (an
expression grill cannot find on the line, a value whose form it does not know) gives no
edit, and the hint says what to do in words instead.

Whether the edited code still trains is the caller's to know from the run (see
`checkers.judge.hints`): an edit only ever changes what a container or a running total
keeps, never the tensor a backward pass uses. An edit that makes a kept value a Python
number (`.item()`) can still break a later line that uses it as a tensor, which compiling
cannot tell: `Edit.source` is the whole edited snippet, which `checkers.api` runs before the
hint is shown.

Pure AST work, no torch.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MUTATORS = frozenset({"append", "appendleft", "extend", "insert", "add", "update", "setdefault"})
_STEP = re.compile(
    r"""\[(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\]])*\]|\{\.\.\.\}|\.[^.\[{]+|[^.\[{]+"""
)


@dataclass(frozen=True)
class Edit:
    line: int
    code: str
    """The statement at `line` as it reads after the edit (one line of Python)."""
    replacement: str
    """The new expression, as the hint names it (`loss.item()`)."""
    source: str = ""
    """The whole snippet with the edit applied (unparsed, so without comments)."""


def split_path(path: str) -> list[str]:
    """A holder's path in steps: `records[3]['loss']` -> `records`, `[3]`, `['loss']`."""
    return _STEP.findall(path)


def is_position(step: str) -> bool:
    return step.startswith("[") or step == "{...}"


def statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement that starts at `line`."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line:
            if found is None or _inside(node, found):
                found = node
    return found


def _inside(node: ast.stmt, outer: ast.stmt) -> bool:
    return any(child is node for child in ast.walk(outer)) and node is not outer


def stored_expression(statement: ast.stmt) -> ast.expr | None:
    """What a statement puts into a container: `E` in `xs.append(E)`, `d[k] = E`,
    `d.setdefault(k, []).append(E)`, `xs += [E]`."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in MUTATORS and call.args:
            return call.args[-1]
    if isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Subscript) for target in statement.targets
    ):
        return statement.value
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.value, (ast.List, ast.Tuple))
        and len(statement.value.elts) == 1
    ):
        return statement.value.elts[0]
    return None


def added_expression(statement: ast.stmt) -> ast.expr | None:
    """What a running total adds: `E` in `total += E` or `total = total + E` (either side)."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        return statement.value
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.value, ast.BinOp)
        and isinstance(statement.value.op, ast.Add)
    ):
        target = ast.unparse(statement.targets[0])
        left, right = statement.value.left, statement.value.right
        if ast.unparse(left) == target:
            return right
        if ast.unparse(right) == target:
            return left
    return None


def navigate(expression: ast.expr, steps: Sequence[str]) -> ast.expr | None:
    """The part of a stored expression a holder's remaining path steps reach: a dict
    display's value by its constant key, a tuple or list display's item by index."""
    for step in steps:
        if isinstance(expression, ast.Dict):
            key = _literal(step)
            match = [
                value
                for name, value in zip(expression.keys, expression.values, strict=True)
                if isinstance(name, ast.Constant) and name.value == key
            ]
            if not match:
                return None
            expression = match[0]
        elif isinstance(expression, (ast.Tuple, ast.List)):
            index = _literal(step)
            if type(index) is not int or not 0 <= index < len(expression.elts):
                return None
            expression = expression.elts[index]
        else:
            return None
    return expression


def _literal(step: str) -> object:
    if not step.startswith("[") or not step.endswith("]"):
        return None
    try:
        return ast.literal_eval(step[1:-1])
    except (ValueError, SyntaxError):
        return None


def call_on(expression: ast.expr, *methods: str) -> ast.expr:
    """`expression.m1().m2()`."""
    result = copy.deepcopy(expression)
    for method in methods:
        result = ast.Call(ast.Attribute(result, method, ast.Load()), [], [])
    return result


def each_detached(expression: ast.expr, kind: str, all_tensors: bool) -> ast.expr:
    """A tuple or list rebuilt with its tensors detached (`tuple(t.detach() for t in states)`);
    where some items may not be tensors, only the tensors are."""
    item = "t.detach()" if all_tensors else "t.detach() if isinstance(t, torch.Tensor) else t"
    maker = "list" if kind == "list" else "tuple"
    return ast.parse(f"{maker}({item} for t in ({ast.unparse(expression)}))", mode="eval").body


def key_detached(expression: ast.expr, keys: Sequence[str]) -> ast.expr:
    """A dict rebuilt with the named keys' tensors detached (`{**d, 'loss': d['loss'].detach()}`).
    The dict is evaluated once: where it is more than a name read (a comprehension, a call),
    the rebuild goes over its items (`{k: v.detach() if k in ('loss',) else v for k, v in
    {...}.items()}`), so nothing the snippet wrote runs twice."""
    name = ast.unparse(expression)
    if not _read_only(expression):
        chosen = ", ".join(keys) + ("," if len(keys) == 1 else "")
        return ast.parse(
            f"{{k: v.detach() if k in ({chosen}) else v for k, v in ({name}).items()}}",
            mode="eval",
        ).body
    parts = ", ".join(f"{key}: ({name})[{key}].detach()" for key in keys)
    return ast.parse(f"{{**({name}), {parts}}}", mode="eval").body


def _read_only(expression: ast.expr) -> bool:
    """A name, or attributes of one (`d`, `self.stats`): reading it again runs nothing."""
    while isinstance(expression, ast.Attribute):
        expression = expression.value
    return isinstance(expression, ast.Name)


def checked(
    tree: ast.Module,
    line: int,
    change: Callable[[ast.stmt], ast.expr | None],
) -> Edit | None:
    """Apply `change` (which edits the statement in place and returns the new expression, or
    None where it cannot) to a copy of the statement at `line`, and keep the edit only if the
    whole edited snippet compiles."""
    edited = copy.deepcopy(tree)
    statement = statement_at(edited, line)
    if statement is None:
        return None
    replacement = change(statement)
    if replacement is None:
        return None
    try:
        source = ast.unparse(ast.fix_missing_locations(edited))
        compile(source, "<hint>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    code = ast.unparse(statement)
    if "\n" in code:  # a compound statement: show the line it starts with
        code = code.splitlines()[0]
    return Edit(line, code, ast.unparse(replacement), source)


def replace(statement: ast.stmt, old: ast.expr, new: ast.expr) -> bool:
    """Put `new` where `old` is in `statement`'s tree."""
    for parent in ast.walk(statement):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is old:
                        value[index] = new
                        return True
    return False


def statement_code(text: str) -> str | None:
    """`text` if it is one valid statement, else None (a template hint's own check)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    return text if len(tree.body) == 1 else None
