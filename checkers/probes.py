"""What the grader measures while a training loop runs (sandbox child or trusted in-process).

The decisive signal is autograd graph lifetime. A TorchFunctionMode sees every torch call:
it stamps each new autograd node with the index of the training step that created it
(in the node's `metadata` dict, which lives as long as the node) and keeps a weak reference
to each graph-bearing output. At the top of every step the tracker walks the graphs still
reachable from live tensors and counts their nodes by age in steps. A clean loop only ever
holds nodes of age 0 or 1 (the last `loss` and `out`); a loop that keeps graphs holds older
ones. This costs tens of microseconds a step where a gc walk costs hundreds of milliseconds.

Bytes are read alongside: glibc `mallinfo2()` on the host, and on CUDA the caching
allocator's allocated and reserved bytes. They draw the memory curve; they do not decide.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode

STEP_KEY = "grill_step"
LINE_KEY = "grill_line"
HIGHER_KEY = "grill_higher_order"
"""Marks the root of a gradient's own graph (autograd.grad with create_graph=True)."""
MAX_AGE = 128
"""Ages are counted exactly up to this many steps; older nodes share the last bucket.

It also bounds the age a snippet may legitimately keep a graph for (the span its backward()
runs through): summing 32 micro-batch losses, or a per-timestep loop that backpropagates every
100 timesteps, must stay clean. The buffer costs 8 bytes per bucket per step (2 MB at 2000)."""
MAX_WALK = 500_000
"""Nodes visited per census at most: beyond this the loop is leaking anyway."""
ALLOWED_AGE = 1
"""A clean loop may still hold the previous step's graph at the top of the next step."""

BACKWARD_CALLS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)


# -- memory readers ---------------------------------------------------------------------

class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


class HostHeap:
    """Bytes glibc malloc has handed out and not got back (small chunks plus mmapped ones)."""

    def __init__(self) -> None:
        function = getattr(ctypes.CDLL(None), "mallinfo2", None)
        if function is None:
            raise OSError("glibc mallinfo2() is not available on this system")
        function.restype = _MallInfo2
        self._mallinfo2 = function

    def read(self) -> tuple[float, float]:
        info = self._mallinfo2()
        used = float(info.uordblks + info.hblkhd)
        return used, used


class CudaAllocator:
    """The caching allocator's view: tensor bytes in use, and bytes held from the driver."""

    def read(self) -> tuple[float, float]:
        return float(torch.cuda.memory_allocated()), float(torch.cuda.memory_reserved())


def memory_reader(device: str) -> HostHeap | CudaAllocator | None:
    """The byte counter for `device`, or None where the host has no usable one."""
    if device == "cuda":
        return CudaAllocator()
    try:
        return HostHeap()
    except OSError:
        return None


# -- graphs -------------------------------------------------------------------------------

def walk_graph(roots: Iterable, seen: dict[int, object] | None = None,
               limit: int = MAX_WALK) -> Iterator:
    """Every autograd node reachable from `roots` (grad_fn objects), each once.

    `seen` holds the nodes visited so far, which keeps their Python wrappers (and so their
    ids) stable while the walk runs; pass one dict to share it across several walks.
    """
    seen = {} if seen is None else seen
    stack = [node for node in roots if node is not None]
    while stack and len(seen) < limit:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        yield node
        stack.extend(child for child, _ in node.next_functions if child is not None)


def birth_step(node) -> int | None:
    """The step that created `node`, when the tracker saw it being created."""
    return node.metadata.get(STEP_KEY)


@dataclass(frozen=True)
class GraphSummary:
    """What one tensor's graph holds on to."""

    grad_fn: str
    nodes: int
    oldest_step: int | None
    """Birth step of the oldest stamped node reachable, None when no node is stamped."""
    saved_bytes: int
    line: int | None
    """Snippet line that created the tensor's own grad_fn."""
    higher_order: bool = False
    """Whether the graph runs through a gradient made with create_graph=True."""


