"""Grade a snippet from the parent process: what the CLI, `grill lint --run`, the TUI and mock
interviews call. Runs the grading job in the sandbox and turns its Outcome into a Verdict.

Never imports torch: the sandbox's worker does.
"""

from __future__ import annotations

import atexit
import dataclasses
import threading
from pathlib import Path

from checkers.sandbox import Outcome, Sandbox, SandboxError
from checkers.verdict import Verdict

GRADE_JOB = "checkers.grade:grade_job"
DEFAULT_STEPS = 60
"""Training steps observed: the smallest leak is called after 4, so 60 leaves a wide margin
and still keeps a run well under a second."""
MIN_STEPS = 4
"""Fewer steps cannot tell a graph kept for one step from one kept for good."""


class UsageError(ValueError):
    """The request itself is wrong (missing file, not UTF-8, bad step count): exit status 2."""


_sandboxes: dict[str, Sandbox] = {}
_sandboxes_lock = threading.Lock()


def shared_sandbox(device: str = "auto") -> Sandbox:
    """One warm sandbox per requested device for this process, closed at exit."""
    with _sandboxes_lock:
        if device not in _sandboxes:
            if not _sandboxes:
                atexit.register(close_shared_sandboxes)
            _sandboxes[device] = Sandbox(device=device)
        return _sandboxes[device]


def close_shared_sandboxes() -> None:
    """Stop the shared workers now rather than at exit (tests, and apps that outlive a check)."""
    with _sandboxes_lock:
        for sandbox in _sandboxes.values():
            sandbox.close()
        _sandboxes.clear()


def grade_source(source: str, *, device: str = "auto", steps: int | None = None,
                 sandbox: Sandbox | None = None, filename: str = "<snippet>",
                 timeout_s: float | None = None) -> Verdict:
    """Grade `source` (a complete training-loop snippet) in the sandbox.

    A snippet that cannot be graded (refused, raised, timed out, hit a limit, or the sandbox
    could not start) comes back as a not-graded Verdict carrying the reason, never raises.
    """
    steps = DEFAULT_STEPS if steps is None else steps
    if steps < MIN_STEPS:
        raise UsageError(f"--steps must be at least {MIN_STEPS}, not {steps}")
    sandbox = sandbox or shared_sandbox(device)
    try:
        sandbox.start()
    except SandboxError as exc:
        return Verdict.not_graded("error", device, str(exc), kind="sandbox")
    payload = {"source": source, "filename": filename, "steps": steps,
               "device": sandbox.device or "cpu"}
    return verdict_from_outcome(sandbox.run(GRADE_JOB, payload, timeout_s=timeout_s))


def grade_file(path: str | Path, **options) -> Verdict:
    """Grade the snippet in `path`; raises UsageError when it cannot be read as text."""
    return grade_source(read_snippet(path), filename=str(path), **options)


def read_snippet(path: str | Path) -> str:
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a Python file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start} cannot be decoded)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror})") from None


def verdict_from_outcome(outcome: Outcome) -> Verdict:
    """The sandbox's Outcome as a Verdict: the job's own verdict, or why there is none."""
    if outcome.ok:
        try:
            verdict = Verdict.from_dict(outcome.result)
        except (TypeError, ValueError, KeyError) as exc:
            return Verdict.not_graded("error", outcome.device,
                                      f"the grader's result could not be read ({exc})",
                                      kind="internal", output=outcome.output)
        return dataclasses.replace(verdict, output=outcome.output)
    error = outcome.error
    verdict = Verdict.not_graded(outcome.status, outcome.device, error.message if error else "",
                                 line=error.line if error else None,
                                 kind=error.kind if error else None, output=outcome.output)
    if outcome.traceback:
        verdict = dataclasses.replace(verdict, extra={"traceback": outcome.traceback})
    return verdict
