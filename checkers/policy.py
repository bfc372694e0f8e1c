"""Layer 1 of the sandbox: compile a candidate's snippet under a policy, and run it.

RestrictedPython rewrites attribute access, item access, augmented assignment and print into
calls to guards we supply; grill's own transformer on top allows what every nn.Module needs
(`def __init__`, `super().__init__()`, `nonlocal`) and refuses imports off the allowlist at
compile time. At run time the guards consult `checkers.capabilities`. None of this is a
sandbox by itself (RestrictedPython says so too): the process isolation around it is.
Imported inside the sandbox child, and by the grader's in-process tests.
"""

from __future__ import annotations

import _string
import ast
import builtins
import copy as copy_module
import dis
import linecache
import operator
import string
import sys
import traceback
import types
import weakref
from collections.abc import Callable

from RestrictedPython import RestrictingNodeTransformer, safe_builtins
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from checkers import capabilities
from checkers.refusal import (CANDIDATE_CLASSES, CANDIDATE_MARK, CandidateError, Refused, candidate_line,
                              not_available, refused_at_runtime)

__all__ = ["Refused", "CandidateError", "compile_candidate", "candidate_namespace",
           "run_candidate", "set_print_limit"]

DUNDER_METHODS = frozenset({
    "__init__", "__call__", "__repr__", "__str__", "__len__", "__iter__", "__next__",
    "__getitem__", "__setitem__", "__contains__", "__bool__", "__hash__", "__enter__",
    "__exit__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__",
    "__sub__", "__mul__", "__truediv__", "__neg__",
})
"""Special methods a candidate's class may define; hooks into lookup, pickling,
finalisation or class creation (`__getattr__`, `__reduce__`, `__del__`...) stay closed."""

READABLE_DUNDER_NAMES = frozenset({"__name__"})
"""Module-level dunder names a snippet may read (`if __name__ == "__main__":`)."""

CANDIDATE_BUILTINS = (
    "abs", "all", "any", "bool", "callable", "chr", "classmethod", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next",
    "object", "ord", "pow", "property", "range", "repr", "reversed", "round", "set",
    "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "zip",
    "NotImplemented", "Ellipsis",
)
"""Builtins beyond RestrictedPython's safe set (exceptions come from there): what training
code uses. No open, exec, eval, compile, globals, vars, getattr, type, input, breakpoint."""

REFUSED_BUILTINS = (
    "open", "exec", "eval", "compile", "globals", "locals", "vars", "getattr", "setattr",
    "delattr", "type", "input", "breakpoint", "memoryview", "help", "dir",
)
"""Present as stubs that refuse when called, so that a snippet may still name a variable
`input` and a call to `open` reads as a refusal rather than a NameError."""

UNSAFE_SAFE_BUILTINS = ("setattr", "delattr", "_getattr_")
"""RestrictedPython's safe set carries these; grill's own guards replace them."""

AUGMENTED_OPERATORS = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=",
    ast.Mod: "%=", ast.Pow: "**=", ast.MatMult: "@=", ast.LShift: "<<=", ast.RShift: ">>=",
    ast.BitAnd: "&=", ast.BitOr: "|=", ast.BitXor: "^=",
}

INPLACE_OPERATORS = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "@=": operator.imatmul, "<<=": operator.ilshift, ">>=": operator.irshift,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
}

STR_FORMATTERS = (str.format, str.format_map)

_print_limit = 64 * 1024


def set_print_limit(chars: int) -> None:
    """How much printed text a run keeps; the sandbox sets it from its Limits."""
    global _print_limit
    _print_limit = chars


class GrillPolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer with the relaxations an nn.Module needs, the import
    allowlist, and structured (line, message) errors."""

    def __init__(self, errors, warnings, used_names):
        super().__init__(errors, warnings, used_names)
        self.violations: list[tuple[tuple[int, int], str]] = []
        self.methods: set[int] = set()
        self.slots: set[int] = set()

    def error(self, node, info):
        super().error(node, info)
        if info in ("Exec calls are not allowed.", "Eval calls are not allowed."):
            info = f"'{info.split()[0].lower()}()' is not available in the sandbox"
        # The innermost offending node ends first: report violations in reading order.
        where = (getattr(node, "lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        self.violations.append((where, info))

    def check_name(self, node, name, allow_magic_methods=False):
        if name == "__slots__" and id(node) in self.slots:
            return
        if allow_magic_methods and name in DUNDER_METHODS and id(node) in self.methods:
            return
        if name in READABLE_DUNDER_NAMES and isinstance(node, ast.Name) \
                and isinstance(node.ctx, ast.Load):
            return
        super().check_name(node, name, allow_magic_methods=False)

    def visit_ClassDef(self, node):
        # Only defs directly in a class body are methods that may carry a dunder name.
        self.methods.update(id(stmt) for stmt in node.body if isinstance(stmt, ast.FunctionDef))
        self.slots.update(id(stmt.targets[0]) for stmt in node.body if is_plain_slots(stmt))
        return super().visit_ClassDef(node)

    def visit_AugAssign(self, node):
        """`self.total += loss`, `counts[k] += 1`: rewritten to a guarded read, `_inplacevar_`
        and a guarded write. Only for targets that can be evaluated twice without effects."""
        if isinstance(node.target, ast.Name) or not is_pure(node.target):
            return super().visit_AugAssign(node)
        load = self.visit(retarget(node.target, ast.Load()))
        store = self.visit(retarget(node.target, ast.Store()))
        value = self.visit(node.value)
        op = ast.Constant(AUGMENTED_OPERATORS[type(node.op)])
        call = ast.Call(func=ast.Name("_inplacevar_", ast.Load()), args=[op, load, value],
                        keywords=[])
        return ast.copy_location(ast.Assign(targets=[store], value=call), node)

    def visit_AnnAssign(self, node):
        """`lr: float = 0.01` (dataclass fields): the target, annotation and value go through
        the same rules as any assignment and expression."""
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node):
        return self.node_contents_visit(node)

    def visit_Attribute(self, node):
        if node.attr == "__init__" and isinstance(node.ctx, ast.Load):
            # `super().__init__(...)` / `nn.Module.__init__(self)`: the one dunder read allowed.
            call = ast.Call(func=ast.Name("_getattr_", ast.Load()),
                            args=[self.visit(node.value), ast.Constant("__init__")], keywords=[])
            return ast.copy_location(call, node)
        return super().visit_Attribute(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.check_module(node, alias.name)
        return super().visit_Import(node)

    def visit_ImportFrom(self, node):
        if node.level:
            self.error(node, "relative imports are not available in the sandbox")
        else:
            self.check_module(node, node.module or "")
        return super().visit_ImportFrom(node)

    def check_module(self, node, name: str) -> None:
        if name not in capabilities.ALLOWED_MODULES or capabilities.denial_reason(name):
            self.error(node, f"'{name}' is not available in the sandbox")


def is_plain_slots(stmt: ast.stmt) -> bool:
    """`__slots__ = ("a", "b")` in a class body: literal names a candidate could also use as
    attributes, so the slots declare nothing that attribute rules would refuse."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == "__slots__"):
        return False
    names = stmt.value.elts if isinstance(stmt.value, (ast.Tuple, ast.List)) else [stmt.value]
    return all(isinstance(name, ast.Constant) and isinstance(name.value, str)
               and name.value.isidentifier() and not name.value.startswith("_")
               for name in names)


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


def retarget(expr: ast.expr, ctx: ast.expr_context) -> ast.expr:
    """A copy of an augmented-assignment target as a plain read or write."""
    copy = copy_module.deepcopy(expr)
    copy.ctx = ctx
    return copy


