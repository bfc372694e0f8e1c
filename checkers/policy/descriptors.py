"""Files, however the standard library is asked to open one: by path or by raw descriptor.

The snippet's own `open` is confined to the run's folder and the os view refuses an integer
descriptor, but open stdlib code calls the real openers itself (`codecs.open`, `gzip.open`,
`tokenize.open`, `argparse.FileType`, `logging.FileHandler`, `pathlib.Path.open`, `shutil`,
`tempfile`): a file anywhere on the host, or a descriptor of the run's process (its output,
the hand-off to the worker). So, once, each real opener of the table below is swapped, wherever
the interpreter keeps it (`builtins.open`, `io.open`, `os.open`, and every reference an open
stdlib module or its classes took of one at import: `tokenize._builtin_open`), for one that,
while snippet code is on the stack, opens what the snippet's own `open` would: a path inside
the run's folder (its own file only for reading), or a read of library code (the Python
installation, site-packages, grill's own package, the source of a module already imported:
what linecache, tokenize and warnings read for torch's and grill's own work). Below this, the
operating system's layers confine files again.

`io.open` keeps the descriptors of its kind: `tempfile` opens with it the descriptor it has just
made itself, and the snippet never holds the real `io.open` (its `io.open` is its own `open`).
"""

from __future__ import annotations

import builtins
import errno
import functools
import logging
import os
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from checkers.policy import tables
from checkers.policy.refusal import candidate_frame, current_run, not_available
from checkers.policy.standins import inside_run_folder

REAL_OPEN = builtins.open
"""The real `open`; `io.open` and `_io.open` are the same object."""
REAL_OS_OPEN = os.open

WRITING_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@dataclass(frozen=True)
class Opener:
    """One way the interpreter opens a file, and what it may open while snippet code runs."""

    name: str
    real: Callable[..., Any]
    writes: Callable[[tuple[Any, ...], dict[str, Any]], bool]
    """Whether the call, by its arguments after the file, may write."""
    raw_descriptors: bool
    """Whether an integer is opened as it is (a descriptor the caller made itself)."""


def _mode_writes(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    mode = args[0] if args else kwargs.get("mode", "r")
    return any(c in str(mode) for c in "wax+")


def _flags_write(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    flags = args[0] if args else kwargs.get("flags", 0)
    return not isinstance(flags, int) or bool(flags & WRITING_FLAGS)


OPENERS = (
    Opener("builtins.open", REAL_OPEN, _mode_writes, raw_descriptors=False),
    Opener("io.open", REAL_OPEN, _mode_writes, raw_descriptors=True),
    Opener("os.open", REAL_OS_OPEN, _flags_write, raw_descriptors=False),
)
"""The capability kind "opens a file": every real opener, by the name it is swapped under."""
OWN_REFERENCES = {"io": "io.open", "_io": "io.open"}
"""Modules whose references to the real `open` are the `io.open` kind (`tempfile` calls
`_io.open` on the descriptor it has just made)."""


@functools.cache
def library_roots() -> tuple[str, ...]:
    """Folders of read-only library code: the Python installation and its site-packages (torch
    among them), and grill's own package."""
    roots = {os.path.dirname(os.path.dirname(os.path.realpath(__file__)))}
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        variables = {"base": prefix, "platbase": prefix, "installed_base": prefix}
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            roots.add(os.path.realpath(sysconfig.get_path(key, vars=variables)))
    return tuple(sorted(roots))


def is_library_code(file: object) -> bool:
    if not isinstance(file, (str, bytes, os.PathLike)):
        return False
    resolved = os.path.realpath(os.fsdecode(file))
    if resolved == os.path.realpath(sys.executable):  # (`platform` reads the interpreter)
        return True
    if any(resolved.startswith(root + os.sep) for root in library_roots()):
        return True
    return any(  # the source of a module already imported, as a warning's line reads it
        isinstance(path := getattr(module, "__file__", None), str)
        and os.path.realpath(path) == resolved
        for module in list(sys.modules.values())
    )


def check(opener: Opener, file: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Raises unless the snippet's own `open` could open `file` so, or it is a read of library
    code; an integer only for the kind that keeps its descriptors."""
    if isinstance(file, int):
        if not opener.raw_descriptors:
            raise not_available(f"{opener.name}({file!r})", "raw file descriptors")
        return
    writes = opener.writes(args, kwargs)
    if not writes and is_library_code(file) or file == os.devnull:
        return  # (/dev/null holds nothing: `subprocess` and `platform` open it for quiet)
    path = inside_run_folder(file, opener.name)
    run = current_run()
    if writes and run is not None and path == run.own_file:
        named = os.fsdecode(file)
        raise not_available(f"{opener.name}({named!r})", "the snippet's own file is read-only")


def checked(opener: Opener, measuring: Callable[[], bool]) -> Callable[..., Any]:
    """The real opener, checked while snippet code runs and grill is not measuring (grill's
    own code then opens what it needs, such as /dev/null for the profiler's noise)."""
    real = opener.real

    def checked_opener(file: Any, *args: Any, **kwargs: Any) -> Any:
        if not measuring() and candidate_frame() is not None:
            check(opener, file, args, kwargs)
        return real(file, *args, **kwargs)

    checked_opener.__name__ = checked_opener.__qualname__ = real.__name__
    return checked_opener


def install(measuring: Callable[[], bool]) -> list[str]:
    """Swap each real opener for its checked one wherever it is kept; the places, by path."""
    by_name = {opener.name: checked(opener, measuring) for opener in OPENERS}
    builtins.open = by_name["builtins.open"]
    os.open = by_name["os.open"]
    swapped = ["builtins.open", "os.open"]
    for name in sorted(tables.STDLIB_HOMES):
        module = sys.modules.get(name)
        if module is None:
            continue
        instead = {
            REAL_OPEN: by_name[OWN_REFERENCES.get(name, "builtins.open")],
            REAL_OS_OPEN: by_name["os.open"],
        }
        for key, value in list(vars(module).items()):
            if _is_real(value):
                setattr(module, key, instead[value])
                swapped.append(f"{name}.{key}")
            elif isinstance(value, type) and value.__module__ == name:
                for attribute, held in list(vars(value).items()):
                    if _is_real(held):
                        setattr(value, attribute, staticmethod(instead[held]))
                        swapped.append(f"{name}.{key}.{attribute}")
    handle_error = _file_size_not_swallowed(logging.Handler.handleError)
    logging.Handler.handleError = handle_error  # type: ignore[method-assign,assignment]
    return swapped


def _is_real(value: object) -> bool:
    return value is REAL_OPEN or value is REAL_OS_OPEN


def _file_size_not_swallowed(
    handle_error: Callable[[logging.Handler, logging.LogRecord], None],
) -> Callable[[logging.Handler, logging.LogRecord], None]:
    """logging reports a failed write and goes on; a write past the run's file size cap goes on
    up instead, so the run ends as `limit: file size` as with any other writer."""

    def handle(self: logging.Handler, record: logging.LogRecord) -> None:
        failed = sys.exc_info()[1]
        if isinstance(failed, OSError) and failed.errno == errno.EFBIG:
            raise failed
        handle_error(self, record)

    return handle
