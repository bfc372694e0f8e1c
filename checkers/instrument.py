"""Find a snippet's training loop and insert the grader's sampling calls into it.

The candidate writes an ordinary loop; grill adds `__grill_step__()` as the first statement
of every iteration of the training loop, and `__grill_done__()` right after the outermost
loop around it (in the same function), so a function-local loop is scanned before its frame
returns. The training loop is the innermost loop whose own body calls `backward()`
(directly, or through a function the snippet defines): that is the step, not a per-parameter
update loop or a per-timestep loop inside it, even one that calls an environment's `step()`.
Without backward() anywhere (an LBFGS closure handed to `opt.step`), the same rule is applied
to `step()`; a snippet that calls neither is sampled on its outermost loops.

This runs after the sandbox policy, on trusted grounds: it only adds calls to the two hook
names, copying the loop's line number so the candidate's line numbers stay as written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

STEP_HOOK = "__grill_step__"
DONE_HOOK = "__grill_done__"
BACKWARD = frozenset({"backward"})
TRAINING_CALLS = frozenset({"backward", "step"})

Loop = ast.For | ast.While
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class StopGrading(BaseException):
    """Raised from `__grill_step__` once enough steps were observed.

    A BaseException, so the candidate's `except Exception:` does not swallow it; the sandbox
    re-raises any exception whose class sets `grill_control`.
    """

    grill_control = True


def instrument(tree: ast.Module) -> ast.Module:
    """Insert the sampling hooks into `tree` (in place) and return it."""
    loops = training_loops(tree)
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for loop in loops:
        loop.body.insert(0, _hook_call(STEP_HOOK, loop))
    done_after = {id(top): top for top in (_outermost_loop(loop, parents) for loop in loops)}
    for top in done_after.values():
        body = _holding_list(parents[id(top)], top)
        body.insert(body.index(top) + 1, _hook_call(DONE_HOOK, top))
    return ast.fix_missing_locations(tree)


def training_loops(tree: ast.Module) -> list[Loop]:
    """The loops to sample, in source order (see the module docstring for the rule)."""
    all_loops = [node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.While))]
    for calls in (BACKWARD, TRAINING_CALLS):
        names = calls | _training_functions(tree, calls)
        training = [loop for loop in all_loops if _trains_directly(loop, names)]
        if training:
            chosen = [loop for loop in training
                      if not any(other is not loop and _contains(loop, other) for other in training)]
            break
    else:
        chosen = [loop for loop in all_loops
                  if not any(other is not loop and _contains(other, loop) for other in all_loops)]
    return sorted(chosen, key=lambda loop: (loop.lineno, loop.col_offset))


def _outermost_loop(loop: Loop, parents: dict[int, ast.AST]) -> Loop:
    """The outermost loop around `loop` within its function (or module)."""
    top, node = loop, loop
    while id(node) in parents and not isinstance(node := parents[id(node)], _SCOPES):
        if isinstance(node, (ast.For, ast.While)):
            top = node
    return top


def _holding_list(parent: ast.AST, statement: ast.stmt) -> list:
    for field in ("body", "orelse", "finalbody"):
        body = getattr(parent, field, None)
        if isinstance(body, list) and any(s is statement for s in body):
            return body
    raise ValueError(f"statement at line {statement.lineno} has no enclosing block")


def _hook_call(name: str, where: ast.AST) -> ast.Expr:
    call = ast.Expr(ast.Call(ast.Name(name, ast.Load()), [], []))
    for node in ast.walk(call):
        ast.copy_location(node, where)
    return call


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    """Whether `inner` lies inside `outer` without crossing a function or class boundary."""
    return any(node is inner for node in _scope_nodes(outer) if node is not outer)


def _scope_nodes(root: ast.AST) -> Iterator[ast.AST]:
    """`root` and everything under it that belongs to the same scope."""
    yield root
    for child in ast.iter_child_nodes(root):
        if not isinstance(child, _SCOPES):
            yield from _scope_nodes(child)


def _own_nodes(loop: Loop) -> Iterator[ast.AST]:
    """Nodes of a loop's body that are not inside a nested loop or scope."""
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.For, ast.While, *_SCOPES)):
            stack.extend(ast.iter_child_nodes(node))


def _called_name(call: ast.Call) -> str | None:
    """`f()` -> "f", `obj.f()` -> "f", and the policy's rewrite `_getattr_(obj, "f")()` -> "f"."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    if (isinstance(func, ast.Call) and isinstance(func.func, ast.Name)
            and func.func.id == "_getattr_" and len(func.args) == 2
            and isinstance(func.args[1], ast.Constant) and isinstance(func.args[1].value, str)):
        return func.args[1].value
    return None


def _trains_directly(loop: Loop, names: frozenset[str]) -> bool:
    called = {_called_name(node) for node in _own_nodes(loop) if isinstance(node, ast.Call)}
    return bool(called & names)


def _training_functions(tree: ast.Module, calls: frozenset[str]) -> set[str]:
    """Names of functions the snippet defines that make one of `calls`, transitively."""
    made = {
        node.name: {_called_name(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
        for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    trainers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, called in made.items():
            if name not in trainers and called & (calls | trainers):
                trainers.add(name)
                changed = True
    return trainers
