"""Insert the grader's tick at the top of every loop the snippet runs.

Every loop counts, wherever it is (training, evaluation after training, a second phase, a
closure's loop, a per-timestep loop): the ledger opens a new generation at a tick only when
graph was built or used since the last one, so extra ticks cost nothing in the verdict, and a
leak in any loop is seen. `__grill_tick__(LINE)` names the loop's line so a verdict can say
which loop kept the graph.

This runs after the sandbox policy, on trusted grounds: it only adds calls to the tick name,
copying each loop's position so the candidate's line numbers stay as written.
"""

from __future__ import annotations

import ast

TICK = "__grill_tick__"


def instrument(tree: ast.Module) -> ast.Module:
    """Insert a tick as the first statement of every loop body in `tree` (in place)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            node.body.insert(0, _tick(node))
    return ast.fix_missing_locations(tree)


def _tick(loop: ast.stmt) -> ast.Expr:
    call = ast.Expr(ast.Call(ast.Name(TICK, ast.Load()), [ast.Constant(loop.lineno)], []))
    for node in ast.walk(call):
        ast.copy_location(node, loop)
    return call
