"""A verdict for the terminal: the verdict line, the memory curve, the retained table, the hint.

Plain text (unicode block characters, no colour), so it reads the same in a pipe or a CI log,
and at most `WIDTH` columns wide apart from what the snippet printed and its traceback.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from checkers.judge import NO_GRAPH, TAMPERED
from checkers.measurements import format_bytes
from checkers.verdict import GRILL_FAULTS, Verdict

BLOCKS = " ▁▂▃▄▅▆▇█"
WIDTH = 80
CURVE_HEIGHT = 6
CURVE_WIDTH = 56
"""Leaves room for the 11-column label and ` step 1..2000` on the axis row within WIDTH."""
TABLE_ROWS = 10
FLAT_SPAN = 16 * 1024
"""The smallest range the curve is drawn over: less than this is flat (checkers.judge.curve)."""
PATH_CELL = 30
OUTPUT_LINES = 15

HEADLINES = {
    "clean": "CLEAN: no autograd graph piles up as training goes on",
    "leak": "LEAK: autograd graph keeps accumulating as training goes on",
    "wrong": "WRONG: the code does not do what the task asks",
    "refused": "NOT GRADED (refused by the sandbox)",
    "error": "NOT GRADED (the snippet raised an error)",
    "timeout": "NOT GRADED (time limit)",
    "limit": "NOT GRADED (resource limit)",
    "hang": "HANG: the ranks stopped making progress (not graded)",
}
KIND_HEADLINES = {
    "desync": "HANG: the ranks' collectives did not match (not graded)",
    NO_GRAPH: "NOT GRADED (no autograd graph was built)",
    TAMPERED: "NOT GRADED (the grader was tampered with)",
    "device": "NOT GRADED (no CUDA device: nothing ran)",
}


def kind_of(verdict: Verdict) -> str | None:
    return verdict.error.kind if verdict.error is not None else None


UNTRAINED_CLEAN = "CLEAN: the task's contract is kept, and no autograd graph is left alive"
"""A clean run with no training step is an inference task's fix, judged by its contract alone:
"as training goes on" would describe a run that never trained."""


def headline(verdict: Verdict) -> str:
    kind = verdict.error.kind if verdict.error is not None else None
    if kind in KIND_HEADLINES:
        return KIND_HEADLINES[kind]
    if kind in GRILL_FAULTS:
        return "NOT GRADED (grill could not run the grader)"
    if verdict.verdict == "clean" and verdict.steps == 0:
        return UNTRAINED_CLEAN
    return HEADLINES[verdict.verdict]


def render(verdict: Verdict) -> str:
    return "\n\n".join(text for _, text in sections(verdict)) + "\n"


def _run_line(verdict: Verdict) -> str:
    if verdict.steps == 0:
        return "no training steps: judged by the task's contract alone"
    memory = (
        f"memory {verdict.pattern}, {format_bytes(verdict.growth_bytes_per_step)} per step"
        if verdict.pattern
        else "too few steps to name the memory curve's shape"
    )
    return f"{verdict.steps} training steps · {memory}"


ESSENTIAL = frozenset({"headline", "message", "error", "hint", "contract"})
"""The sections a verdict cut to fit a screen keeps first: what happened, and what to do."""


def sections(verdict: Verdict) -> list[tuple[str, str]]:
    """The report's paragraphs in order, each named (`ESSENTIAL` ones and the rest), so a
    screen too short for all of them (`grill task watch`) can say which it left out."""
    parts = [("headline", headline(verdict))]
    if verdict.verdict == "hang" or kind_of(verdict) == "desync":
        parts.append(("message", _wrap(verdict.message)))
        if verdict.hint:
            parts.append(("hint", _wrap(f"Hint: {verdict.hint}")))
    elif not verdict.graded:
        parts.append(("error", _not_graded(verdict)))
    else:
        parts.append(("run", f"device {verdict.device} · {_run_line(verdict)}"))
        if verdict.samples:
            parts.append(("memory curve", draw_curve(verdict.samples)))
        parts.append(("message", _wrap(verdict.message)))
        if verdict.retained:
            parts.append(("what holds the graph", retained_table(verdict)))
        if verdict.hint:
            parts.append(("hint", _wrap(f"Hint: {verdict.hint}")))
        if verdict.expectations:
            parts.append(
                (
                    "contract",
                    "The task's contract:\n"
                    + "\n".join(
                        _wrap(f"{'ok  ' if e.met else 'NO  '}{e.message}", indent="      ")
                        for e in verdict.expectations
                    ),
                )
            )
        parts.extend(("notes", _wrap(f"Note: {note}")) for note in verdict.notes)
    if verdict.ranks:
        parts.append(("ranks", ranks_table(verdict)))
    if verdict.coverage:
        parts.append(("coverage", _wrap(verdict.coverage)))
    if verdict.output.strip():
        lines = verdict.output.rstrip("\n").splitlines()
        shown = lines[-OUTPUT_LINES:]
        cut = f" (last {len(shown)} of {len(lines)} lines)" if len(lines) > len(shown) else ""
        parts.append(("output", f"Output{cut}:\n" + "\n".join(f"  {line}" for line in shown)))
    return parts


def _not_graded(verdict: Verdict) -> str:
    error = verdict.error
    if error is None or error.kind in KIND_HEADLINES or error.kind in GRILL_FAULTS:
        return _wrap(verdict.message)  # nothing of the snippet's raised: the message says it all
    where = f" (line {error.line})" if error.line else ""
    text = _wrap(f"{error.kind}: {error.message}{where}")
    traceback = verdict.extra.get("traceback")
    return f"{text}\n\n{traceback.rstrip()}" if traceback else text


def _wrap(text: str, indent: str = "") -> str:
    """A paragraph filled to WIDTH, never breaking inside a word (a path or `code` stays whole)."""
    return textwrap.fill(
        text, WIDTH, break_long_words=False, break_on_hyphens=False, subsequent_indent=indent
    )


def draw_curve(
    samples: Sequence[float], height: int = CURVE_HEIGHT, width: int = CURVE_WIDTH
) -> str:
    """Memory per step as columns of block characters, labelled with its range."""
    columns = _resample(samples, width)
    low, high = min(columns), max(columns)
    span = max(high - low, FLAT_SPAN)  # noise of a few bytes must not fill the plot like a leak
    levels = [round((value - low) / span * height * 8) for value in columns]
    rows = []
    for row in range(height - 1, -1, -1):
        cells = "".join(BLOCKS[max(0, min(8, level - row * 8))] for level in levels)
        label = format_bytes(high) if row == height - 1 else format_bytes(low) if row == 0 else ""
        rows.append(f"{label:>9} │{cells}")
    rows.append(f"{'':>9} └{'─' * len(columns)} step 1..{len(samples)}")
    return "Memory above the first step:\n" + "\n".join(rows)


def _resample(samples: Sequence[float], width: int) -> list[float]:
    """At most `width` columns, each the largest sample in its share of the steps."""
    if len(samples) <= width:
        return list(samples)
    per = len(samples) / width
    return [
        max(samples[int(i * per) : max(int((i + 1) * per), int(i * per) + 1)]) for i in range(width)
    ]


def retained_table(verdict: Verdict) -> str:
    header = ("path", "grad_fn", "steps", "nodes", "saved", "line")
    rows = [
        (
            _shorten(r.path),
            r.grad_fn,
            str(r.steps),
            str(r.graph_nodes),
            format_bytes(r.saved_bytes),
            str(r.line) if r.line else "-",
        )
        for r in verdict.retained[:TABLE_ROWS]
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("─" * w for w in widths))
    total = verdict.extra.get("retained_total", len(verdict.retained))
    if total > len(rows):
        lines.append(f"… and {total - len(rows)} more")
    return "Still holding graphs:\n" + "\n".join(f"  {line}" for line in lines)


def ranks_table(verdict: Verdict) -> str:
    """Each rank in a row (its own verdict, steps, collectives per update, where it stood),
    then the collectives each made, once for ranks that made the same."""
    header = ("rank", "verdict", "steps", "per update", "where")
    rows = [
        (
            str(r.rank),
            r.verdict,
            str(r.steps) if r.state == "finished" else "-",
            f"{r.per_update:g}" if r.per_update is not None else "-",
            r.summary,
        )
        for r in verdict.ranks
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    lines.insert(1, "  ".join("─" * w for w in [*widths, len(header[-1])]))
    text = f"Ranks ({len(verdict.ranks)}):\n" + "\n".join(f"  {line}" for line in lines)
    made: dict[str, list[int]] = {}
    for r in verdict.ranks:
        if r.collectives:
            ordered = sorted(r.collectives.items(), key=lambda item: -item[1]["calls"])
            listed = ", ".join(
                f"{name} ×{found['calls']} ({format_bytes(found['bytes'])})"
                for name, found in ordered
            )
            made.setdefault(listed, []).append(r.rank)
    for listed, ranks in made.items():
        who = "every rank" if len(ranks) == len(verdict.ranks) else _ranks(ranks)
        text += "\n\n" + _wrap(f"Collectives made, {who}: {listed}.", indent="  ")
    return text


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def _shorten(path: str) -> str:
    """A path cut in the middle to PATH_CELL columns, keeping its start and its last index."""
    if len(path) <= PATH_CELL:
        return path
    keep = PATH_CELL - 1
    return path[: keep - keep // 2] + "…" + path[-(keep // 2) :]
