"""How a run shows Python warnings (and exceptions Python ignores, such as one raised in
a finaliser): at the candidate's own line, never at grill's.

torch warns from C while the grader's TorchFunctionMode is on the stack, so Python's own
format would print a path and a source line of grill (`.../checkers/probes.py:200: ...`).
In a run child, a warning reads `line 20: UserWarning: ...`, the line being the innermost
candidate frame's (no location when there is none), without torch's `(Triggered internally
at ...)` note, and a stack printed inside the message (autograd's anomaly mode prints the
forward call's) keeps only the candidate's frames. Python's filters still decide what is shown (once per message and place), and
at most WARNING_CHARS of warnings (and then NOTE) are written in all, so a warning per step cannot crowd out
the snippet's own prints or end the run on the output limit.
"""

from __future__ import annotations

import re
import sys
import warnings
from types import FrameType
from typing import TextIO

from checkers.policy.refusal import candidate_frame

WARNING_CHARS = 16 * 1024
NOTE = "[further warnings not shown]\n"
INTERNAL_NOTE = re.compile(r"\s*\(Triggered internally at [^\n]*\)")
STACK_ENTRY = re.compile(
    r'^  File "(?P<file>[^"\n]*)", line \d+, in [^\n]*(?:\n|\Z)(?:    [^\n]*(?:\n|\Z))*',
    re.MULTILINE,
)
"""One frame of a printed stack: its `File` line and the indented source lines under it."""

_written = 0


def install() -> None:
    """Route every warning and ignored exception of this process through `show` (called
    once, in the run child); Python's own hook would print a traceback of library files."""
    warnings.showwarning = show
    sys.unraisablehook = show_unraisable


def show_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    write(
        format_warning(
            unraisable.exc_value or "",
            unraisable.exc_type or Exception,
            candidate_frame(),
            prefix="Exception ignored: ",
        )
    )


def show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    write(format_warning(message, category, candidate_frame()))


def write(text: str) -> None:
    global _written
    if _written >= WARNING_CHARS:
        return
    _written += len(text)
    if _written > WARNING_CHARS:
        text = NOTE
        _written = WARNING_CHARS
    try:
        sys.stderr.write(text)
    except (OSError, ValueError):
        pass


def format_warning(
    message: object, category: type[BaseException], frame: FrameType | None, prefix: str = ""
) -> str:
    """`line 20: UserWarning: text` at the candidate's `frame`, or without a location."""
    filename = frame.f_code.co_filename if frame is not None else None
    text = INTERNAL_NOTE.sub("", str(message))
    text = STACK_ENTRY.sub(lambda entry: entry[0] if entry["file"] == filename else "", text)
    where = f"line {frame.f_lineno}: " if frame is not None else ""
    return f"{where}{prefix}{category.__name__}: {text.strip()}\n"
