"""Standard streams a command can always write to, set up once as a command line starts.

Whatever the terminal gave: a descriptor closed before the start (`grill stats >&-`) is opened
on /dev/null, so the command runs to its normal status and no file grill opens later takes the
number (a history database on descriptor 1 would receive the output); a character the stream's
encoding lacks (`PYTHONIOENCODING=latin-1`, a non-UTF-8 locale) is written as a replacement
character, never an exception; a reader that went away (`| head`) swallows the rest of the
output while the command finishes (records what it grades) and ends with its own status. A
full device still fails the command, with its one line (`checkers.cli.fault_line`).
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer


class _ReaderMayLeave(io.RawIOBase):
    """Descriptor 1 or 2; once its reader has gone (EPIPE), writes are dropped."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.reader_gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: WriteableBuffer, /) -> int:
        if not self.reader_gone:
            try:
                return os.write(self._fd, data)
            except BrokenPipeError:
                self.reader_gone = True
        return memoryview(data).nbytes


def prepare_standard_streams() -> None:
    """Make standard input, output and error usable as the module docstring says."""
    for fd in (0, 1, 2):
        _open_if_closed(fd)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)
    sys.stdout = _forgiving(sys.stdout, 1)
    sys.stderr = _forgiving(sys.stderr, 2)


def _open_if_closed(fd: int) -> None:
    try:
        os.fstat(fd)
    except OSError:
        opened = os.open(os.devnull, os.O_RDWR)
        if opened != fd:
            os.dup2(opened, fd)
            os.close(opened)


def _forgiving(stream: TextIO | None, fd: int) -> TextIO:
    """`stream`'s encoding and buffering, on a writer that forgives a reader gone, with
    replacement characters for what the encoding lacks."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    line_buffering = bool(getattr(stream, "line_buffering", fd == 2))
    if stream is not None:
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    raw = _ReaderMayLeave(fd)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=encoding,
        errors="replace",
        line_buffering=line_buffering,
        write_through=fd == 2,
    )
