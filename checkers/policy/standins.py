"""grill's stand-ins, handed to snippets in place of the real thing: open, though their code is
grill's. A single-process DataLoader, `@dataclass` for the snippet's own classes, `open`,
`torch.save` and `torch.load` confined to the run's folder, and `traceback` printing that
shows the candidate's frames only; the guards add the builtins they police.

Stand-ins are kept by id, next to a reference so that no id is reused while it is listed.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

from checkers.policy.refusal import FACTS_CHANGED, OWN_CLASSES, current_run, not_available

if TYPE_CHECKING:
    from torch.utils.data import DataLoader as TorchDataLoader

STAND_INS: dict[int, object] = {}

T = TypeVar("T")


def stand_in(function: T) -> T:
    """Mark `function` (or a class) as one a snippet may hold and call; returns it."""
    STAND_INS[id(function)] = function
    FACTS_CHANGED[0] += 1
    return function


def is_stand_in(value: object) -> bool:
    return STAND_INS.get(id(value)) is value


def _named(function: T, module: str, name: str) -> T:
    """A stand-in whose repr names the real thing, not grill."""
    function.__module__ = module  # (a function or a class)
    function.__name__ = function.__qualname__ = name  # type: ignore[attr-defined]
    return stand_in(function)


# -- the run's folder ----------------------------------------------------------------------


def inside_run_folder(path: object, what: str) -> str:
    """`path` resolved, when it lies inside the run's own folder; else a refusal naming it.
    Files are a capability confined, not refused: logs and checkpoints work there and go
    with the run."""
    if isinstance(path, int) or not isinstance(path, (str, bytes, os.PathLike)):
        raise not_available(f"{what}({path!r})", "only paths inside the run's folder")
    run = current_run()
    folder = os.path.realpath(run.scratch if run is not None else os.getcwd())
    resolved = os.path.realpath(os.fsdecode(path))
    if resolved != folder and not resolved.startswith(folder + os.sep):
        raise not_available(f"{what}({os.fsdecode(path)!r})", "files outside the run's folder")
    return resolved


def confined_open(file: object, *args: Any, **kwargs: Any) -> IO[Any]:
    """`open` for files inside the run's folder; the snippet's own file only for reading. An
    error names the file as the snippet named it, never the run folder's place on the host."""
    path = inside_run_folder(file, "open")
    named = os.fsdecode(cast("str | bytes | os.PathLike[str]", file))  # (checked above)
    run = current_run()
    mode = str(args[0] if args else kwargs.get("mode", "r"))
    if run is not None and path == run.own_file and any(c in mode for c in "wax+"):
        raise not_available(f"open({named!r}, {mode!r})", "the snippet's own file is read-only")
    try:
        return cast(IO[Any], builtins.open(path, *args, **kwargs))
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, named) from None


_named(confined_open, "builtins", "open")


@functools.cache
def confined_torch() -> tuple[Callable[..., object], Callable[..., object]]:
    """`torch.save` and `torch.load` for paths inside the run's folder (or file objects), and
    `torch.load` only with `weights_only=True`, which unpickles tensors and plain values, never
    code."""
    import torch

    def save(obj: object, f: object, *args: Any, **kwargs: Any) -> None:
        if isinstance(f, (str, bytes, os.PathLike, int)):
            f = inside_run_folder(f, "torch.save")
        torch.save(obj, f, *args, **kwargs)  # type: ignore[arg-type]  # (checked above)

    def load(f: object, *args: Any, **kwargs: Any) -> object:
        if kwargs.get("weights_only") is False or len(args) >= 3 and args[2] is False:
            raise not_available("torch.load(weights_only=False)", "unpickling runs code")
        if isinstance(f, (str, bytes, os.PathLike, int)):
            f = inside_run_folder(f, "torch.load")
        kwargs["weights_only"] = True
        return torch.load(f, *args[:2], **kwargs)  # type: ignore[arg-type]  # (checked above)

    return _named(save, "torch", "save"), _named(load, "torch", "load")


# -- DataLoader --------------------------------------------------------------------------------

IN_PROCESS_SETTINGS = {
    "num_workers": 0,
    "multiprocessing_context": None,
    "persistent_workers": False,
    "prefetch_factor": None,
    "worker_init_fn": None,
}
"""The DataLoader settings that start or feed worker processes, as a run uses them."""


