"""The policy at run time: a snippet's fresh namespace (its builtins and the guards the
rewritten code calls), and running it so that its errors read as the candidate's own.
"""

from __future__ import annotations

import builtins
import os
import sys
import traceback
import types
from collections.abc import Mapping

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from checkers.policy import global_state, guards, ranked
from checkers.policy.refusal import (
    CandidateError,
    Ranked,
    Refused,
    Run,
    candidate_line,
    current_run,
    end_run,
    start_run,
)
from checkers.policy.tables import CANDIDATE_BUILTINS
from checkers.policy.transformer import Compiled

PRINT_LIMIT = 64 * 1024
"""Characters of printed text a run keeps unless told otherwise."""

_installed = [False]


def candidate_builtins() -> dict[str, object]:
    """What a snippet's builtins hold: the plain builtins and every exception and warning as
    they are; grill's stand-ins for those it polices (`getattr`, `open`, `__import__`...)."""
    offered: dict[str, object] = {name: getattr(builtins, name) for name in CANDIDATE_BUILTINS}
    for name, value in vars(builtins).items():
        if isinstance(value, type) and issubclass(value, BaseException):
            offered[name] = value
    offered.update(guards.policed_builtins())
    offered["None"], offered["True"], offered["False"] = None, True, False
    return offered


def candidate_namespace(
    compiled: Compiled,
    extra: Mapping[str, object] | None = None,
    *,
    print_limit: int = PRINT_LIMIT,
    rank: Ranked | None = None,
    script: str | None = None,
) -> dict[str, object]:
    """Fresh globals for one snippet: its builtins, the guards the rewritten code calls, and a
    print sink capped at `print_limit`. Its run (scratch folder: the current one) starts now;
    `rank`: it is that rank of a ranked run (torch.distributed is open to it); `script`: the
    snippet's source, placed read-only in the run's folder as the file the snippet runs as
    (`__file__`, `sys.argv[0]`), which a script logging its own code reads."""
    if not _installed[0]:
        guards.install_replacements()
        _installed[0] = True
    global_state.GRILLS[:] = [global_state.taken()]  # as grill left it, before this snippet
    sink = guards.PrintSink(print_limit)
    filename = compiled.code.co_filename
    own_file = place_own_file(filename, script) if script is not None else None
    namespace: dict[str, object] = {
        "__builtins__": candidate_builtins(),
        "__name__": guards.SNIPPET_MODULE,
        "__file__": own_file or filename,
        "__doc__": None,
        "__metaclass__": guards.ClassMaker(),
        "_getattr_": guards.guarded_getattr,
        "_getitem_": guards.guarded_getitem,
        "_getiter_": guards.guarded_iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": guards.guarded_write,
        "_inplacevar_": guards.inplace,
        "_augattr_": guards.augmented_attribute,
        "_augitem_": guards.augmented_item,
        "_call_": guards.guarded_call,
        "_admit_": guards.guarded_admit,
        "_with_": guards.guarded_with,
        "_decorate_": guards.guarded_decorator,
        "_mapping_": guards.guarded_mapping,
        "_print_": lambda _getattr=None: sink,
    }
    namespace.update(extra or {})
    if rank is not None:
        ranked.safe_object_collectives()
    run = Run(filename=filename, scratch=os.getcwd(), ranked=rank, own_file=own_file)
    start_run(namespace, run)
    return namespace


SCRIPT_NAME = "snippet.py"
"""The name a snippet runs under when it came without a file's name (the app's editor)."""


def place_own_file(filename: str, source: str) -> str:
    """Write `source` into the current folder (the run's) under the file's own name, read-only,
    as `python FILE` would find it; the path it has there. The ranks of a ranked run share the
    folder: the first one writes it."""
    name = os.path.basename(filename)
    if not name.endswith(".py") or name.startswith("<"):
        name = SCRIPT_NAME
    path = os.path.join(os.path.realpath(os.getcwd()), name)
    try:
        with open(path, "x", encoding="utf-8") as file:
            file.write(source)
        os.chmod(path, 0o444)
    except FileExistsError:
        pass
    return path


def run_candidate(compiled: Compiled, namespace: dict[str, object]) -> None:
    """Execute compiled snippet code as `python FILE` would (`sys.argv` holds only its name;
    `sys.exit(0)` is a normal end); its exceptions become CandidateError, and a refusal
    becomes Refused even where the snippet caught it."""
    run = current_run()
    own_file = run.own_file if run is not None else None
    argv, sys.argv = (
        sys.argv,
        [os.path.basename(own_file) if own_file else compiled.code.co_filename],
    )
    main, sys.modules["__main__"] = sys.modules.get("__main__"), _main_module(namespace)
    try:
        exec(compiled.code, namespace)
    except Refused:
        raise
    except SystemExit as exc:
        if run is not None and run.refusals:
            raise run.refusals[0] from None
        if run is not None:
            own = [
                f
                for f in traceback.extract_tb(exc.__traceback__)
                if f.filename == compiled.code.co_filename
            ]
            run.ended_at = own[-1].lineno if own else None
        if exc.code not in (None, 0):
            raise candidate_error(exc, compiled.code.co_filename) from None
    except BaseException as exc:
        if run is not None and run.refusals:
            raise run.refusals[0] from None
        raise candidate_error(exc, compiled.code.co_filename) from None
    finally:
        sys.argv = argv
        if main is not None:
            sys.modules["__main__"] = main
    if run is not None and run.refusals:
        raise run.refusals[0]


def _main_module(namespace: dict[str, object]) -> types.ModuleType:
    """`__main__` as pickle looks classes up in it (`torch.save(model)` of the snippet's own
    `Net`): the snippet's names, read one at a time."""
    main = types.ModuleType("__main__")

    def lookup(name: str) -> object:
        try:
            return namespace[name]
        except KeyError:
            raise AttributeError(f"module '__main__' has no attribute '{name}'") from None

    main.__dict__["__getattr__"] = lookup
    return main


def notes(namespace: dict[str, object]) -> list[str]:
    """What the sandbox changed to run this snippet, for the verdict's notes."""
    run = current_run()
    return list(run.notes) if run is not None else []


def ended_at() -> int | None:
    """The line whose `sys.exit()` ended the run's snippet early, if one did."""
    run = current_run()
    return run.ended_at if run is not None else None


def finish(namespace: dict[str, object]) -> None:
    """The snippet is done and measured: its guards act as outside any snippet from now."""
    end_run(namespace)


def candidate_error(exc: BaseException, filename: str) -> CandidateError:
    """The exception as the snippet's author should see it: only frames of their own file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    line = frames[-1].lineno if frames else candidate_line()
    text = "Traceback (most recent call last):\n" if frames else ""
    text += "".join(traceback.format_list(frames))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    if isinstance(exc, SystemExit):
        return CandidateError("SystemExit", f"the script exited with status {exc.code}", line, text)
    message = str(exc) if not isinstance(exc, SyntaxError) else exc.msg
    return CandidateError(type(exc).__name__, message, line, text)
