"""Every file grill creates is written whole or not at all: the one way to write one.

The bytes go to a hidden file beside the target (`.NAME.<pid>-<hex>.partial`), are flushed to
the disk, and only then take the target's name, by a rename (`replace=True`) or a link that
fails if the name is taken (`replace=False`: never overwrite, even in a race). A full disk, a
read-only folder or a signal leaves the target as it was (absent, or the previous file) and
the hidden file is removed; a process killed outright leaves it, and the next write beside it
removes it (its process is gone). An error names the target: OSError with its `filename`.

Plain Python, shared by the three packages (`app`, `questions`, `checkers`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def write_whole(path: Path | str, data: str | bytes, *, replace: bool = True) -> None:
    """Write `data` (text as UTF-8) to `path` whole or not at all."""
    with whole_file(path, replace=replace) as file:
        file.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextlib.contextmanager
def whole_file(path: Path | str, *, replace: bool = True) -> Iterator[IO[bytes]]:
    """A binary file to write `path` through: it takes the name only once the block ends
    without an exception. `replace=False`: FileExistsError rather than overwrite."""
    path = Path(path)
    sweep_partials(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        try:
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC)
            with os.fdopen(descriptor, "wb") as file:
                yield file
                file.flush()
                os.fsync(file.fileno())
            if replace:
                os.replace(partial, path)
            else:
                _link_new(partial, path)
        except OSError as error:  # named after the target, not the hidden file
            raise OSError(error.errno, error.strerror or str(error), str(path)) from None
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _link_new(partial: Path, path: Path) -> None:
    """Give `partial` the name `path` unless something holds it already."""
    try:
        os.link(partial, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: claim the name, then fill it
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC))
        os.replace(partial, path)


_PARTIAL = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{8}\.partial")


def sweep_partials(path: Path) -> list[Path]:
    """Remove the hidden files a killed write of `path` left beside it (their process is
    gone), and the one an older grill's export left (`.NAME.partial`); say which."""
    removed = []
    legacy = path.with_name(f".{path.name}.partial")
    candidates = [legacy] if legacy.is_file() else []
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            named = _PARTIAL.fullmatch(entry.name)
            if named and named["name"] == path.name and not _alive(int(named["pid"])):
                candidates.append(Path(entry.path))
    for candidate in candidates:
        with contextlib.suppress(OSError):
            candidate.unlink()
            removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of ours may be writing it
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # someone else's process
        return True
    return True
