"""What one run's observations amount to: its Outcome, by the run's effects first (cancelled,
out of time, over a cap, the worker lost, a signal), then by the result it signed.

Both readers of runs use it: `parent.RunReader` for a single run and `ranks.RankedReader`'s
per-rank runs, which is why it is a module of its own, below both.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from typing import Any, Protocol, get_args

from checkers.sandbox import protocol
from checkers.sandbox.limits import Limits
from checkers.sandbox.outcome import Outcome, Status
from checkers.verdict import ErrorInfo

STATUSES = get_args(Status)


class ObservedRun(Protocol):
    """What a reader saw of a run, as `outcome_of` reads it."""

    limits: Limits
    output: bytearray
    output_overflow: bool
    result: bytearray
    result_overflow: bool
    exit: dict[str, object] | None
    cancelled: bool
    timed_out: bool
    worker_lost: bool


def outcome_of(
    run: ObservedRun, key: bytes, device: str, wall_s: float, timeout_s: float
) -> Outcome:
    """Turn what was observed into an Outcome: by the run's effects first, then its result."""
    output = run.output.decode("utf-8", errors="replace")
    if run.output_overflow:
        output += f"\n[output stopped at {run.limits.raw_output_bytes} bytes; the run was ended]"

    def outcome(
        status: Status,
        kind: str | None = None,
        message: str = "",
        line: int | None = None,
        result: dict[str, object] | None = None,
        traceback: str = "",
    ) -> Outcome:
        error = ErrorInfo(kind=kind, message=message, line=line) if kind else None
        return Outcome(
            status=status,
            result=result,
            output=output,
            error=error,
            device=device,
            wall_s=wall_s,
            traceback=traceback,
        )

    exit_info = run.exit or {}
    sig = exit_info.get("signal")
    if run.cancelled:
        return outcome("error", "cancelled", "the run was cancelled")
    if run.timed_out:
        return outcome("timeout", "timeout", f"the run did not finish within {timeout_s:g} s")
    if run.output_overflow:
        return outcome(
            "limit",
            "output",
            f"the run wrote more than {run.limits.raw_output_bytes} bytes of output",
        )
    if run.result_overflow:
        return outcome(
            "error", "result", f"the run's result exceeded {run.limits.result_bytes} bytes"
        )
    if run.worker_lost:
        return outcome("error", "sandbox", "the sandbox worker stopped during the run")
    if sig == signal.SIGXCPU:
        return outcome("limit", "cpu", f"the run used more than {run.limits.cpu_seconds} s of CPU")
    if sig == signal.SIGXFSZ:
        return outcome("limit", "file size", "the run wrote a file past its size limit")
    if exit_info.get("reason") == "scratch":
        return outcome(
            "limit",
            "disk",
            f"the run wrote more than {run.limits.scratch_bytes // (1024 * 1024)} MiB of files",
        )
    if sig == signal.SIGKILL:
        return outcome("limit", "killed", "the run was killed by the system (memory or CPU)")
    if not run.result:
        how = f"signal {signal_name(sig)}" if sig else f"exit code {exit_info.get('code')}"
        line = exit_info.get("line")
        return outcome(
            "error",
            "crash",
            f"the run ended without a result ({how})",
            line=line if type(line) is int else None,
        )
    body = protocol.verified(bytes(run.result), key)
    if body is None:
        return outcome(
            "error",
            "tampered",
            "the run's result was not written by grill's grader"
            " (it does not carry this run's key), so it was thrown away: not graded",
        )
    try:
        message = protocol.decode(body)
        return from_message(message, outcome)
    except (protocol.ProtocolError, TypeError, ValueError, KeyError, RecursionError) as exc:
        return outcome("error", "internal", f"the run's result could not be read ({exc})")


def signal_name(number: object) -> str:
    """`SIGKILL` for 9; a number no Signals member has (a real-time signal) as itself."""
    try:
        return signal.Signals(number).name  # type: ignore[arg-type]  # any value; bad ones raise
    except (ValueError, TypeError):
        return str(number)


class _OutcomeOf(Protocol):
    """`outcome_of`'s maker of an Outcome for this run."""

    def __call__(
        self,
        status: Status,
        kind: str | None = None,
        message: str = "",
        line: int | None = None,
        result: dict[str, object] | None = None,
        traceback: str = "",
    ) -> Outcome: ...


def from_message(message: Mapping[str, Any], outcome: _OutcomeOf) -> Outcome:
    """Validate the child's result message field by field. (It is decoded JSON from the run:
    untrusted, so Any until each field is checked; a malformed one raises.)"""
    status = message["status"]
    if status not in STATUSES or status == "timeout":
        raise ValueError(f"unknown status {status!r}")
    if status == "ok":
        if not isinstance(message.get("result"), dict):
            raise ValueError("an ok result must carry a JSON object")
        return outcome("ok", result=message["result"])
    error = message["error"]
    kind, text, line = error["kind"], error["message"], error.get("line")
    if (
        not isinstance(kind, str)
        or not isinstance(text, str)
        or not (line is None or isinstance(line, int))
    ):
        raise ValueError("malformed error fields")
    traceback = message.get("traceback") or ""
    if not isinstance(traceback, str):
        raise ValueError("malformed traceback")
    return outcome(status, kind, text, line, traceback=traceback)
