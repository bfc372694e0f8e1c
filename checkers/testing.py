"""`assert_no_graph_leak`: the grader as a pytest assertion for your own training step.

Runs a trusted step function in this process (no sandbox) under the same ledger as
`grill check`, and fails with the same evidence: which names still hold graph, and how
memory moved per step.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable

from checkers.judge import judge
from checkers.measure.grade import measure, scan
from checkers.measure.ledger import Ledger
from checkers.measure.memory import memory_reader
from checkers.report import render
from checkers.verdict import Verdict

MIN_STEPS = 4


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
    ledger = Ledger(filename, memory_reader(device))
    ledger.on_scan = lambda: scan(ledger, _step_roots(step), filename)
    started = time.monotonic()
    last = None
    with ledger.watching():
        for _ in range(steps):
            ledger.tick(1)
            last = step()
    roots = _step_roots(step)
    roots["<returned>"] = last
    verdict = judge(measure(ledger, roots, {}, (), "end", started, filename, device=device))
    if verdict.verdict == "leak":
        raise AssertionError("autograd graph keeps accumulating across steps\n\n" + render(verdict))
    return verdict


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


__all__ = ["assert_no_graph_leak"]