def summarize_graph(grad_fn) -> GraphSummary:
    nodes, oldest, storages, higher = 0, None, {}, False
    for node in walk_graph([grad_fn]):
        nodes += 1
        higher = higher or HIGHER_KEY in node.metadata
        born = birth_step(node)
        if born is not None and born >= 0 and (oldest is None or born < oldest):
            oldest = born
        for tensor in _saved_tensors(node):
            storages[tensor.data_ptr()] = tensor.nelement() * tensor.element_size()
    return GraphSummary(type(grad_fn).__name__, nodes, oldest, sum(storages.values()),
                        grad_fn.metadata.get(LINE_KEY), higher)


_SAVED_NAMES: dict[type, tuple[str, ...]] = {}


def _saved_tensors(node) -> Iterator[torch.Tensor]:
    names = _SAVED_NAMES.get(type(node))
    if names is None:
        names = _SAVED_NAMES[type(node)] = tuple(
            name for name in dir(type(node)) if name.startswith("_saved_"))
    for name in names:
        try:
            value = getattr(node, name)
        except RuntimeError:  # freed by backward(): it holds nothing any more
            continue
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, torch.Tensor):
                yield item


# -- the tracker --------------------------------------------------------------------------

@dataclass(frozen=True)
class Culprit:
    """The live tensor that held the most stale graph at the latest stale census."""

    grad_fn: str
    line: int | None
    oldest_age: int


