"""The policy at run time: a snippet's fresh namespace (restricted builtins and the guards the
rewritten code calls), and running it so that its errors read as the candidate's own.
"""

from __future__ import annotations

import builtins
import traceback
import weakref
from collections.abc import Mapping

from RestrictedPython import safe_builtins
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from checkers.policy import guards
from checkers.policy.refusal import (
    CANDIDATE_CLASSES,
    CANDIDATE_MARK,
    PRIVATE_NAMES,
    CandidateError,
    Refused,
    candidate_line,
    not_available,
    refused_at_runtime,
)
from checkers.policy.standins import stand_in
from checkers.policy.tables import CANDIDATE_BUILTINS, REFUSED_BUILTINS, UNSAFE_SAFE_BUILTINS
from checkers.policy.transformer import Compiled, is_own_private

PRINT_LIMIT = 64 * 1024
"""Characters of printed text a run keeps unless told otherwise."""


def candidate_namespace(
    compiled: Compiled,
    extra: Mapping[str, object] | None = None,
    *,
    print_limit: int = PRINT_LIMIT,
) -> dict[str, object]:
    """Fresh globals for one snippet: restricted builtins, the guards RestrictedPython's
    rewritten code calls, the proxied `__import__`, and a print sink capped at `print_limit`."""
    classes: weakref.WeakSet[type] = weakref.WeakSet()
    sink = guards.PrintSink(print_limit)
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
