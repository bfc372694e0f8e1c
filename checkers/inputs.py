"""What grill takes in from outside, checked once where it comes in: the files it reads and the
numbers it is given. Shared by the three packages (the grader, the cards and the app), so it
imports none of their layers, nor torch, pydantic or Textual.

**Files.** Every file grill reads (a snippet, a card or a pack's manifest, an export to
import, the pack cache) goes through `read_file` or `opened_file`: the path is looked at
before it is opened, so a folder, a named pipe, a socket or a device is refused without being
opened (opening some devices does something; reading `/dev/zero` never ends and a pipe with
no writer waits forever); it is then opened once, without waiting and without becoming a
controlling terminal, and the open descriptor is checked again, so a path swapped for
something else in between is refused too. A file over the cap is refused from its size
before a byte is read (a sparse 100 MB file costs nothing), and the reading itself stops at
the cap (a file that grows while it is read). A refusal (`FileRefused`) says which file, what
it is, and the cap. A path that cannot be opened at all raises the `OSError` as it came.

**Numbers.** Every numeric option is one `Range`: it parses the text (for argparse) or checks
a value (for the API), refusing what is not finite or not in range with one message that
names the option and the range.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from checkers.measurements import MAX_RANKS

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CHUNK = 1 << 20


def describe_mode(mode: int) -> str:
    """What a file of this mode is, in words, as a refusal names it."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISREG(mode):
        return "a plain file"
    return "not a plain file"


def format_cap(cap: int) -> str:
    """`1,000,000 bytes`, with the binary unit beside it when the cap is a round one."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if cap >= size and cap % size == 0:
            return f"{cap:,} bytes ({cap // size} {unit})"
    return f"{cap:,} bytes"


class FileRefused(Exception):
    """A file grill will not read: not a plain file, or larger than its cap. Nothing of it was
    read past the cap."""

    def __init__(self, path: str | Path, role: str, what: str, cap: int, *, too_large: bool):
        self.path, self.role, self.what, self.cap = Path(path), role, what, cap
        self.too_large = too_large
        """True for a plain file over the cap; False for something that is not a plain file."""
        super().__init__(str(self))

    @property
    def reason(self) -> str:
        """What the file is: `it is a named pipe (FIFO), not a plain file`, `it is 104,857,600 bytes`."""
        return f"it is {self.what}" if self.too_large else f"it is {self.what}, not a plain file"

    @property
    def rule(self) -> str:
        """The rule it breaks, with the cap: `grill reads a snippet from a plain file of at most ...`."""
        return f"grill reads {self.role} from a plain file of at most {format_cap(self.cap)}"

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}; {self.rule}"


def _refuse_unless_plain(path: str | Path, role: str, cap: int, mode: int, size: int) -> None:
    if not stat.S_ISREG(mode):
        raise FileRefused(path, role, describe_mode(mode), cap, too_large=False)
    if size > cap:
        raise FileRefused(path, role, f"{size:,} bytes", cap, too_large=True)


class _CappedReader:
    """A plain file's reads, refused with FileRefused once they would pass the cap."""

    def __init__(self, file: BinaryIO, path: str | Path, role: str, cap: int):
        self._file, self._path, self._role, self._cap = file, path, role, cap
        self.consumed = 0
        """Bytes handed out so far."""

    def read(self, size: int = -1) -> bytes:
        room = self._cap + 1 - self.consumed
        chunk = self._file.read(room if size < 0 else min(size, room))
        self.consumed += len(chunk)
        if self.consumed > self._cap:
            raise FileRefused(
                self._path, self._role, f"over {self._cap:,} bytes", self._cap, too_large=True
            )
        return chunk


@contextmanager
def opened_file(path: str | Path, *, role: str, cap: int) -> Iterator[BinaryIO]:
    """The plain file at `path`, open for reading in binary, for callers that stream it.

    `role` names what the file is for, as the refusal says it (`a snippet`, `a card`); every
    read past `cap` raises FileRefused. OSError when it cannot be opened.
    """
    before = os.stat(path)
    _refuse_unless_plain(path, role, cap, before.st_mode, before.st_size)
    descriptor = os.open(path, _OPEN_FLAGS)
    try:
        status = os.fstat(descriptor)  # what was opened, should the path have been swapped
        _refuse_unless_plain(path, role, cap, status.st_mode, status.st_size)
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        file = os.fdopen(descriptor, "rb", buffering=0)
    except BaseException:
        os.close(descriptor)
        raise
    with file:
        yield cast(BinaryIO, _CappedReader(cast(BinaryIO, file), path, role, cap))


