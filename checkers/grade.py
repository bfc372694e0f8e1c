"""The grading job that runs inside the sandbox child: instrument, run, measure, judge.

`grade_job(payload) -> dict` is what `Sandbox.run("checkers.grade:grade_job", payload)`
calls; it returns `Verdict.to_dict()`. A snippet that is refused or raises propagates as the
policy's Refused / CandidateError, which the sandbox turns into a not-graded outcome.
`GradingSession` holds the measuring state and is shared with the in-process test API.
"""

from __future__ import annotations

import ast
import builtins
import sys
import weakref
from collections.abc import Mapping
from dataclasses import replace

import torch

from checkers.instrument import DONE_HOOK, STEP_HOOK, StopGrading, instrument
from checkers.judge import Holder, Measurements, judge
from checkers.probes import MAX_AGE, GraphTracker, memory_reader, summarize_graph
from checkers.report import NO_LOOP
from checkers.retained import assignment_line, graph_tensors, stored_name
from checkers.verdict import Verdict

MAX_HOLDERS = 200
"""Graph-bearing tensors summarised per scan at most (a list of 10 000 losses needs no more)."""


class GradingSession:
    """Measures one run: the tracker's census each step, and scans of what survives."""

    def __init__(self, steps: int, device: str, filename: str = "<snippet>",
                 tree: ast.Module | None = None) -> None:
        self.device = device
        self.filename = filename
        self.tree = tree
        self.tracker = GraphTracker(steps, filename, memory_reader(device), self._on_stale_run)
        self.holders: dict[str, Holder] = {}
        self._found: dict[str, weakref.ref] = {}
        """Per path in `holders`, the tensor it named when scanned."""
        self._path_of: dict[int, str] = {}
        self.stale_run_holders: list[Holder] = []
        self._frame = None
        self.stopped = False
        self.capped = False
        """A scan stopped at MAX_HOLDERS: counts of retained tensors are lower bounds."""

    def now(self) -> int:
        """The step scans are aged against: the one that would run next."""
        return self.tracker.step if self.stopped else self.tracker.step + 1

    def hooks(self) -> dict:
        """The names the instrumented snippet calls."""
        return {STEP_HOOK: self.step_hook, DONE_HOOK: self.done_hook}

    def step_hook(self) -> None:
        """Top of a training step: sample, or scan the caller's frame and stop the run."""
        frame = self._frame = sys._getframe(1)
        try:
            if not self.tracker.begin_step():
                if not self.stopped:
                    self.stopped = True
                    self.scan(_frame_roots(frame), now=self.now())
                raise StopGrading
        finally:
            self._frame = None

    def done_hook(self) -> None:
        """After the training loop: scan the enclosing frame before a function returns."""
        self.scan(_frame_roots(sys._getframe(1)), now=self.now())

    def _on_stale_run(self) -> None:
        if self._frame is not None:
            found = self._summaries(_frame_roots(self._frame), now=self.tracker.step)
            if found:
                self.stale_run_holders = [holder for holder, _ in found]

    def scan(self, roots: Mapping[str, object], now: int) -> None:
        """Record every graph-bearing tensor reachable from `roots`, by path.

        A tensor found again under another path (a function's `losses` returned into
        `history`) is reported once: under the path that reaches it now, with the line that
        first stored it.
        """
        for holder, tensor in self._summaries(roots, now):
            old = self._path_of.get(id(tensor))
            if old is not None and old != holder.path and self._found[old]() is tensor:
                earlier = self.holders.pop(old)
                holder = replace(holder, line=earlier.line or holder.line,
                                 stored=earlier.stored or holder.stored)
            self.holders[holder.path] = holder
            self._found[holder.path] = weakref.ref(tensor)
            self._path_of[id(tensor)] = holder.path

    def _summaries(self, roots: Mapping[str, object], now: int) -> list[tuple[Holder, torch.Tensor]]:
        holders = []
        with self.tracker.paused():
            for found in graph_tensors(roots, self.filename):
                summary = summarize_graph(found.tensor.grad_fn)
                line = assignment_line(self.tree, found.path) if self.tree else None
                age = None if summary.oldest_step is None else now - summary.oldest_step
                holders.append((Holder(found.path, summary.grad_fn, summary.nodes,
                                       summary.saved_bytes, line or summary.line, age,
                                       stored_name(self.tree, line) if line else None,
                                       summary.higher_order),
                                found.tensor))
                if len(holders) >= MAX_HOLDERS:
                    self.capped = True
                    break
        return holders

    def measurements(self, output: str = "", flags: frozenset[str] = frozenset()) -> Measurements:
        t = self.tracker
        n = t.samples
        width = MAX_AGE + 1
        return Measurements(
            device=self.device,
            memory=list(t.memory[:n]) if t.reader else [],
            reserved=list(t.reserved[:n]) if t.reader and self.device == "cuda" else [],
            ages=[list(t.ages[i * width:(i + 1) * width]) for i in range(n)],
            nodes=list(t.nodes[:n]),
            backward_spans=list(t.backward_span[:n]),
            holders=list(self.holders.values()),
            holders_capped=self.capped,
            stale_run_holders=self.stale_run_holders,
            culprit=None if t.culprit is None else vars(t.culprit).copy(),
            source_flags=flags,
            output=output,
        )


def grade_job(payload: dict) -> dict:
    """Grade `payload["source"]` in this (sandboxed) process; see the module docstring."""
    from checkers import policy  # the child's policy layer; never loaded by the parent

    source = payload["source"]
    filename = payload.get("filename") or "<snippet>"
    steps = int(payload["steps"])  # the parent always says how many (checkers.api.DEFAULT_STEPS)
    device = resolve_device(payload.get("device", "auto"))
    code = policy.compile_candidate(source, filename, transform=instrument)
    tree = ast.parse(source, filename)
    session = GradingSession(steps, device, filename, tree)
    namespace = policy.candidate_namespace(session.hooks())
    if device == "cuda":
        torch.set_default_device("cuda")
    with session.tracker:
        try:
            policy.run_candidate(code, namespace)
        except StopGrading:
            pass
    if session.tracker.samples == 0:
        return Verdict.not_graded(
            "error", device, "No training loop ran: grill samples a loop that calls"
            " backward() or step(), and this snippet has none that ran.",
            kind=NO_LOOP).to_dict()
    session.scan(namespace, now=session.now())
    return judge(session.measurements(flags=source_flags(tree))).to_dict()


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda was asked for, but no CUDA device is available")
    return device


def source_flags(tree: ast.Module) -> frozenset[str]:
    """Facts about the source that shape the hint: `retain_graph` passed as True, and
    `carried:NAME` for state fed back into the call that replaces it (`out, h = rnn(x, h)`,
    `h = cell(x, h)`)."""
    flags = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            flags.update(keyword.arg for keyword in node.keywords
                         if keyword.arg == "retain_graph"
                         and isinstance(keyword.value, ast.Constant) and keyword.value.value is True)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and not _calls_builtin(node.value):  # `best = min(best, loss)` keeps, not carries
            targets = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            fed_back = {a.id for a in node.value.args if isinstance(a, ast.Name)}
            flags.update(f"carried:{name}" for name in targets & fed_back)
    return frozenset(flags)


def _calls_builtin(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and hasattr(builtins, call.func.id)


def _frame_roots(frame) -> dict[str, object]:
    """A frame's names as the snippet sees them: its locals over its module globals."""
    roots = dict(frame.f_globals)
    if frame.f_locals is not frame.f_globals:
        roots.update(frame.f_locals)
    return roots
