"""A ranked run's ranks, judged as one: a per-rank layer on top of the single-run rule.

Every rank is graded as a single run is (`checkers.judge.judge`); the run's verdict is then
the worst of them, naming the ranks: a leak on any rank is a leak. A run whose ranks stopped
making progress is a `hang`, not graded, and says per rank what it was waiting in and where
("rank 0 waits in `all_reduce` at line 31; ranks 1-3 finished at line 40"), read from the
stacks the ranks dumped (faulthandler's text) when the sandbox ended it. A rank that failed
ended the others, as torchrun's agent does: its failure is the run's verdict, with where the
others stood. Pure data in, a verdict out; no torch.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from checkers.measurements import Measurements
from checkers.verdict import GRADED, ErrorInfo, RankReport, Verdict

FRAME = re.compile(r'^\s*File "(?P<path>.*)", line (?P<line>\d+) in (?P<function>.*)$')
THREAD = re.compile(r"^(Current thread|Thread) 0x[0-9a-f]+")
COMMUNICATING = (
    "/torch/distributed/",
    "/torch/nn/parallel/distributed.py",
    "/torch/_tensor.py",
    "/torch/autograd/",
)
"""Where a rank stands when it waits on the others: inside torch.distributed, DDP, or a
backward pass (DDP's gradient all-reduce runs inside backward)."""
WRAPPERS = (
    "/torch/distributed/c10d_logger.py",
    "/torch/nn/modules/module.py",
    "/torch/utils/_contextlib.py",
    "/functools.py",
    "/contextlib.py",
)
"""Frames between the snippet's call and what it called: decorators, `Module.__call__`."""
GRILL = "/checkers/"
"""grill's own frames (the policy's guards, the ledger) sit between the snippet and torch."""
RENDEZVOUS = "/checkers/policy/ranked.py"
"""grill's checked rendezvous and stores (`TCPStore`, `FileStore`, `rendezvous`): torch.distributed
as a rank holds it, so a rank that waits in one waits on the others (a store that never
answers is a stalled rendezvous, not a rank busy with its own code)."""
SANDBOX_NOISE = re.compile(
    r"^\[W[^\]]*socket\.cpp:\d+\] \[c10d\] The hostname of the client socket cannot be"
    r" retrieved\..*$\n?",
    re.MULTILINE,
)
"""torch's note that a peer's loopback address has no name in the host's tables (the ranks'
network is the sandbox's own): about the sandbox, not the snippet."""
OUTPUT_PER_RANK = 16 * 1024
GLOO_FAILURE = re.compile(
    r"Connection closed by peer|Connection reset by peer|Broken pipe|gloo::EnforceNotMet"
    r"|Timed out waiting|Application timeout|collective mismatch"
    r"|doesn't match expected size",
    re.IGNORECASE,
)
"""How a rank's collective fails when the ranks' collectives do not match: gloo checks the
size of what it receives and aborts the process on a mismatch (`gloo::EnforceNotMet`,
"Received data size doesn't match expected size"), and a rank whose peer aborted sees the
connection close under its own collective."""
GLOO_SAYS = re.compile(r"\[enforce fail at [^\]]*\] (?P<what>[^\n]*)")


@dataclass(frozen=True)
class Waiting:
    """Where a rank stood in its stack dump."""

    line: int
    """The snippet's innermost line."""
    call: str
    """What the snippet called there that has not returned (`all_reduce`, `backward`)."""
    function: str | None
    """The snippet's function holding that line (None at module level)."""
    communicating: bool
    """Whether that call waits on the other ranks (torch.distributed, DDP, backward)."""


def waiting(dump: str, filename: str) -> Waiting | None:
    """Where the snippet's thread stood in a faulthandler dump; None when no frame of the
    snippet is on any thread's stack (the rank was not running its code)."""
    for frames in _threads(dump):
        ours = [i for i, (path, _, _) in enumerate(frames) if path == filename]
        if not ours:
            continue
        inner = ours[0]  # faulthandler lists the innermost frame first
        _, line, function = frames[inner]
        below = [
            f
            for f in frames[:inner]
            if not f[0].endswith(WRAPPERS) and (GRILL not in f[0] or f[0].endswith(RENDEZVOUS))
        ]
        talks = [
            f
            for f in below
            if f[0].endswith(RENDEZVOUS) or any(part in f[0] for part in COMMUNICATING)
        ]
        if talks:
            call = _call_name(talks[-1])  # the outermost: what the snippet's line called
        else:
            call = _call_name(below[-1]) if below else "its own code"
        return Waiting(line, call, None if function == "<module>" else function, bool(talks))
    return None


def _threads(dump: str) -> list[list[tuple[str, int, str]]]:
    threads: list[list[tuple[str, int, str]]] = []
    for text in dump.splitlines():
        if THREAD.match(text):
            threads.append([])
            continue
        match = FRAME.match(text)
        if match and threads:
            threads[-1].append((match["path"], int(match["line"]), match["function"]))
    return threads


def _call_name(frame: tuple[str, int, str]) -> str:
    """How a candidate names the call it made: the collective, DDP, or backward."""
    path, _, function = frame
    if path.endswith("/torch/nn/parallel/distributed.py"):
        return "DistributedDataParallel" if function == "__init__" else "DDP's forward"
    if path.endswith(("/torch/_tensor.py", "/torch/autograd/__init__.py")):
        return "backward"
    return function


def stuck(dumps: Mapping[int, str], filename: str) -> bool:
    """Whether every rank still going waits on the others (the sandbox's stall judge)."""
    found = [waiting(text, filename) for text in dumps.values()]
    return bool(found) and all(w is not None and w.communicating for w in found)


def last_line(source: str) -> int | None:
    """The snippet's last line of code, where a rank that ran to its end finished."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return (body[-1].end_lineno or body[-1].lineno) if body else None


RANKISH = re.compile(r"rank|is_main|main_process|master", re.IGNORECASE)


def rank_branch(source: str, line: int) -> tuple[int, str] | None:
    """The innermost `if` around `line` whose test asks which rank this is (`if rank == 0:`,
    `if dist.get_rank() == 0:`, `if is_main_process:`): its line and its test as written."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: tuple[int, str] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = ast.get_source_segment(source, node.test) or ""
        end = node.end_lineno or node.lineno
        if (
            node.lineno < line <= end
            and RANKISH.search(test)
            and (found is None or node.lineno > found[0])
        ):
            found = (node.lineno, test)
    return found


def spans(ranks: Sequence[int]) -> str:
    """`rank 2`, `ranks 1-3`, `ranks 0, 2 and 5-7`."""
    ordered = sorted(ranks)
    parts: list[str] = []
    start = previous = ordered[0]
    for rank in [*ordered[1:], None]:
        if rank is not None and rank == previous + 1:
            previous = rank
            continue
        parts.append(str(start) if start == previous else f"{start}–{previous}")
        if rank is not None:
            start = previous = rank
    word = "rank" if len(ordered) == 1 else "ranks"
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{word} {joined}"


def per_update(measured: Measurements | None) -> float | None:
    """A rank's collectives per optimizer update: the median over its updates after the
    first (whose window also holds the set-up: DDP's broadcast of the weights)."""
    ranked = measured.get("ranked") if measured is not None else None
    if not ranked or not ranked["per_update"]:
        return None
    counts = [window[0] for window in ranked["per_update"]]
    return float(statistics.median(counts[1:] or counts))


def rank_reports(
    verdicts: Sequence[Verdict],
    measured: Sequence[Measurements | None],
    dumps: Sequence[str],
    answered: Sequence[bool],
    source: str,
    filename: str,
) -> tuple[RankReport, ...]:
    """Each rank in a line: where it stood, or what it was graded."""
    end = last_line(source)
    reports = []
    for rank, verdict in enumerate(verdicts):
        found = measured[rank] if rank < len(measured) else None
        ranked = found.get("ranked") if found is not None else None
        collectives = (
            {
                name: {"calls": op["calls"], "bytes": op["bytes"]}
                for name, op in ranked["collectives"].items()
            }
            if ranked
            else {}
        )
        stand = waiting(dumps[rank], filename) if rank < len(dumps) and dumps[rank] else None
        if answered[rank] and found is not None:
            ended_at = ranked.get("ended_at") if ranked else None
            line = ended_at or end
            if found is not None and found.get("stopped_by") != "end":
                summary = "stopped by its budget"
            else:
                summary = f"finished at line {line}" if line else "finished"
            state, call, kind = "finished", None, verdict.verdict
        elif verdict.error is not None and verdict.error.kind == "ended" and stand is not None:
            state = "waiting" if stand.communicating else "running"
            call, line = stand.call, stand.line
            where = f" (in `{stand.function}`)" if stand.function else ""
            summary = (
                f"waits in `{call}` at line {line}{where}"
                if stand.communicating
                else f"was running line {line}{where}"
            )
            kind = "hang" if stand.communicating else "error"
        elif verdict.error is not None and verdict.error.kind == "ended":
            state, call, line, kind = "ended", None, None, "error"
            # no stacks at all: a limit of the whole run ended every rank at once
            summary = "had not reached its code" if any(dumps) else "ended with the run"
        else:
            state, call = "failed", None
            line = verdict.error.line if verdict.error else None
            error = verdict.error
            what = error.kind if error is not None else verdict.verdict
            if what == "crash" and error is not None:
                what = "crashed (" + error.message.rsplit("(", 1)[-1].rstrip(")") + ")"
            elif what not in ("refused", "timeout", "limit"):
                what = f"raised {what}"
            summary = f"{what} at line {line}" if line else what
            if what == "timeout" and line is None and stand is not None:
                # out of time outside the snippet's steps (a sleep, a wait): where it stood
                call, line = stand.call, stand.line
                inside = f" in `{call}`" if call != "its own code" else ""
                summary = f"timed out{inside} at line {line}"
            kind = verdict.verdict
        reports.append(
            RankReport(
                rank=rank,
                verdict=kind,
                state=state,
                summary=summary,
                line=line,
                call=call,
                steps=verdict.steps,
                collectives=collectives,
                per_update=per_update(found),
            )
        )
    return tuple(reports)


def described(reports: Sequence[RankReport]) -> str:
    """The ranks in one sentence, ranks alike put together: "rank 0 waits in `all_reduce` at
    line 31; ranks 1–3 finished at line 40"."""
    groups: dict[str, list[int]] = {}
    for report in reports:
        groups.setdefault(report.summary, []).append(report.rank)
    ordered = sorted(groups.items(), key=lambda item: min(item[1]))
    return "; ".join(f"{spans(ranks)} {_agreed(summary, len(ranks))}" for summary, ranks in ordered)


PLURAL = {"waits": "wait", "was": "were", "had": "had"}


def _agreed(summary: str, count: int) -> str:
    """`waits in ...` for one rank, `wait in ...` for several."""
    first, _, rest = summary.partition(" ")
    if count > 1 and first in PLURAL:
        return f"{PLURAL[first]} {rest}"
    return summary


def hang_hint(reports: Sequence[RankReport], source: str = "") -> str:
    waits = [r for r in reports if r.state == "waiting"]
    done = [r for r in reports if r.state == "finished"]
    calls = {r.call for r in waits}
    for report in [*waits, *(r for r in reports if r.state == "failed")]:
        branch = rank_branch(source, report.line) if report.line else None
        if branch is not None:
            others = [r.rank for r in reports if r.rank != report.rank and r.line != report.line]
            elsewhere = f", while {spans(others)} never get there" if others else ""
            called = f"`{report.call}`" if report.call else "The collective"
            return (
                f"{called} at line {report.line} runs inside `if {branch[1]}:` (line"
                f" {branch[0]}), so only some ranks make it{elsewhere}: a collective waits until"
                " every rank of its group has called it. Call it on every rank, and keep only"
                " what one rank alone should do (printing, saving) under the rank check."
            )
    stopped = [r for r in reports if r.summary == "stopped by its budget"]
    if waits and stopped:
        return (
            f"{spans([r.rank for r in stopped]).capitalize()} was still running when its time"
            f" budget ran out, and {spans([r.rank for r in waits])} waited for it in"
            f" `{waits[0].call}`: one rank that never reaches a collective (a loop that does not"
            " end on it, more batches than the others) keeps every other rank waiting."
        )
    if waits and done:
        return (
            "Every rank must make the same collectives in the same order. A collective inside"
            " a branch only some ranks take (`if rank == 0:`), or after a rank has returned"
            " or exited, waits for ranks that never come: call it on every rank, and keep"
            " only what one rank alone should do (printing, saving) under the rank check."
        )
    if len(calls) > 1 or len({r.line for r in waits}) > 1:
        return (
            "The ranks wait in different collectives, or at different lines: every rank"
            " must make the same collectives, with tensors of the same shape, in the same"
            " order (a data-dependent branch, a different number of batches per rank, or a"
            " rank that skips a step desynchronises them)."
        )
    return (
        "Every rank waits on the others and none can go on: look for a rank that skipped a"
        " collective the others made, or made one more (an extra backward under DDP counts)."
    )


def combined_output(outputs: Sequence[str]) -> str:
    """What the ranks printed: a single rank's as it is, several with `[rank N]` before each
    line, torchrun-style, each rank's capped; torch's notes about the sandbox's own network
    left out."""
    cleaned = [SANDBOX_NOISE.sub("", text) for text in outputs]
    if len(cleaned) == 1:
        return cleaned[0]
    lines = []
    for rank, text in enumerate(cleaned):
        if len(text) > OUTPUT_PER_RANK:
            text = text[:OUTPUT_PER_RANK] + f"\n[rank {rank}'s output cut here]\n"
        lines += [f"[rank {rank}] {line}" for line in text.splitlines()]
    return "\n".join(lines) + ("\n" if lines else "")


def combine(
    verdicts: Sequence[Verdict],
    measured: Sequence[Measurements | None],
    *,
    ended_by: str,
    failed_rank: int | None,
    dumps: Sequence[str],
    answered: Sequence[bool],
    limit: ErrorInfo | None,
    source: str,
    filename: str,
    outputs: Sequence[str],
    device: str,
) -> Verdict:
    """One verdict for the ranked run, from each rank's (see the module docstring)."""
    reports = rank_reports(verdicts, measured, dumps, answered, source, filename)
    output = combined_output(outputs)
    story = described(reports)
    if ended_by == "stall":
        waits = [r for r in reports if r.state == "waiting"]
        line = waits[0].line if waits else None
        message = f"The ranks stopped making progress: {story}."
        verdict = Verdict.not_graded("hang", device, message, line=line, kind="hang", output=output)
        return dataclasses.replace(verdict, hint=hang_hint(reports, source), ranks=reports)
    if ended_by == "failure" and _desynchronised(verdicts, outputs, failed_rank):
        line = next((r.line for r in reports if r.state == "failed" and r.line), None)
        said = GLOO_SAYS.search("\n".join(outputs))
        gloo = f" gloo said: {said['what'].strip()}" if said else ""
        message = f"The ranks' collectives did not match, and the run broke off: {story}.{gloo}"
        verdict = Verdict.not_graded(
            "hang", device, message, line=line, kind="desync", output=output
        )
        return dataclasses.replace(verdict, hint=hang_hint(reports, source), ranks=reports)
    if ended_by in ("failure", "timeout", "cancel", "lost") or limit is not None:
        culprit = _culprit(verdicts, failed_rank, ended_by)
        base = verdicts[culprit]
        message = base.message
        if limit is not None:
            base = Verdict.not_graded("limit", device, limit.message, kind=limit.kind)
            message = (
                f"{limit.message[0].upper()}{limit.message[1:]}. Where the ranks stood: {story}."
            )
        elif len(verdicts) > 1:
            alike = [r.rank for r in reports if r.summary == reports[culprit].summary]
            if len(alike) == len(reports):
                message = f"{spans(alike).capitalize()}: {message}"
            else:
                others = [r for r in reports if r.rank not in alike]
                message = f"{spans(alike).capitalize()}: {message} The others: {described(others)}."
        error = base.error
        if error is not None:
            error = dataclasses.replace(error, message=message)
        return dataclasses.replace(base, message=message, error=error, output=output, ranks=reports)
    return _graded_together(verdicts, reports, output)


def _desynchronised(
    verdicts: Sequence[Verdict], outputs: Sequence[str], failed_rank: int | None
) -> bool:
    """Whether a ranked run failed because its ranks' collectives did not match: the rank
    that failed first (any rank, when the sandbox did not say) failed inside a collective as
    gloo fails them. A rank that raised an error of its own is that error, even when its
    peers then lost their connection to it."""
    ranks = range(len(verdicts))
    if failed_rank is not None and 0 <= failed_rank < len(verdicts):
        ranks = range(failed_rank, failed_rank + 1)
    for rank in ranks:
        verdict = verdicts[rank]
        output = outputs[rank] if rank < len(outputs) else ""
        error = verdict.error
        if error is None or verdict.graded:
            continue
        if error.kind == "crash" and GLOO_FAILURE.search(output):
            return True
        if error.kind == "RuntimeError" and GLOO_FAILURE.search(error.message):
            return True
    return False


def _culprit(verdicts: Sequence[Verdict], failed_rank: int | None, ended_by: str) -> int:
    """The rank whose verdict is the run's: the one that failed first, else one not graded."""
    if failed_rank is not None and 0 <= failed_rank < len(verdicts):
        return failed_rank
    for rank, verdict in enumerate(verdicts):
        if not verdict.graded and (verdict.error is None or verdict.error.kind != "ended"):
            return rank
    return 0


ORDER = ("leak", "wrong", "clean")


def _graded_together(
    verdicts: Sequence[Verdict], reports: tuple[RankReport, ...], output: str
) -> Verdict:
    """Every rank ran to its end: the run is the worst of them (a rank not graded makes the
    run not graded; then a leak, then a broken contract), its message naming the ranks."""
    ungraded = [r for r, v in enumerate(verdicts) if not v.graded]
    if ungraded:
        first = verdicts[ungraded[0]]
        message = first.message
        if len(verdicts) > 1:
            message = f"{spans(ungraded).capitalize()}: {message}"
        error = dataclasses.replace(first.error, message=message) if first.error else None
        return dataclasses.replace(
            first, message=message, error=error, output=output, ranks=reports
        )
    worst = min((ORDER.index(v.verdict), r) for r, v in enumerate(verdicts) if v.verdict in GRADED)
    kind = ORDER[worst[0]]
    base = verdicts[worst[1]]
    if len(verdicts) == 1:
        return dataclasses.replace(base, output=output, ranks=reports)
    if kind == "clean":
        return dataclasses.replace(base, output=output, ranks=reports)
    same = [r for r, v in enumerate(verdicts) if v.verdict == kind]
    message = f"{spans(same).capitalize()} of {len(verdicts)}: {base.message}"
    return dataclasses.replace(base, message=message, output=output, ranks=reports)