class GraphTracker(TorchFunctionMode):
    """Stamps autograd nodes with their step and samples memory at the top of each step.

    Every series is preallocated for `capacity` steps: a buffer that grows while the loop
    runs would show up in the very memory curve it records.
    """

    def __init__(self, capacity: int, filename: str = "<snippet>",
                 reader: HostHeap | CudaAllocator | None = None,
                 on_stale_run: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.capacity = capacity
        self.filename = filename
        self.reader = reader
        self.on_stale_run = on_stale_run
        """Called (trusted code) when stale graphs first appear after a clean step."""
        self.step = -1
        """Index of the step running now; -1 before the loop starts."""
        self.samples = 0
        self.memory = array("d", bytes(8 * capacity))
        self.reserved = array("d", bytes(8 * capacity))
        self.nodes = array("q", bytes(8 * capacity))
        self.ages = array("q", bytes(8 * capacity * (MAX_AGE + 1)))
        self.backward_span = array("q", [-1] * capacity)
        """Per step: how many steps back the longest backward() of that step reached."""
        self.culprit: Culprit | None = None
        self._live: dict[int, weakref.ref] = {}
        self._leaves: dict[int, weakref.ref] = {}
        self._paused = False
        self._was_stale = False

    # torch calls ------------------------------------------------------------------------

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self._paused:
            return func(*args, **kwargs)
        if func in BACKWARD_CALLS:
            self._note_backward(args[0] if args else kwargs.get("tensors", kwargs.get("outputs")))
        result = func(*args, **kwargs)
        self._stamp(result, depth=2)
        if func is torch.autograd.grad and kwargs.get("create_graph"):
            for grad in result:
                if grad is not None and grad.grad_fn is not None:
                    grad.grad_fn.metadata[HIGHER_KEY] = True
        return result

    def _stamp(self, value, depth: int) -> None:
        if isinstance(value, torch.Tensor):
            grad_fn = value.grad_fn
            if grad_fn is None:
                return
            metadata = grad_fn.metadata
            if STEP_KEY not in metadata:
                metadata[STEP_KEY] = self.step
                metadata[LINE_KEY] = self._candidate_line()
            if id(value) not in self._live:
                self._live[id(value)] = _forgetting_ref(value, self._live)
        elif depth and isinstance(value, (tuple, list)):
            for item in value:
                self._stamp(item, depth - 1)

    def _candidate_line(self) -> int | None:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.filename:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def _note_backward(self, roots) -> None:
        if not 0 <= self.step < self.capacity:
            return
        tensors = roots if isinstance(roots, (tuple, list)) else [roots]
        births = (birth_step(node) for node in walk_graph(
            t.grad_fn for t in tensors if isinstance(t, torch.Tensor)))
        oldest = min((born for born in births if born is not None and born >= 0), default=self.step)
        self.backward_span[self.step] = max(self.backward_span[self.step], self.step - oldest)

    # sampling -----------------------------------------------------------------------------

    def begin_step(self) -> bool:
        """Sample at the top of a step; False once `capacity` steps have been observed."""
        used, reserved = self.reader.read() if self.reader else (0.0, 0.0)  # before we allocate
        if self.step + 1 >= self.capacity:
            self.step = self.capacity
            return False
        self.step += 1
        with self.paused():
            self.memory[self.step], self.reserved[self.step] = used, reserved
            stale = self._census(self.step)
            if stale and not self._was_stale:
                gc.collect()  # a reference cycle may hold a graph only until the next collection
                stale = self._census(self.step)
                if stale and self.on_stale_run:
                    self.on_stale_run()
            self._was_stale = stale > 0
        self.samples = self.step + 1
        return True

    def paused(self):
        """Context in which the tracker neither stamps nor dispatches (for the grader's own work)."""
        return _Paused(self)

    def live_roots(self) -> list:
        roots = []
        for ref in list(self._live.values()):
            tensor = ref()
            if tensor is not None and tensor.grad_fn is not None:
                roots.append(tensor)
        for ref in list(self._leaves.values()):
            leaf = ref()
            if leaf is not None and leaf.grad is not None and leaf.grad.grad_fn is not None:
                roots.append(leaf.grad)
        return roots

    def _census(self, now: int) -> int:
        """Count live nodes by age at step `now`; return how many are older than allowed."""
        row = now * (MAX_AGE + 1)
        for age in range(MAX_AGE + 1):
            self.ages[row + age] = 0
        seen: dict[int, object] = {}
        worst = (0, None)
        allowed = self.allowed_age()
        for tensor in self.live_roots():
            stale = 0
            for node in walk_graph([tensor.grad_fn], seen):
                variable = getattr(node, "variable", None)  # AccumulateGrad: a leaf
                if variable is not None and id(variable) not in self._leaves:
                    self._leaves[id(variable)] = _forgetting_ref(variable, self._leaves)
                born = birth_step(node)
                if born is None or born < 0:
                    continue
                age = min(now - born, MAX_AGE)
                self.ages[row + age] += 1
                stale += age > allowed
            if stale > worst[0]:
                worst = (stale, tensor)
        self.nodes[now] = len(seen)
        stale, tensor = worst
        if tensor is not None:
            oldest = max(now - born for node in walk_graph([tensor.grad_fn])
                         if (born := birth_step(node)) is not None and born >= 0)
            self.culprit = Culprit(type(tensor.grad_fn).__name__,
                                   tensor.grad_fn.metadata.get(LINE_KEY), oldest)
        return sum(self.ages[row + allowed + 1: row + MAX_AGE + 1])

    def allowed_age(self) -> int:
        """One step, or the longest span backward() has run through so far (see `judge`)."""
        longest = max(self.backward_span[:self.step + 1], default=-1) if self.step >= 0 else -1
        return max(ALLOWED_AGE, min(longest, MAX_AGE - 1))


def _forgetting_ref(tensor: torch.Tensor, table: dict[int, weakref.ref]) -> weakref.ref:
    """A weak reference that removes itself from `table` when its tensor dies."""
    key = id(tensor)
    return weakref.ref(tensor, lambda _: table.pop(key, None))


class _Paused:
    def __init__(self, tracker: GraphTracker) -> None:
        self.tracker = tracker
        self.disabled = torch._C.DisableTorchFunction()

    def __enter__(self) -> None:
        self.was_paused, self.tracker._paused = self.tracker._paused, True
        self.disabled.__enter__()

    def __exit__(self, *exc) -> None:
        self.disabled.__exit__(*exc)
        self.tracker._paused = self.was_paused
