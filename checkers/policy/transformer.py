"""The policy at compile time: parse a snippet and rewrite it so that everything it does
goes through the guards.

RestrictedPython rewrites attribute access, item access, iteration, augmented assignment and
print into calls to guards (`checkers.policy.guards`); grill's transformer on top also routes every
call through a guard, allows what every nn.Module needs (`def __init__`, `super().__init__()`,
`nonlocal`), lets names with one leading underscore through as the snippet's own, and refuses
imports off the allowlist at compile time. None of this is a sandbox by itself (RestrictedPython
says so too): the process isolation around it is. Imported inside the sandbox child, and by the
grader's in-process tests.
"""

from __future__ import annotations

import ast
import copy as copy_module
import linecache
import traceback
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeAlias, TypeGuard, cast

from RestrictedPython import RestrictingNodeTransformer

from checkers.policy.refusal import CandidateError, Refused, unavailable
from checkers.policy.tables import (
    DUNDER_METHODS,
    READABLE_DUNDER_NAMES,
    RESERVED_PRIVATE,
    module_reason,
)

_Visited: TypeAlias = ast.AST | Iterable[ast.AST] | None
"""What a RestrictedPython visitor returns for a node: a node, several, or none."""
_Positioned: TypeAlias = (
    ast.stmt | ast.expr | ast.excepthandler | ast.arg | ast.keyword | ast.alias | ast.pattern
)
"""The nodes that carry a position, which RestrictedPython's `check_name` takes."""

AUGMENTED_OPERATORS = {
    ast.Add: "+=",
    ast.Sub: "-=",
    ast.Mult: "*=",
    ast.Div: "/=",
    ast.FloorDiv: "//=",
    ast.Mod: "%=",
    ast.Pow: "**=",
    ast.MatMult: "@=",
    ast.LShift: "<<=",
    ast.RShift: ">>=",
    ast.BitAnd: "&=",
    ast.BitOr: "|=",
    ast.BitXor: "^=",
}


@dataclass(frozen=True)
class Compiled:
    """A snippet compiled under the policy."""

    code: types.CodeType
    private_names: frozenset[str]
    """The single-underscore attribute names the snippet declares (assigns, defines as
    methods or class attributes): the only private names it may read on its own objects."""


class GrillPolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer with the relaxations an nn.Module needs, guarded calls,
    the snippet's own underscore names, the import allowlist, and (line, message) errors."""

    def __init__(self, errors: list[str], warnings: list[str], used_names: dict[str, bool]) -> None:
        super().__init__(errors, warnings, used_names)
        self.violations: list[tuple[tuple[int, int], str]] = []
        self.methods: set[int] = set()
        self.slots: set[int] = set()
        self.private_names: set[str] = set()

    def error(self, node: ast.AST, info: str) -> None:
        super().error(node, info)
        if info in ("Exec calls are not allowed.", "Eval calls are not allowed."):
            info = f"'{info.split()[0].lower()}()' is not available in the sandbox"
        # The innermost offending node ends first: report violations in reading order.
        where = (getattr(node, "lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        self.violations.append((where, info))

    def check_name(
        self, node: _Positioned, name: str | None, allow_magic_methods: bool = False
    ) -> None:
        if name == "__slots__" and id(node) in self.slots:
            return
        if allow_magic_methods and name in DUNDER_METHODS and id(node) in self.methods:
            return
        if (
            name in READABLE_DUNDER_NAMES
            and isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
        ):
            return
        if is_own_private(name):
            return
        super().check_name(node, name, allow_magic_methods=False)

    def visit_ClassDef(self, node: ast.ClassDef) -> _Visited:
        # Only defs directly in a class body are methods that may carry a dunder name.
        self.methods.update(id(stmt) for stmt in node.body if isinstance(stmt, ast.FunctionDef))
        self.slots.update(id(stmt.targets[0]) for stmt in node.body if is_plain_slots(stmt))
        for stmt in node.body:  # methods and class attributes with an underscore are its own
            for name in defined_names(stmt):
                if is_own_private(name):
                    self.private_names.add(name)
        return super().visit_ClassDef(node)

    def visit_Call(self, node: ast.Call) -> _Visited:
        """Every call goes through `_call_`, which checks the callee and admits the result;
        a bare `super()` stays as it is (it needs the calling frame)."""
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            return self.node_contents_visit(node)
        node = cast(ast.Call, super().visit_Call(node))  # RestrictedPython's is this call
        if isinstance(node.func, ast.Name) and node.func.id == "_apply_":
            node.func.id = "_call_"
        else:
            node.args.insert(0, node.func)
            node.func = ast.copy_location(ast.Name("_call_", ast.Load()), node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> _Visited:
        """`self.total += loss`, `counts[k] += 1`: rewritten to a guarded read, `_inplacevar_`
        and a guarded write. Only for targets that can be evaluated twice without effects."""
        if isinstance(node.target, ast.Name) or not is_pure(node.target):
            return super().visit_AugAssign(node)
        load = self.visit(retarget(node.target, ast.Load()))
        store = self.visit(retarget(node.target, ast.Store()))
        value = self.visit(node.value)
        op = ast.Constant(AUGMENTED_OPERATORS[type(node.op)])
        call = ast.Call(
            func=ast.Name("_inplacevar_", ast.Load()), args=[op, load, value], keywords=[]
        )
        return ast.copy_location(ast.Assign(targets=[store], value=call), node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> _Visited:
        """`lr: float = 0.01` (dataclass fields): the target, annotation and value go through
        the same rules as any assignment and expression."""
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> _Visited:
        return self.node_contents_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> _Visited:
        name = node.attr
        if name == "__init__" and isinstance(node.ctx, ast.Load):
            # `super().__init__(...)`, `nn.Module.__init__(self)`: checked by the guard.
            call = ast.Call(
                func=ast.Name("_getattr_", ast.Load()),
                args=[self.visit(node.value), ast.Constant(name)],
                keywords=[],
            )
            return ast.copy_location(call, node)
        if not is_own_private(name):
            return super().visit_Attribute(node)
        value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            call = ast.Call(
                func=ast.Name("_getattr_", ast.Load()),
                args=[value, ast.Constant(name)],
                keywords=[],
            )
            return ast.copy_location(call, node)
        self.private_names.add(name)
        target = ast.Call(
            func=ast.Name("_write_private_", ast.Load()),
            args=[value, ast.Constant(name)],
            keywords=[],
        )
        ast.copy_location(target, node.value)
        return ast.copy_location(ast.Attribute(value=target, attr=name, ctx=node.ctx), node)

    def visit_Import(self, node: ast.Import) -> _Visited:
        for alias in node.names:
            self.check_module(node, alias.name)
        return super().visit_Import(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> _Visited:
        if node.level:
            self.error(node, "relative imports are not available in the sandbox")
        else:
            self.check_module(node, node.module or "")
        return super().visit_ImportFrom(node)

    def check_module(self, node: ast.AST, name: str) -> None:
        why = module_reason(name)
        if why is not None:
            self.error(node, unavailable(name, why))


def is_own_private(name: str | None) -> bool:
    """`_step`, `_buf`, `_helper`: ordinary names of the snippet's own."""
    return (
        name is not None  # (and not empty: then it does not start with "_")
        and name.startswith("_")
        and name != "_"
        and RESERVED_PRIVATE.fullmatch(name) is None
    )


def defined_names(stmt: ast.stmt) -> list[str]:
    """Names a class-body statement defines: a method, or class attributes."""
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def is_plain_slots(stmt: ast.stmt) -> TypeGuard[ast.Assign]:
    """`__slots__ = ("a", "_b")` in a class body: literal names the snippet could also use as
    attributes, so the slots declare nothing that attribute rules would refuse."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == "__slots__"
    ):
        return False
    names = stmt.value.elts if isinstance(stmt.value, (ast.Tuple, ast.List)) else [stmt.value]
    return all(
        isinstance(name, ast.Constant)
        and isinstance(name.value, str)
        and name.value.isidentifier()
        and (not name.value.startswith("_") or is_own_private(name.value))
        for name in names
    )


def is_pure(expr: ast.expr) -> bool:
    """Names, constants, and attribute/subscript/slice chains of them: safe to read twice."""
    if isinstance(expr, (ast.Name, ast.Constant)):
        return True
    if isinstance(expr, ast.Attribute):
        return is_pure(expr.value)
    if isinstance(expr, ast.Subscript):
        return is_pure(expr.value) and is_pure(expr.slice)
    if isinstance(expr, ast.Slice):
        return all(part is None or is_pure(part) for part in (expr.lower, expr.upper, expr.step))
    if isinstance(expr, ast.Tuple):
        return all(is_pure(part) for part in expr.elts)
    return False


def retarget(
    expr: ast.Name | ast.Attribute | ast.Subscript, ctx: ast.expr_context
) -> ast.Name | ast.Attribute | ast.Subscript:
    """A copy of an augmented-assignment target as a plain read or write."""
    copy = copy_module.deepcopy(expr)
    copy.ctx = ctx
    return copy


def compile_candidate(
    source: str,
    filename: str = "<snippet>",
    transform: Callable[[ast.Module], ast.Module] | None = None,
) -> Compiled:
    """Parse, apply the policy (raising Refused for the first violation), then the grader's
    trusted `transform`, and compile with the snippet's line numbers intact."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise CandidateError(
            "SyntaxError", exc.msg, exc.lineno, "".join(traceback.format_exception_only(exc))
        ) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes, absurd nesting
        raise CandidateError(
            type(exc).__name__, str(exc) or "the code cannot be parsed", None
        ) from None
    policy = GrillPolicy([], [], {})
    tree = policy.visit(tree)
    if policy.violations:
        (line, _column), message = min(policy.violations, key=lambda v: v[0])
        raise Refused(message, line or None)
    if transform is not None:
        tree = transform(tree)
    ast.fix_missing_locations(tree)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return Compiled(compile(tree, filename, "exec"), frozenset(policy.private_names))
