"""The two ways a candidate's snippet stops early: a policy refusal and its own exception.

Both carry the candidate's line so that the user sees `line 7: ...` and nothing of grill.
"""

from __future__ import annotations

import sys
import weakref
from types import FrameType

CANDIDATE_MARK = "__grill_candidate__"
"""Key set in every candidate namespace; frames whose globals hold it run candidate code."""

PRIVATE_NAMES = "__grill_private__"
"""Namespace key of the single-underscore attribute names the snippet itself declares."""

CANDIDATE_CLASSES = "__grill_classes__"
"""Namespace key of the classes the snippet defined: one of them setting `grill_control`
is still the candidate's own exception, not the grader's control flow."""


class Refused(Exception):
    """The snippet used something the sandbox does not offer (an import, an attribute...)."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


class CandidateError(Exception):
    """The snippet itself raised; `traceback` shows only the candidate's own frames."""

    def __init__(self, kind: str, message: str, line: int | None, traceback: str = ""):
        super().__init__(f"{kind}: {message}" + (f" (line {line})" if line else ""))
        self.kind = kind
        self.message = message
        self.line = line
        self.traceback = traceback


def candidate_frame() -> FrameType | None:
    """The innermost frame on the current stack that runs candidate code, if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get(CANDIDATE_MARK):
            return frame
        frame = frame.f_back
    return None


def candidate_classes() -> weakref.WeakSet[type] | tuple[()]:
    """The classes the innermost running snippet defined (empty outside a snippet)."""
    frame = candidate_frame()
    return frame.f_globals.get(CANDIDATE_CLASSES, ()) if frame is not None else ()


def candidate_line() -> int | None:
    """The line of the innermost candidate frame on the current stack, if any."""
    frame = candidate_frame()
    return frame.f_lineno if frame is not None else None


refused_at_runtime: list[Refused] = []
"""Refusals raised while a snippet runs, kept so that `except Exception: pass` cannot hide one."""


def unavailable(subject: str, why: str = "") -> str:
    """The one refusal wording users see: `'torch.os' is not available in the sandbox`,
    with the reason when there is one to give."""
    return f"'{subject}' is not available in the sandbox" + (f" ({why})" if why else "")


def not_available(subject: str, why: str = "") -> Refused:
    """A run-time refusal in that wording, at the candidate's line."""
    refusal = Refused(unavailable(subject, why), candidate_line())
    refused_at_runtime.append(refusal)
    return refusal
