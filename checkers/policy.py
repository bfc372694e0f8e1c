"""Layer 1 of the sandbox: compile a snippet under a policy, and run it.

RestrictedPython rewrites attribute access, item access, iteration, augmented assignment and
print into calls to guards (`checkers.guards`); grill's transformer on top also routes every
call through a guard, allows what every nn.Module needs (`def __init__`, `super().__init__()`,
`nonlocal`), lets names with one leading underscore through as the snippet's own, and refuses
imports off the allowlist at compile time. None of this is a sandbox by itself (RestrictedPython
says so too): the process isolation around it is. Imported inside the sandbox child, and by the
grader's in-process tests.
"""

from __future__ import annotations

import ast
import builtins
import copy as copy_module
import linecache
import re
import traceback
import types
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeAlias, TypeGuard, cast

from RestrictedPython import RestrictingNodeTransformer, safe_builtins
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from checkers import capabilities, guards
from checkers.facades import stand_in
from checkers.refusal import (
    CANDIDATE_CLASSES,
    CANDIDATE_MARK,
    PRIVATE_NAMES,
    CandidateError,
    Refused,
    candidate_line,
    not_available,
    refused_at_runtime,
)

__all__ = [
    "Refused",
    "CandidateError",
    "Compiled",
    "compile_candidate",
    "candidate_namespace",
    "run_candidate",
]

DUNDER_METHODS = frozenset(
    {
        "__init__",
        "__call__",
        "__repr__",
        "__str__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__contains__",
        "__bool__",
        "__hash__",
        "__enter__",
        "__exit__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__neg__",
        "__post_init__",
    }
)
"""Special methods a snippet's class may define; hooks into lookup, pickling, finalisation or
class creation (`__getattr__`, `__reduce__`, `__del__`...) stay closed."""

READABLE_DUNDER_NAMES = frozenset({"__name__"})
"""Module-level dunder names a snippet may read (`if __name__ == "__main__":`)."""

RESERVED_PRIVATE = re.compile(r"_.*_|_print|_tmp\d+|__.*")
"""Underscore names that stay closed: RestrictedPython's and grill's own (`_getattr_`,
`_print`, `_tmp0`) and every dunder."""

CANDIDATE_BUILTINS = (
    "abs",
    "all",
    "any",
    "bool",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hash",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "ord",
    "pow",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
    "NotImplemented",
    "Ellipsis",
)
"""Builtins beyond RestrictedPython's safe set (exceptions come from there): what training
code uses. No open, exec, eval, compile, globals, vars, getattr, type, input, breakpoint."""

REFUSED_BUILTINS = (
    "open",
    "exec",
    "eval",
    "compile",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "type",
    "input",
    "breakpoint",
    "memoryview",
    "help",
    "dir",
)
"""Present as stubs that refuse when called, so that a snippet may still name a variable
`input` and a call to `open` reads as a refusal rather than a NameError."""

UNSAFE_SAFE_BUILTINS = ("setattr", "delattr", "_getattr_")
"""RestrictedPython's safe set carries these; grill's own guards replace them."""

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
        refusal = capabilities.module_refusal(name)
        if refusal:
            self.error(node, refusal)


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


def candidate_namespace(
    compiled: Compiled, extra: Mapping[str, object] | None = None
) -> dict[str, object]:
    """Fresh globals for one snippet: restricted builtins, the guards RestrictedPython's
    rewritten code calls, the proxied `__import__`, and a capped print sink."""
    classes: weakref.WeakSet[type] = weakref.WeakSet()
    sink = guards.PrintSink()
    allowed = {name: getattr(builtins, name) for name in CANDIDATE_BUILTINS}
    restricted = {k: v for k, v in safe_builtins.items() if k not in UNSAFE_SAFE_BUILTINS}
    restricted.update({name: guards.refusing_stub(name) for name in REFUSED_BUILTINS})
    restricted.update(allowed, __import__=guards.guarded_import, hasattr=guards.guarded_hasattr)
    namespace = {
        "__builtins__": restricted,
        "__name__": "__main__",
        CANDIDATE_MARK: True,
        CANDIDATE_CLASSES: classes,
        PRIVATE_NAMES: compiled.private_names,
        "__metaclass__": lambda name, bases, ns: make_class(classes, name, bases, ns),
        "_getattr_": guards.guarded_getattr,
        "_getitem_": guards.guarded_getitem,
        "_getiter_": guards.guarded_iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": guards.guarded_write,
        "_write_private_": guards.write_private,
        "_inplacevar_": guards.inplace,
        "_call_": guards.guarded_call,
        "_print_": lambda _getattr=None: sink,
    }
    namespace.update(extra or {})
    return namespace


def run_candidate(compiled: Compiled, namespace: dict[str, object]) -> None:
    """Execute compiled snippet code; its exceptions become CandidateError, a runtime denial
    becomes Refused (even one the snippet caught)."""
    refused_at_runtime.clear()
    try:
        exec(compiled.code, namespace)
    except Refused:
        raise
    except BaseException as exc:
        if refused_at_runtime:
            raise refused_at_runtime[0] from None
        raise candidate_error(exc, compiled.code.co_filename) from None
    if refused_at_runtime:
        raise refused_at_runtime[0]


def candidate_error(exc: BaseException, filename: str) -> CandidateError:
    """The exception as the snippet's author should see it: only frames of their own file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    line = frames[-1].lineno if frames else candidate_line()
    text = "Traceback (most recent call last):\n" if frames else ""
    text += "".join(traceback.format_list(frames))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    message = str(exc) if not isinstance(exc, SyntaxError) else exc.msg
    return CandidateError(type(exc).__name__, message, line, text)


def make_class(
    classes: weakref.WeakSet[type], name: str, bases: tuple[type, ...], ns: dict[str, object]
) -> type:
    """Build a snippet's class with the metaclass its bases need, and remember it. A class
    body may not override a private name torch's bases use (`_get_iterator`)."""
    meta = type
    for base in bases:
        if issubclass(type(base), meta):
            meta = type(base)
    for attr in ns:
        if is_own_private(attr) and any(
            guards.torch_uses(base, attr, classes) for base in bases if isinstance(base, type)
        ):
            raise not_available(f"{name}.{attr} (overriding a private name of its base)")
    cls = meta(name, bases, ns)
    classes.add(cls)
    return cls


stand_in(guards.guarded_import)
stand_in(guards.guarded_hasattr)
