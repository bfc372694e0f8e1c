"""Raw file descriptors, however the standard library is asked to open one.

The snippet's own `open` and the os view refuse an integer descriptor, but open stdlib code
calls the real `open` for it (`codecs.open(fd)`, `gzip.GzipFile(fd)`, `tokenize.open(fd)`):
a descriptor of the run's process (its output, the hand-off to the
worker) opened as a file. So, once, the real `open` is swapped for one that refuses an integer
while snippet code is on the stack, wherever the interpreter keeps it: `builtins.open`, and
every reference an open stdlib module or its classes took of it at import
(`tokenize._builtin_open`, `bz2._builtin_open`). Paths need no such check
here: the run's folder confines them (the policy's `open`, and below it the operating
system's layers). `io.open` and `_io.open` stay as they are, for `tempfile`, which opens the
descriptors it made itself.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

from checkers.policy import tables
from checkers.policy.refusal import candidate_frame, not_available

REAL_OPEN = builtins.open
LEFT_ALONE = frozenset({"io", "_io"})
"""Modules whose `open` is the descriptor-making kind's own (`tempfile` calls `_io.open` on
the descriptor it has just made)."""


def checked_open(file: Any, *args: Any, **kwargs: Any) -> Any:
    """The real `open`, but for a raw descriptor asked for while snippet code runs."""
    if isinstance(file, int) and candidate_frame() is not None:
        raise not_available(f"open({file!r})", "raw file descriptors")
    return REAL_OPEN(file, *args, **kwargs)


def install() -> list[str]:
    """Swap the real `open` for `checked_open` wherever it is kept; the places, by path."""
    swapped = ["builtins.open"]
    builtins.open = checked_open
    for name in sorted(tables.STDLIB_HOMES - LEFT_ALONE):
        module = sys.modules.get(name)
        if module is None:
            continue
        for key, value in list(vars(module).items()):
            if value is REAL_OPEN:
                setattr(module, key, checked_open)
                swapped.append(f"{name}.{key}")
            elif isinstance(value, type) and value.__module__ == name:
                for attribute, held in list(vars(value).items()):
                    if held is REAL_OPEN:
                        setattr(value, attribute, staticmethod(checked_open))
                        swapped.append(f"{name}.{key}.{attribute}")
    return swapped