def compile_candidate(source: str, filename: str = "<snippet>",
                      transform: Callable[[ast.Module], ast.Module] | None = None
                      ) -> types.CodeType:
    """Parse, apply the policy (raising Refused for the first violation), then the grader's
    trusted `transform`, and compile with the candidate's line numbers intact."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise CandidateError("SyntaxError", exc.msg, exc.lineno,
                             "".join(traceback.format_exception_only(exc))) from None
    policy = GrillPolicy([], [], {})
    tree = policy.visit(tree)
    if policy.violations:
        (line, _column), message = min(policy.violations, key=lambda v: v[0])
        raise Refused(message, line or None)
    if transform is not None:
        tree = transform(tree)
    ast.fix_missing_locations(tree)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return compile(tree, filename, "exec")


def candidate_namespace(extra: dict | None = None) -> dict:
    """Fresh globals for one snippet: restricted builtins, the guards RestrictedPython's
    rewritten code calls, the proxied `__import__`, and a capped print sink."""
    candidate_classes: weakref.WeakSet = weakref.WeakSet()
    sink = PrintSink()
    allowed = {name: getattr(builtins, name) for name in CANDIDATE_BUILTINS}
    restricted = {k: v for k, v in safe_builtins.items() if k not in UNSAFE_SAFE_BUILTINS}
    restricted.update({name: refusing_stub(name) for name in REFUSED_BUILTINS})
    restricted.update(allowed, __import__=guarded_import, hasattr=guarded_hasattr)
    namespace = {
        "__builtins__": restricted,
        "__name__": "__main__",
        CANDIDATE_MARK: True,
        CANDIDATE_CLASSES: candidate_classes,
        "__metaclass__": lambda name, bases, ns: make_class(candidate_classes, name, bases, ns),
        "_getattr_": guarded_getattr,
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": lambda obj: guarded_write(candidate_classes, obj),
        "_inplacevar_": inplace,
        "_apply_": lambda f, *args, **kwargs: f(*args, **kwargs),
        "_print_": lambda _getattr=None: sink,
    }
    namespace.update(extra or {})
    return namespace


def run_candidate(code: types.CodeType, namespace: dict) -> None:
    """Execute compiled candidate code; its exceptions become CandidateError, a runtime
    denial becomes Refused (even one the snippet caught), grader control flow passes."""
    refused_at_runtime.clear()
    try:
        exec(code, namespace)
    except Refused:
        raise
    except BaseException as exc:
        if getattr(type(exc), "grill_control", False) \
                and type(exc) not in namespace.get(CANDIDATE_CLASSES, ()):
            raise
        if refused_at_runtime:
            raise refused_at_runtime[0] from None
        raise candidate_error(exc, code.co_filename) from None
    if refused_at_runtime:
        raise refused_at_runtime[0]


def candidate_error(exc: BaseException, filename: str) -> CandidateError:
    """The exception as the candidate should see it: only frames of their own file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    line = frames[-1].lineno if frames else candidate_line()
    text = "Traceback (most recent call last):\n" if frames else ""
    text += "".join(traceback.format_list(frames))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    message = str(exc) if not isinstance(exc, SyntaxError) else exc.msg
    return CandidateError(type(exc).__name__, message, line, text)


def refusing_stub(name: str) -> Callable:
    """A builtin the sandbox does not offer: calling it is a refusal naming it."""
    def refused(*args, **kwargs):
        raise not_available(f"{name}()")
    refused.__name__ = refused.__qualname__ = name  # its repr names the builtin, not grill
    return refused


def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    """`__import__` as candidate code sees it.

    An `import` statement in candidate code gets a capability proxy. torch's C code can also
    reach this function (C-level imports look `__import__` up in the builtins of the frame on
    top, which may be the candidate's); such callers read the module from sys.modules, so they
    get the real import and a None that no candidate code can receive."""
    caller = sys._getframe(1)
    if caller.f_globals.get(CANDIDATE_MARK) and is_import_statement(caller):
        if level:
            raise not_available("relative import")
        proxy = capabilities.import_proxy(name)
        return proxy if fromlist else capabilities.import_proxy(name.partition(".")[0])
    builtins.__import__(name, globals, locals, fromlist, level)
    return None


def is_import_statement(frame: types.FrameType) -> bool:
    return frame.f_code.co_code[frame.f_lasti] == dis.opmap["IMPORT_NAME"]


def guarded_getattr(obj, name, *default):
    """`obj.name` in candidate code (RestrictedPython rewrites every attribute read to this)."""
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if isinstance(obj, types.ModuleType):
        # A real module a torch function handed back (torch.get_device_module()): read it
        # as its proxy would be read, or not at all.
        if obj.__name__ not in capabilities.ALLOWED_MODULES:
            raise not_available(f"{obj.__name__}.{name}")
        obj = capabilities.ModuleProxy(obj.__name__)
    if isinstance(obj, capabilities.ModuleProxy):
        return getattr(obj, name, *default)
    if (name.startswith("_") and name != "__init__") or name in INSPECT_ATTRIBUTES \
            or name in capabilities.DENIED_ATTRIBUTES \
            or (name in capabilities.DENIED_NODE_ATTRIBUTES and capabilities.is_graph_node(obj)):
        raise not_available(f"{describe(obj)}.{name}")
    value = getattr(obj, name, *default)
    if is_str_formatter(value):
        return policed_formatter(value)
    if isinstance(value, types.ModuleType):
        if value.__name__ not in capabilities.ALLOWED_MODULES:
            raise not_available(f"{describe(obj)}.{name}")
        return capabilities.ModuleProxy(value.__name__)
    return value