@functools.cache
def single_process_data_loader() -> type[TorchDataLoader[object]]:
    """torch's DataLoader, its workers kept in process (worker processes would outlive a kill
    and hold pipes): a loader asked for workers loads the same batches in the run's own
    process, and the verdict notes it."""
    from torch.utils.data import DataLoader as TorchDataLoader
    from torch.utils.data.dataloader import _SingleProcessDataLoaderIter

    signature = inspect.signature(TorchDataLoader.__init__)

    class DataLoader(TorchDataLoader[object]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # Bound as torch binds them, so a setting passed by position is seen too.
            bound = signature.bind(self, *args, **kwargs)
            in_process(bound.arguments)
            super().__init__(*bound.args[1:], **bound.kwargs)

        def __setattr__(self, name: str, value: object) -> None:
            if name in IN_PROCESS_SETTINGS and value != IN_PROCESS_SETTINGS[name]:
                in_process({name: value})
                value = IN_PROCESS_SETTINGS[name]
            super().__setattr__(name, value)

        def _get_iterator(self) -> _SingleProcessDataLoaderIter:
            if self.num_workers:  # a subclass that answers num_workers itself
                raise not_available(
                    "DataLoader.num_workers",
                    "a loader that answers it itself cannot run in process",
                )
            return _SingleProcessDataLoaderIter(self)

    DataLoader.__module__ = "torch.utils.data"
    DataLoader.__qualname__ = "DataLoader"
    for member in vars(DataLoader).values():
        if callable(member):
            stand_in(member)
    return stand_in(DataLoader)


def in_process(settings: dict[str, object]) -> None:
    """Turn worker settings into their in-process values, and note what was asked for."""
    workers = settings.get("num_workers")
    for name, value in IN_PROCESS_SETTINGS.items():
        if name in settings and settings[name] != value:
            settings[name] = value
    run = current_run()
    if workers and run is not None:
        note = (
            f"DataLoader(num_workers={workers}) loads its batches in the run's own process:"
            " the sandbox starts no worker processes, so batches are the same, only slower."
        )
        if note not in run.notes:
            run.notes.append(note)


# -- the snippet's own classes ---------------------------------------------------------------


def candidate_dataclass(
    cls: type | None = None, /, **options: bool
) -> Callable[[type], type] | type:
    """`@dataclass` for the snippet's own classes only: on a class it did not define it would
    rewrite that class's `__init__`, `__eq__`... (nn.Module's, say), which would fool the grader."""

    def decorate(cls: type) -> type:
        if cls not in OWN_CLASSES:
            raise not_available(f"dataclass({getattr(cls, '__qualname__', type(cls).__name__)})")
        made: type = dataclasses.dataclass(cls, **options)
        OWN_CLASSES.add(made)  # slots=True builds a new class: it is still the snippet's own
        return made

    _named(decorate, "dataclasses", "dataclass")
    return decorate if cls is None else decorate(cls)


_named(candidate_dataclass, "dataclasses", "dataclass")


# -- tracebacks as the candidate sees them --------------------------------------------------


def _own_frames(summary: traceback.StackSummary) -> traceback.StackSummary:
    run = current_run()
    filename = run.filename if run is not None else None
    return traceback.StackSummary.from_list([f for f in summary if f.filename == filename])


def _exception_lines(exc: BaseException | None = None) -> list[str]:
    if exc is None:
        exc = sys.exception()
    if exc is None:
        return ["NoneType: None\n"]
    shown = traceback.TracebackException.from_exception(exc)
    for part in _chain(shown):
        part.stack = _own_frames(part.stack)
    return list(shown.format())


def _chain(shown: traceback.TracebackException) -> list[traceback.TracebackException]:
    found, todo = [], [shown]
    while todo:
        part = todo.pop()
        found.append(part)
        todo += [p for p in (part.__cause__, part.__context__) if p is not None]
    return found


def format_exc(limit: int | None = None, chain: bool = True) -> str:
    return "".join(_exception_lines())


def print_exc(limit: int | None = None, file: object = None, chain: bool = True) -> None:
    sys.stderr.write(format_exc())


def format_exception(exc: object, /, *args: object, **kwargs: object) -> list[str]:
    return _exception_lines(exc if isinstance(exc, BaseException) else None)


def print_exception(exc: object, /, *args: object, **kwargs: object) -> None:
    sys.stderr.write("".join(format_exception(exc)))


def format_stack(f: object = None, limit: int | None = None) -> list[str]:
    return list(_own_frames(traceback.extract_stack()).format())


def print_stack(f: object = None, limit: int | None = None, file: object = None) -> None:
    sys.stderr.write("".join(format_stack()))


def extract_stack(f: object = None, limit: int | None = None) -> traceback.StackSummary:
    return _own_frames(traceback.extract_stack())


TRACEBACK_STAND_INS = {
    name: _named(function, "traceback", name)
    for name, function in {
        "format_exc": format_exc,
        "print_exc": print_exc,
        "format_exception": format_exception,
        "print_exception": print_exception,
        "format_stack": format_stack,
        "print_stack": print_stack,
        "extract_stack": extract_stack,
    }.items()
}
"""`traceback`'s printing as the candidate sees it: their own frames, none of grill's."""
