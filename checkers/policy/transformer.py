"""The policy at compile time: parse a snippet and rewrite it so that everything it does goes
through the guards (`checkers.policy.guards`).

RestrictedPython rewrites attribute access, item access, iteration, unpacking, augmented
assignment and print into guard calls, and refuses constructs it does not know; grill's
transformer on top routes every call, `with` target, decorator, `*args`/`**kwargs`,
parameter, caught exception, value sent into a generator and `match` capture through a guard,
builds classes through the metaclass their bases (or `metaclass=`) call for, and lets every
name through except the few grill's guards use. What a name may reach is judged when it runs,
not by its underscores. None of this is a sandbox by itself (RestrictedPython says so too):
the process isolation around it is. Runs in the sandbox child (and the grader's in-process
tests).
"""

from __future__ import annotations

import ast
import copy as copy_module
import linecache
import re
import traceback
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeAlias, cast

from RestrictedPython import RestrictingNodeTransformer

from checkers.policy.refusal import CandidateError, Refused, unavailable
from checkers.policy.tables import (
    DENIED_ATTRIBUTES,
    GRAPH_NODE_ATTRIBUTES,
    INTERPRETER_DUNDERS,
    RESERVED_NAME,
)

GRILL_META = "__grill_meta__"
"""The keyword under which a `class X(metaclass=M)` statement hands M to grill's class maker."""

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

PLAIN_WORDS = {
    "AsyncFunctionDef": ("async def", "a run has no event loop"),
    "Await": ("await", "a run has no event loop"),
    "AsyncFor": ("async for", "a run has no event loop"),
    "AsyncWith": ("async with", "a run has no event loop"),
    "TryStar": ("except*", "exception groups are not offered"),
}
"""RestrictedPython's refusals of whole constructs, in the words grill's refusals use."""

RESTRICTED_WORDING = re.compile(r"(\w+) statements are not allowed\.")

READ_BY_GUARDS_ONLY = (
    frozenset(DENIED_ATTRIBUTES) | frozenset(GRAPH_NODE_ATTRIBUTES) | frozenset(INTERPRETER_DUNDERS)
)
"""Attributes a `case C(name=...)` pattern may not name: the interpreter reads a class
pattern's attributes itself, past the guards that judge these names."""


@dataclass(frozen=True)
class Compiled:
    """A snippet compiled under the policy."""

    code: types.CodeType


class GrillPolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer, with every crossing into snippet code guarded, class
    creation made real, and names judged at run time; errors as (line, message)."""

    def __init__(self, errors: list[str], warnings: list[str], used_names: dict[str, bool]) -> None:
        super().__init__(errors, warnings, used_names)
        self.violations: list[tuple[tuple[int, int], str]] = []

    def error(self, node: ast.AST, info: str) -> None:
        super().error(node, info)
        if info in ("Exec calls are not allowed.", "Eval calls are not allowed."):
            info = unavailable(f"{info.split()[0].lower()}()", "it runs code outside the policy")
        elif match := RESTRICTED_WORDING.fullmatch(info):
            construct, why = PLAIN_WORDS.get(match.group(1), (match.group(1), ""))
            info = unavailable(construct, why)
        elif info == '"*" imports are not allowed.':
            info = unavailable("from ... import *", "name what you import")
        # The innermost offending node ends first: report violations in reading order.
        where = (getattr(node, "lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        self.violations.append((where, info))

    def check_name(
        self, node: _Positioned, name: str | None, allow_magic_methods: bool = False
    ) -> None:
        """Every name is the snippet's to use but the few grill's guards and bookkeeping
        take (`_getattr_`, `_call_`, `__builtins__`...)."""
        if name is not None and RESERVED_NAME.fullmatch(name):
            self.error(node, f'"{name}" is a name the sandbox uses for itself: choose another')

    def visit_Module(self, node: ast.Module) -> _Visited:
        """RestrictedPython's print collector goes after the docstring and every
        `from __future__ import`, which must stay first."""
        node = self.node_contents_visit(node)
        position = 0
        for position, child in enumerate(node.body):  # noqa: B007  (the first other statement)
            docstring = (
                position == 0
                and isinstance(child, ast.Expr)
                and isinstance(child.value, ast.Constant)
                and isinstance(child.value.value, str)
            )
            future = isinstance(child, ast.ImportFrom) and child.module == "__future__"
            if not (docstring or future):
                break
        else:
            position = len(node.body)
        self.inject_print_collector(node, position)
        return node

    # -- attributes: every name, judged when it runs ---------------------------------------

    def visit_Attribute(self, node: ast.Attribute) -> _Visited:
        node = self.node_contents_visit(node)
        if isinstance(node.ctx, ast.Load):
            call = ast.Call(_name("_getattr_"), [node.value, ast.Constant(node.attr)], [])
            return ast.copy_location(call, node)
        node.value = ast.copy_location(ast.Call(_name("_write_"), [node.value], []), node.value)
        return node

    # -- calls -----------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> _Visited:
        """Every call goes through `_call_`, which checks the callee and admits the result;
        `*args` and `**kwargs` are taken out item by item as any iteration is. A bare
        `super()` stays as it is (it needs the calling frame)."""
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            return self.node_contents_visit(node)
        node = cast(ast.Call, super().visit_Call(node))  # RestrictedPython's is this call
        _guard_unpacking(node.args, node.keywords)
        if isinstance(node.func, ast.Name) and node.func.id == "_apply_":
            node.func.id = "_call_"
        else:
            node.args.insert(0, node.func)
            node.func = ast.copy_location(_name("_call_"), node)
        return node

    def visit_List(self, node: ast.List) -> _Visited:
        node = cast(ast.List, super().visit_List(node))
        if isinstance(node.ctx, ast.Load):
            _guard_unpacking(node.elts, [])
        return node

    def visit_Tuple(self, node: ast.Tuple) -> _Visited:
        node = cast(ast.Tuple, super().visit_Tuple(node))
        if isinstance(node.ctx, ast.Load):
            _guard_unpacking(node.elts, [])
        return node

    def visit_Set(self, node: ast.Set) -> _Visited:
        node = cast(ast.Set, super().visit_Set(node))
        _guard_unpacking(node.elts, [])
        return node

    def visit_Dict(self, node: ast.Dict) -> _Visited:
        node = cast(ast.Dict, super().visit_Dict(node))
        node.values = [
            _wrap("_mapping_", value) if key is None else value
            for key, value in zip(node.keys, node.values, strict=True)
        ]
        return node

    # -- statements that bind values from elsewhere -------------------------------------------

    def visit_With(self, node: ast.With) -> _Visited:
        """`with cm as x:`: `cm` checked, what `__enter__` gives admitted."""
        node = cast(ast.With, super().visit_With(node))
        for item in node.items:
            item.context_expr = _wrap("_with_", item.context_expr)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> _Visited:
        """Parameters are admitted as they arrive: a function torch or the standard library
        calls back (a hook, a sort key) gets its arguments from outside the snippet."""
        node = cast(ast.FunctionDef, super().visit_FunctionDef(node))
        names = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        _prepend(node, names)
        node.decorator_list = [_wrap("_decorate_", d) for d in node.decorator_list]
        return node

    def visit_Lambda(self, node: ast.Lambda) -> _Visited:
        """A lambda's parameters are admitted too (a sort key, `map`'s function): its body
        becomes `((x := _admit_(x)), ..., body)[-1]`."""
        node = cast(ast.Lambda, super().visit_Lambda(node))
        names = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        if names:
            admits: list[ast.expr] = [
                ast.NamedExpr(ast.Name(n, ast.Store()), _wrap("_admit_", _name(n))) for n in names
            ]
            whole = ast.Tuple([*admits, node.body], ast.Load())
            node.body = ast.copy_location(
                ast.Subscript(whole, ast.Constant(-1), ast.Load()), node.body
            )
            ast.fix_missing_locations(node)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> _Visited:
        node = cast(ast.ExceptHandler, super().visit_ExceptHandler(node))
        if node.name:
            _prepend(node, [node.name])
        return node

    def visit_Yield(self, node: ast.Yield) -> _Visited:
        return _wrap("_admit_", cast(ast.expr, self.node_contents_visit(node)))

    def visit_YieldFrom(self, node: ast.YieldFrom) -> _Visited:
        return _wrap("_admit_", cast(ast.expr, self.node_contents_visit(node)))

    def visit_ClassDef(self, node: ast.ClassDef) -> _Visited:
        """A class is built by grill's class maker, which calls the metaclass the bases (or
        `metaclass=`) ask for with its own `__prepare__` (an Enum body needs its namespace)."""
        self.check_name(node, node.name)
        node = self.node_contents_visit(node)
        keywords = []
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                keyword = ast.copy_location(ast.keyword(GRILL_META, keyword.value), keyword)
            keywords.append(keyword)
        _guard_unpacking(node.bases, keywords)
        node.keywords = [ast.keyword("metaclass", _name("__metaclass__")), *keywords]
        node.decorator_list = [_wrap("_decorate_", d) for d in node.decorator_list]
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> _Visited:
        """`self.total += loss`, `counts[k] += 1`: a guarded read, `_inplacevar_` and a guarded
        write. A target that can be evaluated twice without effects is written out as such;
        any other (`self.buf[next(i)] += x`) goes through one guard that evaluates its object
        and key once."""
        if isinstance(node.target, ast.Name):
            return super().visit_AugAssign(node)
        op = ast.Constant(AUGMENTED_OPERATORS[type(node.op)])
        if is_pure(node.target):
            load = self.visit(retarget(node.target, ast.Load()))
            store = self.visit(retarget(node.target, ast.Store()))
            call = ast.Call(_name("_inplacevar_"), [op, load, self.visit(node.value)], [])
            return ast.copy_location(ast.Assign(targets=[store], value=call), node)
        target = node.target
        if isinstance(target, ast.Attribute):
            args = [self.visit(target.value), ast.Constant(target.attr)]
            guard = "_augattr_"
        else:
            assert isinstance(target, ast.Subscript)
            args = [self.visit(target.value), self.visit(target.slice)]
            guard = "_augitem_"
        call = ast.Call(_name(guard), [*args, op, self.visit(node.value)], [])
        return ast.copy_location(ast.Expr(call), node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> _Visited:
        """`lr: float = 0.01` (dataclass fields): target, annotation and value go through the
        same rules as any assignment and expression."""
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> _Visited:
        return self.node_contents_visit(node)

    # -- match: each capture admitted where its case begins --------------------------------

    def visit_Match(self, node: ast.Match) -> _Visited:
        return self.node_contents_visit(node)

    def visit_match_case(self, node: ast.match_case) -> _Visited:
        node = self.node_contents_visit(node)
        _prepend(node, sorted(_captures(node.pattern)))
        return node

    def _pattern(self, node: ast.pattern) -> _Visited:
        for name in _captures_here(node):
            self.check_name(node, name)
        if isinstance(node, ast.MatchClass):
            for attribute in node.kwd_attrs:
                if attribute in READ_BY_GUARDS_ONLY:
                    self.error(
                        node,
                        unavailable(
                            f"case ...({attribute}=...)", "a class pattern reads it unguarded"
                        ),
                    )
        return self.node_contents_visit(node)

    visit_MatchValue = visit_MatchSingleton = visit_MatchSequence = _pattern
    visit_MatchMapping = visit_MatchClass = visit_MatchStar = visit_MatchAs = _pattern
    visit_MatchOr = _pattern


def _name(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())


def _wrap(guard: str, value: ast.expr) -> ast.Call:
    return ast.copy_location(ast.Call(_name(guard), [value], []), value)


def _guard_unpacking(items: list[ast.expr], keywords: list[ast.keyword]) -> None:
    """`*x` taken out item by item, `**m` key by key, as every iteration is."""
    for item in items:
        if isinstance(item, ast.Starred):
            item.value = _wrap("_getiter_", item.value)
    for keyword in keywords:
        if keyword.arg is None:
            keyword.value = _wrap("_mapping_", keyword.value)


def _prepend(node: ast.FunctionDef | ast.ExceptHandler | ast.match_case, names: list[str]) -> None:
    """`name = _admit_(name)` for each name, at the top of the body (after a docstring)."""
    if not names:
        return
    first = node.body[0] if node.body else node
    admits = [
        ast.copy_location(ast.Assign([ast.Name(n, ast.Store())], _wrap("_admit_", _name(n))), first)
        for n in names
    ]
    for admitted in admits:
        ast.fix_missing_locations(admitted)
    body = node.body
    docstring = (
        isinstance(node, ast.FunctionDef)
        and body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    node.body = [*body[:1], *admits, *body[1:]] if docstring else [*admits, *body]


def _captures(pattern: ast.pattern) -> set[str]:
    return {name for node in ast.walk(pattern) for name in _captures_here(node)}


def _captures_here(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


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
    try:
        tree = policy.visit(tree)
    except RecursionError:
        raise CandidateError("RecursionError", "the code is nested too deeply", None) from None
    if policy.violations:
        (line, _column), message = min(policy.violations, key=lambda v: v[0])
        raise Refused(message, line or None)
    if transform is not None:
        tree = transform(tree)
    ast.fix_missing_locations(tree)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        return Compiled(compile(tree, filename, "exec"))
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        at: int | None = exc.lineno if isinstance(exc, SyntaxError) else None
        raise CandidateError(type(exc).__name__, message or "cannot be compiled", at) from None
