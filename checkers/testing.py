"""The grader in the caller's own process, for a test suite: `assert_no_graph_leak(step)` for
a step function, and `watching()` for a test's own training loop as it is written (what the
pytest plugin's marker and fixture use, `checkers.pytest_plugin`).

Both run trusted code in this process (no sandbox) under the same watcher as `grill run`
(`checkers.measure.watcher`), and fail with the same evidence as `grill check`: which names
still hold graph, and how memory moved per step.
"""

from __future__ import annotations

import dataclasses
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from checkers.judge import judge
from checkers.measure.watcher import UNKNOWN, StopWatching, Watcher, lines_of, read_source
from checkers.report import render
from checkers.verdict import Verdict

MIN_STEPS = 4


class GraphLeak(AssertionError):
    """A watched training loop keeps autograd graph alive as it trains; `verdict` says how."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__("autograd graph keeps accumulating across steps\n\n" + render(verdict))
        self.verdict = verdict


def assert_no_graph_leak(
    step: Callable[[], object], steps: int = 50, *, device: str = "cpu"
) -> Verdict:
    """Call `step()` `steps` times; raise AssertionError if autograd graph keeps accumulating.

    `step` runs one training step (forward, backward, optimizer step) and may return its loss:
    the graph of the latest step may be alive, as in a real loop. What `step` keeps is found
    through the globals it names, its closure and its default arguments. `device` picks the
    byte counter for the memory curve ("cuda": the caching allocator). Returns the clean
    Verdict, for tests that also want to look at the curve.
    """
    if steps < MIN_STEPS:
        raise ValueError(f"steps must be at least {MIN_STEPS}, not {steps}")
    filename = step.__code__.co_filename if hasattr(step, "__code__") else "<step>"
    watcher = Watcher(filename, device=device, roots=lambda: _step_roots(step))
    last = None
    with watcher:
        for _ in range(steps):
            watcher.ledger.tick(1)
            last = step()
    roots = _step_roots(step)
    roots["<returned>"] = last
    verdict = judge(watcher.measurements(roots))
    if verdict.verdict == "leak":
        raise GraphLeak(verdict)
    return verdict


@dataclass
class Watched:
    """What `watching()` saw, once its block is over: the verdict (None while it runs)."""

    verdict: Verdict | None = None
    seconds: float = 0.0


@contextmanager
def watching(
    steps: int | None = None, seconds: float | None = None, device: str = "auto"
) -> Iterator[Watched]:
    """`with watching(): train(model)`: the block's own training loop watched as `grill run`
    watches a script (its backward passes and optimizer steps; nothing rewritten), and
    judged when it ends. `steps` or `seconds` stop the block there (its loop is ended as
    Ctrl-C would end it) and judge what was seen. Raises GraphLeak when graph keeps
    accumulating; the verdict of a clean run is in the yielded `Watched`."""
    watched = Watched()
    watcher = Watcher(None, device=device, steps=steps, seconds=seconds)
    started = time.monotonic()
    with watcher:
        try:
            yield watched
        except StopWatching:
            pass
    watched.seconds = time.monotonic() - started
    filename = watcher.filename
    verdict = judge(watcher.measurements(), read_source(filename) if filename else "")
    if filename and filename != UNKNOWN:
        verdict = dataclasses.replace(verdict, notes=(*verdict.notes, lines_of(filename)))
    watched.verdict = verdict
    if verdict.verdict == "leak":
        raise GraphLeak(verdict)


def _step_roots(step: Callable[[], object]) -> dict[str, object]:
    """What a step function can reach: the globals it names, its closure, its defaults."""
    function = getattr(step, "__func__", step)
    roots: dict[str, object] = {}
    if hasattr(step, "__self__"):
        roots["self"] = step.__self__
    code = getattr(function, "__code__", None)
    if code is None:  # a callable object: its attributes are what it keeps
        roots["step"] = step
        return roots
    namespace = getattr(function, "__globals__", {})
    for name in _global_names(code):
        if name in namespace:
            roots[name] = namespace[name]
    roots["step"] = function
    return roots


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if hasattr(constant, "co_names"):
            names |= _global_names(constant)
    return names


__all__ = ["GraphLeak", "Watched", "assert_no_graph_leak", "watching"]
