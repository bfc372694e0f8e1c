"""Mark every loop the snippet runs: each iteration with the grader's tick, and each pass (a
loop's run from its first iteration to its exit) with its start and its end.

Every loop counts, wherever it is (training, evaluation after training, a second phase, a
closure's loop, a per-timestep loop) and whatever its form: a `for` or `while` statement, a
list, set or dict comprehension, a generator expression, and the iterables handed to `map`,
`filter`, `functools.reduce` and `itertools.starmap` (`kept = [train_step() for _ in
range(300)]` is a loop of 300 training steps). The ledger opens a new generation at a tick
only when graph was built or used since the last one, so extra ticks cost nothing in the
verdict, and a leak in any loop is seen. Each mark names the loop's line, so a verdict can
say which loop kept the graph, and a pass lets the rule tell a window the code bounds from
one that spans a whole pass of a loop (`checkers.judge.growth`).

- `for` statements: `__grill_tick__(LINE)` is the body's first statement, and the iterable
  is wrapped in `__grill_loop__(LINE, iterable, False)`, which marks the pass's start at the
  first item and its end when it is exhausted or closed (a `break`, a `return`, an
  exception all drop the iterator);
- `while` statements: the tick, and `__grill_enter__(LINE)` before the loop with
  `__grill_leave__(LINE)` in a `finally` around it;
- comprehensions and generator expressions: each `for` clause's iterable is wrapped in
  `__grill_loop__(LINE, iterable, True)`, which also ticks before each item;
- `map(f, it)` and the like: the iterable arguments are wrapped in `__grill_each__(LINE,
  callee, it)`, which is `__grill_loop__` when the callee is the real builtin and the
  iterable itself otherwise (a snippet's own `map`).

This runs after the sandbox policy, on trusted grounds: it only adds calls to these names,
copying each loop's position so the candidate's line numbers stay as written.
"""

from __future__ import annotations

import ast
import copy

TICK = "__grill_tick__"
LOOP = "__grill_loop__"
EACH = "__grill_each__"
ENTER = "__grill_enter__"
LEAVE = "__grill_leave__"

CALLEES = {
    "map": slice(1, None),
    "filter": slice(1, 2),
    "reduce": slice(1, 2),
    "starmap": slice(1, 2),
}
"""Functions that call their first argument once per item of their iterable arguments."""


def instrument(tree: ast.Module) -> ast.Module:
    """Mark every loop in `tree` (in place; see the module docstring)."""
    tree = _Marks().visit(tree)
    return ast.fix_missing_locations(tree)


class _Marks(ast.NodeTransformer):
    def visit_For(self, node: ast.For | ast.AsyncFor) -> ast.AST:
        self.generic_visit(node)
        node.body.insert(0, _statement(TICK, node))
        if isinstance(node, ast.For):
            node.iter = _call(LOOP, node, node.iter, ast.Constant(False))
        return node

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        self.generic_visit(node)
        node.body.insert(0, _statement(TICK, node))
        guarded = ast.Try(body=[node], handlers=[], orelse=[], finalbody=[_statement(LEAVE, node)])
        return [_statement(ENTER, node), ast.copy_location(guarded, node)]

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> ast.AST:
        self.generic_visit(node)
        for generator in node.generators:
            if not generator.is_async:
                generator.iter = _call(LOOP, node, generator.iter, ast.Constant(True))
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        callee, offset = _called(node)
        if callee is None:
            return node
        for position in range(len(node.args))[offset:][CALLEES[_callee_name(callee) or ""]]:
            argument = node.args[position]
            if not isinstance(argument, ast.Starred):
                node.args[position] = _call(EACH, node, copy.deepcopy(callee), argument)
        return node


def _called(node: ast.Call) -> tuple[ast.expr | None, int]:
    """The callee, when `node` calls one of CALLEES by name, directly or through the policy's
    `_call_(callee, *args)`, and where its own arguments start in `node.args`."""
    func, offset = node.func, 0
    if isinstance(func, ast.Name) and func.id == "_call_" and node.args:
        func, offset = node.args[0], 1
    return (func, offset) if _callee_name(func) in CALLEES else (None, 0)


def _callee_name(func: ast.expr) -> str | None:
    """`map`, `functools.reduce`, or the policy's `_getattr_(functools, 'reduce')`."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    if (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id == "_getattr_"
        and len(func.args) == 2
        and isinstance(func.args[1], ast.Constant)
        and isinstance(func.args[1].value, str)
    ):
        return func.args[1].value
    return None


def _call(name: str, where: ast.expr | ast.stmt, *args: ast.expr) -> ast.Call:
    """`name(LINE, *args)` placed where `where` is; `args` keep their own positions."""
    func, line = ast.Name(name, ast.Load()), ast.Constant(where.lineno)
    call = ast.Call(func, [line, *args], [])
    for node in (func, line, call):
        ast.copy_location(node, where)
    return call


def _statement(name: str, loop: ast.stmt) -> ast.Expr:
    call = ast.Expr(ast.Call(ast.Name(name, ast.Load()), [ast.Constant(loop.lineno)], []))
    for node in ast.walk(call):
        ast.copy_location(node, loop)
    return call