def is_str_formatter(value) -> bool:
    """`str.format` and `str.format_map`, however reached (`'...'.format`, `S.format` on a
    str subclass, `super().format`): their templates read attributes and items
    (`{0.__class__}`) that the policy would never see, so they are handed out policed."""
    if isinstance(value, types.BuiltinMethodType) and isinstance(value.__self__, str):
        return value.__name__ in ("format", "format_map")
    return any(value is formatter for formatter in STR_FORMATTERS)


class PolicedFormatter(string.Formatter):
    """`str.format` with each `.attr` and `[key]` of a template field read as candidate code
    reads it: `'{:.4f}'.format(loss)` works, `'{0.__class__}'.format(1)` is refused."""

    def get_field(self, field_name, args, kwargs):
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = guarded_getattr(obj, key) if is_attribute else obj[key]
        return obj, first


def policed_formatter(method) -> Callable:
    """The policed stand-in for a `format`/`format_map` method, bound or not."""
    formatter = PolicedFormatter()
    template = getattr(method, "__self__", None)
    if not isinstance(template, str):  # str.format(template, ...) read from the class
        def policed(template, *args, **kwargs):
            if not isinstance(template, str):
                raise TypeError(f"descriptor '{method.__name__}' requires a 'str' object")
            return policed_formatter(getattr(template, method.__name__))(*args, **kwargs)
    elif method.__name__ == "format_map":
        def policed(mapping):
            return formatter.vformat(template, (), mapping)
    else:
        def policed(*args, **kwargs):
            return formatter.vformat(template, args, kwargs)
    policed.__name__ = policed.__qualname__ = f"str.{method.__name__}"  # what its repr shows
    return policed


def guarded_hasattr(obj, name) -> bool:
    """`hasattr` under the same rules as attribute reads: asking about a closed name is
    refused like reading it."""
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def describe(obj) -> str:
    """A short name for refusals: the class name for instances, the qualname for types."""
    return obj.__qualname__ if isinstance(obj, type) else type(obj).__name__


def guarded_write(candidate_classes: weakref.WeakSet, obj):
    """`obj.x = ...` / `obj[k] = ...` target: any instance, but no class that the candidate
    did not define (monkeypatching torch would fool the grader). Module proxies refuse
    writes themselves."""
    if isinstance(obj, types.ModuleType):
        raise not_available(f"module {obj.__name__} attributes")
    if isinstance(obj, type) and obj not in candidate_classes:
        raise not_available(f"{obj.__qualname__} attributes")
    return obj


def make_class(candidate_classes: weakref.WeakSet, name, bases, ns):
    """Build a candidate class with the metaclass its bases need, and remember it."""
    meta = type
    for base in bases:
        if issubclass(type(base), meta):
            meta = type(base)
    cls = meta(name, bases, ns)
    candidate_classes.add(cls)
    return cls


def inplace(op: str, target, value):
    """`x += y` keeps Python's in-place meaning (a tensor's add_, a list's extend)."""
    return INPLACE_OPERATORS[op](target, value)


class PrintSink:
    """Where candidate `print` goes: stdout, truncated after the print limit with a note."""

    def __init__(self):
        self.written = 0
        self._call_print = CandidatePrint(self.write)  # what RestrictedPython's code calls

    def write(self, *objects, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise not_available("print(file=...)")
        text = (sep if isinstance(sep, str) else " ").join(map(str, objects)) \
            + (end if isinstance(end, str) else "\n")
        if self.written >= _print_limit:
            return
        room = _print_limit - self.written
        if len(text) > room:
            text = text[:room] + f"\n[output truncated after {_print_limit} characters]\n"
        self.written += len(text)
        sys.stdout.write(text)

    def __call__(self) -> str:
        return ""


class CandidatePrint:
    """`print` as the snippet holds it (`print(print)`, `key=print`): it prints, and its
    repr names nothing of grill."""

    def __init__(self, write: Callable):
        self._write = write

    def __call__(self, *objects, **options):
        return self._write(*objects, **options)

    def __repr__(self) -> str:
        return "<built-in function print>"