def read_file(path: str | Path, *, role: str, cap: int) -> bytes:
    """The whole plain file at `path`, at most `cap` bytes; FileRefused or OSError otherwise."""
    with opened_file(path, role=role, cap=cap) as file:
        chunks: list[bytes] = []
        while True:
            chunk = file.read(_CHUNK)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


# -- numbers -------------------------------------------------------------------------------


class OutOfRange(argparse.ArgumentTypeError, ValueError):
    """A number grill cannot use: not a number, not finite, or outside its range. As an
    argparse type error it is a usage error (exit 2) with this message."""


@dataclass(frozen=True)
class Range:
    """One numeric option: what it is, its bounds, and whether it is a whole number.

    `parse` turns an option's text into a number (for argparse's `type=`, refusing text that
    is no number); `check` is the one range check, made where the value is used, whether it
    came from the command line, the API or the app: not finite, out of range, or a
    fraction where a whole number is due are refused, with the range.
    """

    label: str
    """How the message names it: `--seconds (the time budget per run)`."""
    low: float
    high: float
    whole: bool = False
    unit: str = ""
    """`seconds`, `minutes`: said in the rule."""
    above_low: bool = False
    """The low bound itself is refused (a time limit of 0)."""

    @property
    def rule(self) -> str:
        """The range in words: `a whole number from 1 to 100,000`."""
        kind = "a whole number" if self.whole else "a number"
        if self.unit:
            kind += f" of {self.unit}"
        low, high = _shown(self.low), _shown(self.high)
        if self.above_low:
            return f"{kind} above {low} and at most {high}"
        return f"{kind} from {low} to {high}"

    def _refusal(self, shown: str, side: str = "") -> OutOfRange:
        if not side:
            return OutOfRange(f"{self.label} must be {self.rule}, not {shown}")
        return OutOfRange(f"{self.label} must be {side}, not {shown} ({self.rule})")

    def check(self, value: object) -> float:
        """`value` when it is a finite number in range (a bool is no number here); OutOfRange,
        saying the range, otherwise."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._refusal(_text(repr(value)))
        if isinstance(value, float) and not math.isfinite(value):
            raise self._refusal(_shown(value))
        if self.whole and not isinstance(value, int):
            raise self._refusal(_shown(value), "a whole number")
        if self.above_low and value <= self.low:
            positive = f"a positive number of {self.unit}" if self.unit else "positive"
            raise self._refusal(
                _shown(value), positive if self.low == 0 else f"above {_shown(self.low)}"
            )
        if value < self.low:
            raise self._refusal(_shown(value), f"at least {_shown(self.low)}")
        if value > self.high:
            raise self._refusal(_shown(value), f"at most {_shown(self.high)}")
        return value

    def parse(self, text: str) -> float:
        """The finite number `text` writes, for argparse's `type=` (OutOfRange, a usage error,
        when it writes none: argparse names the option); its range is `check`'s, where the
        value is used."""
        try:
            value: float = int(text.strip()) if self.whole else float(text)
        except (ValueError, OverflowError):
            value = math.nan
        if not math.isfinite(value):  # `nan`, `inf`, and `1e309`, which floats read as inf
            raise OutOfRange(f"must be {self.rule}, not {_text(repr(text))}")
        return value

    def parse_whole(self, text: str) -> int:
        """`parse` for a whole-number option, typed as one."""
        return int(self.parse(text))


def _text(shown: str) -> str:
    return shown if len(shown) <= 40 else f"{shown[:37]}..."


def _shown(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return _text(f"{value:,}") if value.bit_length() < 4000 else "a number of over 1,000 digits"
    return f"{value:g}"


SECONDS = Range("--seconds (the time budget per run)", 0.1, 3600, unit="seconds")
"""How long a run is watched: `grill check --seconds`, and `seconds=` of the grading API (a
card's own `grading.seconds`, 5 to 600, is inside it)."""
RANKS = Range("--ranks", 1, MAX_RANKS, whole=True)
"""Ranks of a ranked run: `grill check --ranks`, the API's `ranks=` and a card's
`grading.ranks`."""
STEPS = Range("--steps", 1, 100_000, whole=True)
"""Training steps watched before the grader stops: `grill check --steps`, the API's `steps=`
and a card's `grading.steps`."""
