"""The life of every autograd node a snippet makes: when it was born, when backward last used
it, and when it died. The grader's verdict is read off these lives (see `checkers.judge.growth`).

Time is counted in *generations*. A new generation opens at the top of a loop's iteration
when graph was built or used since the last one opened, so one iteration of a training loop
is one generation, and an inner loop's iterations (timesteps, critic steps) are generations
too. A snippet without loops opens them at each backward() and optimizer step instead. A node's *key* is the generation of its last use by a backward pass,
or of its birth when backward never reaches it. From its key until it dies a node is dead
weight: nothing will ever backpropagate through it again. Graph waiting for a later backward
(an accumulation window, an episode) is not dead weight, because its key is that later use:
keys are only final at the end, which is why the analysis is made after the run.

How the ledger sees everything, whatever the snippet does:
- births: a TorchFunctionMode sees every torch call's result (and the tensor an in-place call
  changed); `autograd.Function.apply` is wrapped for custom Functions; gradients returned by
  backward with create_graph are followed. A new node's whole new subgraph is stamped, so nodes
  made inside composite ops are counted too.
- uses: the autograd engine itself is wrapped, so every backward and autograd.grad is seen,
  however it was called.
- deaths: each node's `metadata` dict (which lives exactly as long as the C++ node) holds a
  token; a weak reference to the token reports the node's death, whoever held it: a tensor,
  a kept `grad_fn`, a closure or a hook.
"""

from __future__ import annotations

import sys
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from types import FrameType, TracebackType
from typing import Protocol, cast

import torch
from torch.autograd import function as autograd_function
from torch.autograd import variable as autograd_variable
from torch.optim import optimizer as optim_module
from torch.overrides import TorchFunctionMode

from checkers.measure.memory import CudaAllocator, HostHeap, OffHeap
from checkers.measure.retained import grad_fn_of
from checkers.measurements import Holder
from checkers.policy.standins import stand_in

TOKEN = "grill"
"""The metadata key holding a node's token. The policy refuses `metadata` to snippets."""
UNSET = -1
ALIVE = 1 << 62
"""`last_death` of a generation that still had live nodes when the run ended."""
MAX_WALK = 200_000
"""Nodes one backward pass's walk visits at most; past this the run is far into a leak."""
FIRST_SCAN_LIVES = 64
"""Live nodes before the first scan of what holds them; each later scan waits for twice as many."""
LEAF = "AccumulateGrad"

_ExcInfo = tuple[type[BaseException] | None, BaseException | None, TracebackType | None]


class _Token:
    """Lives in a node's metadata; its death is the node's."""

    __slots__ = ("life", "__weakref__")
    life: _Life


class _Life(weakref.ref[_Token]):
    """A node's record, alive while the node is: its key, its first use and the line that made it."""

    __slots__ = ("key", "first_use", "line", "born")
    key: int
    first_use: int
    line: int | None
    born: int


class GraphNode(Protocol):
    """An autograd node as the ledger reads it. torch's stub declares `Node.metadata` a method;
    on the C++ nodes it is a dict, one per node and living as long as it, where the ledger
    keeps the node's token under TOKEN (the only key it reads)."""

    @property
    def metadata(self) -> dict[str, _Token]: ...

    @property
    def next_functions(self) -> tuple[tuple[GraphNode | None, int], ...]: ...


@dataclass
class Scan:
    """What held live graph at one moment, found from the snippet's names."""

    generation: int
    holders: list[Holder] = field(default_factory=list)
    capped: bool = False
    unwatched: int = 0
    """Graph nodes found that the ledger never saw being made (a bypass, or a blind spot)."""


class Ledger(TorchFunctionMode):
    """Records node lives while the snippet runs under it (`with ledger.watching():`)."""

    def __init__(
        self,
        filename: str,
        reader: HostHeap | CudaAllocator | None,
        deadline: float | None = None,
        cpu_deadline: float | None = None,
        steps_cap: int | None = None,
        track_peak: bool = False,
        on_stop: Callable[[str], None] | None = None,
        on_scan: Callable[[], Scan | None] | None = None,
    ) -> None:
        super().__init__()
        self.filename = filename
        self.reader = reader
        self.track_peak = track_peak and reader is not None
        """Read the heap around every torch call, for a peak-memory budget (glibc's counter
        costs microseconds to tens of them a read: only when a task asks)."""
        self.deadline = deadline
        self.cpu_deadline = cpu_deadline
        """The budget in the process's CPU time: the run stops itself before its CPU limit
        would kill it (on a quiet machine wall and CPU time run together)."""
        self.steps_cap = steps_cap
        self.on_stop = on_stop
        """Called (trusted code) when the budget is spent: it must not return."""
        self.on_scan = on_scan
        """Called when live graph doubles, to find what holds it while it is still held."""
        self.generation = 0
        self._dirty = False
        self.last_death = OffHeap(fill=UNSET)
        self.step_at = OffHeap()
        """Optimizer steps taken when each generation opened."""
        self.loop_at = OffHeap()
        """Line of the loop whose tick opened each generation (0: a backward or step)."""
        self.reach = OffHeap()
        """Per backward pass: how many earlier passes' graphs it ran through again."""
        self.backward_at = OffHeap()
        """The generation of each backward pass."""
        self.memory_by_step = OffHeap()
        self.reserved_by_step = OffHeap()
        self.memory_by_backward = OffHeap()
        self.lives: set[_Life] = set()
        self.nodes_created = 0
        self.backward_calls = 0
        self.optimizer_steps = 0
        self.updates = 0
        """Optimizer steps that found at least one gradient to apply."""
        self.reused_nodes = 0
        """Node visits by a backward pass that an earlier pass had already used (retain_graph)."""
        self.higher_order = False
        self.walk_truncated = False
        self.peak = 0
        self.base = 0
        self.scans: list[Scan] = []
        self.first_paths: dict[int, tuple[weakref.ref[torch.Tensor], str]] = {}
        """Per holder seen by a scan: a weak reference to it and the path it was first seen
        under (kept by the grader's scans, not by the snippet)."""
        self.problem: str | None = None
        """Set when the instrumentation was found switched off or replaced."""
        self._next_scan = FIRST_SCAN_LIVES
        self._paused = False
        self._step_pause: _Paused | None = None
        self._inside = 0
        """Depth of torch calls running inside the mode's handler (where torch pops the mode)."""
        self._loop_line = 0
        self._engine: torch._C._ImperativeEngine | None = None
        self._apply: classmethod[autograd_function.Function, ..., object] | None = None
        self._installed_apply: classmethod[autograd_function.Function, ..., object] | None = None
        self._hooks: list[torch.utils.hooks.RemovableHandle] = []

    # -- installing -----------------------------------------------------------------------

    def watching(self) -> _Watching:
        """Context that installs every observer for the run and removes them after."""
        return _Watching(self)

    def _install(self) -> None:
        # (torch.autograd's deprecated `variable()` hides the module; torch hangs Variable on it)
        variable = autograd_variable.Variable  # type: ignore[attr-defined]
        self._engine = variable._execution_engine
        variable._execution_engine = _Engine(self, self._engine)
        function = autograd_function.Function
        self._apply = function.__dict__["apply"]
        self._installed_apply = classmethod(_wrapped_apply(self, self._apply.__func__))
        function.apply = self._installed_apply  # type: ignore[method-assign, assignment]
        self._hooks = [
            optim_module.register_optimizer_step_pre_hook(self._before_step),
            optim_module.register_optimizer_step_post_hook(self._after_step),
        ]
        self.base = self.peak = self._read()[0]

    def _uninstall(self) -> None:
        autograd_variable.Variable._execution_engine = self._engine  # type: ignore[attr-defined]
        autograd_function.Function.apply = self._apply  # type: ignore[method-assign, assignment]
        for handle in self._hooks:
            handle.remove()

    def intact(self) -> bool:
        """Whether every observer is still the one installed and torch calls still reach the
        mode (torch pops it while its own handler runs: a hook called during backward)."""
        return (
            isinstance(autograd_variable.Variable._execution_engine, _Engine)  # type: ignore[attr-defined]
            and autograd_function.Function.__dict__["apply"] is self._installed_apply
            and (
                self._inside > 0
                or torch._C._is_torch_function_mode_enabled()
                and any(mode is self for mode in _mode_stack())
            )
        )

    # -- torch calls ----------------------------------------------------------------------

    def __torch_function__(
        self,
        func: Callable[..., object],
        types: Iterable[type],
        args: Sequence[object] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> object:
        kwargs = kwargs or {}
        if self._paused or not torch.is_grad_enabled():
            return func(*args, **kwargs)
        self._sample_peak()
        self._inside += 1
        try:
            result = func(*args, **kwargs)
        finally:
            self._inside -= 1
        if torch.is_grad_enabled():  # the call may have switched it (set_grad_enabled)
            self._sample_peak()
            self.observe(result)
            if args:
                self.observe(args[0], depth=0)  # an in-place call gives its target a new grad_fn
        return result

    def observe(self, value: object, depth: int = 2) -> None:
        """Stamp the graph behind `value` (a tensor, or tuples and lists of them). Called
        where torch calls do not reach the mode (inside it, or paused)."""
        if isinstance(value, torch.Tensor):
            node = cast("GraphNode | None", grad_fn_of(value))
            if node is not None and TOKEN not in node.metadata:
                self._discover([node])
        elif depth and isinstance(value, (tuple, list)):
            for item in value:
                self.observe(item, depth - 1)

    def _discover(self, roots: Iterable[GraphNode | None]) -> None:
        """Stamp every node under `roots` not stamped yet (stamped nodes end the walk), with the
        snippet line running now."""
        stack = [node for node in roots if node is not None]
        line: int | None = UNSET
        while stack:
            node = stack.pop()
            metadata = node.metadata
            if TOKEN in metadata or type(node).__name__ == LEAF:
                continue
            if line == UNSET:
                line = self._candidate_line()
            self._stamp(metadata, line)
            stack.extend(child for child, _ in node.next_functions if child is not None)

    def _stamp(self, metadata: dict[str, _Token], line: int | None) -> _Life:
        token = _Token()
        life = _Life(token, self._died)
        life.key = life.born = self.generation
        life.first_use = UNSET
        life.line = line
        token.life = life
        metadata[TOKEN] = token
        self.lives.add(life)
        self.nodes_created += 1
        self._dirty = True
        return life

    def _died(self, life: _Life) -> None:
        self.lives.discard(life)
        key = life.key
        if key >= len(self.last_death) or self.last_death[key] < self.generation:
            self.last_death[key] = self.generation

    def _candidate_line(self) -> int | None:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.filename:
                return frame.f_lineno
            frame = frame.f_back
        return None

    # -- backward passes ------------------------------------------------------------------

    def backward(
        self,
        engine: torch._C._ImperativeEngine,
        outputs: object,
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> tuple[torch.Tensor, ...]:
        """One backward pass or autograd.grad: mark what it uses, then run it."""
        self.backward_calls += 1
        index = self.backward_calls
        self.backward_at[index] = self.generation
        roots = [
            _node_of(output)
            for output in (outputs if isinstance(outputs, (tuple, list)) else (outputs,))
        ]
        with self.paused():
            leaves, earlier = self._use(roots, index)
        self.reach[index] = len(earlier)
        create_graph = _argument(args, kwargs, 2, "create_graph")
        result = engine.run_backward(outputs, *args, **kwargs)
        if create_graph:
            self.higher_order = True
            with self.paused():
                self.observe(result)
                for leaf in leaves:
                    variable = getattr(leaf, "variable", None)
                    if variable is not None and variable.grad is not None:
                        self.observe(variable.grad)
        if self.reader is not None:
            self.memory_by_backward.append(self._read()[0])
        self.tick(0)
        return result

    def _use(self, roots: list[GraphNode | None], index: int) -> tuple[list[GraphNode], set[int]]:
        """Walk the graph a backward pass is about to run through: each node's key becomes this
        generation; return the leaves reached and the earlier passes that had used it."""
        leaves: list[GraphNode] = []
        earlier: set[int] = set()
        seen: dict[int, object] = {}  # holds each node's wrapper, so no id is reused mid-walk
        stack = [node for node in roots if node is not None]
        line = self._candidate_line()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            if len(seen) >= MAX_WALK:
                self.walk_truncated = True
                break
            seen[id(node)] = node
            metadata = node.metadata
            if type(node).__name__ == LEAF:
                leaves.append(node)
                continue
            token = metadata.get(TOKEN)
            life = token.life if token is not None else self._stamp(metadata, line)
            if life.first_use == UNSET:
                life.first_use = index
            elif life.first_use != index:
                earlier.add(life.first_use)
                self.reused_nodes += 1
            life.key = self.generation
            stack.extend(child for child, _ in node.next_functions if child is not None)
        self._dirty = True
        seen.clear()
        return leaves, earlier

    # -- optimizer steps ------------------------------------------------------------------

    def _before_step(
        self,
        optimizer: torch.optim.Optimizer,
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> None:
        """Count the update, and let the optimizer's own arithmetic (no graph, under no_grad)
        run without the mode unless a closure (L-BFGS) builds graph inside the step."""
        with self.paused(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # FSDP's parameters are views: torch warns on .grad
            if any(p.grad is not None for group in optimizer.param_groups for p in group["params"]):
                self.updates += 1
        closure = args[1] if len(args) > 1 else kwargs.get("closure")  # args[0]: the optimizer
        if closure is None and self._step_pause is None:
            self._step_pause = self.paused()
            self._step_pause.__enter__()

    def _after_step(
        self,
        optimizer: torch.optim.Optimizer,
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> None:
        if self._step_pause is not None:
            pause, self._step_pause = self._step_pause, None
            pause.__exit__(None, None, None)
        self.optimizer_steps += 1
        if self.reader is not None:
            used, reserved = self._read()
            self.memory_by_step.append(used)
            self.reserved_by_step.append(reserved)
        self.tick(0)

    # -- ticks ----------------------------------------------------------------------------

    def tick(self, line: int = 0) -> None:
        """Top of a loop iteration (`line`: the loop), or the end of a backward or a step (0)."""
        if line:
            self._loop_line = line
            if (
                self.problem is None
                and not self._inside
                and not torch._C._is_torch_function_mode_enabled()
            ):
                self._switched_off()
        if self._dirty and (line or not self._loop_line):  # a new generation opens
            self._dirty = False
            self.generation += 1
            self.step_at[self.generation] = self.optimizer_steps
            self.loop_at[self.generation] = self._loop_line
            if line and self.problem is None and not self.intact():
                self._switched_off()
        if len(self.lives) >= self._next_scan and self.on_scan is not None:
            self._scan()
        if self.on_stop is not None:
            if (
                self.deadline is not None
                and time.monotonic() > self.deadline
                or self.cpu_deadline is not None
                and time.process_time() > self.cpu_deadline
            ):
                self.on_stop("budget")
            elif self.steps_cap is not None and self.optimizer_steps >= self.steps_cap:
                self.on_stop("steps")

    def _switched_off(self) -> None:
        self.problem = (
            "the snippet switched off or replaced grill's instrumentation"
            f" (at line {self._candidate_line() or '?'})"
        )

    def _scan(self) -> None:
        assert self.on_scan is not None, "tick() scans only with on_scan set"
        with self.paused():
            scan = self.on_scan()
            if scan is not None:
                self.scans.append(scan)
            self._next_scan = max(2 * len(self.lives), FIRST_SCAN_LIVES)

    # -- reading --------------------------------------------------------------------------

    def paused(self) -> _Paused:
        """Context in which torch calls are neither observed nor dispatched to the mode."""
        return _Paused(self)

    def _read(self) -> tuple[int, int]:
        return self.reader.read() if self.reader is not None else (0, 0)

    def _sample_peak(self) -> None:
        if self.track_peak:
            assert self.reader is not None, "track_peak is off without a reader"
            used = self.reader.read()[0]
            if used > self.peak:
                self.peak = used

    def close_lives(self) -> None:
        """At the end of the run, which is one more generation boundary: every node still alive
        marks its generation as alive at the end, except graph still waiting for a backward
        pass the run did not get to. That is graph never used, made within the longest stretch
        the run ever went between backward passes (the last, unfinished accumulation window or
        episode); older unused graph is dead weight."""
        self.generation += 1
        waiting_from = self.generation - self._longest_wait()
        for life in list(self.lives):
            if life.first_use == UNSET and life.born >= waiting_from:
                continue
            self.last_death[life.key] = ALIVE
        self.lives.clear()

    def _longest_wait(self) -> int:
        """The most generations the run ever went between backward passes (0 without any)."""
        passes = self.backward_at.values()[1:]
        if not passes:
            return 0
        return max(b - a for a, b in pairwise([0, *passes])) + 1

    def dead_weight(self) -> tuple[list[int], list[int]]:
        """Per generation: how many earlier generations were still alive after it ended, their
        nodes past their last use (see the module docstring), and how many such generations
        were let go in it. Call after `close_lives`."""
        end = self.generation
        diff, released = [0] * (end + 2), [0] * (end + 1)
        for key in range(min(len(self.last_death), end + 1)):
            death = self.last_death[key]
            if death != UNSET and death >= key + 2:
                diff[key + 1] += 1
                diff[min(death, end + 1)] -= 1
                if death <= end:
                    released[death] += 1
        series, running = [], 0
        for value in diff[: end + 1]:
            running += value
            series.append(running)
        return series, released


def _node_of(output: object) -> GraphNode | None:
    if isinstance(output, torch.Tensor):
        return cast("GraphNode | None", grad_fn_of(output))
    return getattr(output, "node", None)  # a GradientEdge


def _argument(
    args: tuple[object, ...], kwargs: dict[str, object], position: int, name: str
) -> object:
    return args[position] if len(args) > position else kwargs.get(name, False)


def _mode_stack() -> list[object]:
    return [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]


class _Engine:
    """Stands in for torch's autograd engine: each backward pass reaches the ledger first."""

    def __init__(self, ledger: Ledger, engine: torch._C._ImperativeEngine) -> None:
        self._ledger = ledger
        self._engine = engine

    def run_backward(
        self, outputs: object, *args: object, **kwargs: object
    ) -> tuple[torch.Tensor, ...]:
        return self._ledger.backward(self._engine, outputs, args, kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)


def _wrapped_apply(ledger: Ledger, apply: Callable[..., object]) -> Callable[..., object]:
    """`Function.apply` that stamps a custom Function's outputs (it bypasses torch functions)."""

    def apply_and_observe(cls: type, *args: object, **kwargs: object) -> object:
        result = apply(cls, *args, **kwargs)
        if not ledger._paused and torch.is_grad_enabled():
            with ledger.paused():
                ledger.observe(result)
        return result

    apply_and_observe.__module__ = apply.__module__  # what a repr shows: torch's, not grill's
    apply_and_observe.__qualname__ = apply.__qualname__
    apply_and_observe.__name__ = apply.__name__
    return stand_in(apply_and_observe)


class _Watching:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def __enter__(self) -> Ledger:
        self.ledger._install()
        self.ledger.__enter__()  # type: ignore[no-untyped-call]  # (unannotated in torch)
        return self.ledger

    def __exit__(self, *exc: *_ExcInfo) -> None:
        try:
            self.ledger.__exit__(*exc)  # type: ignore[no-untyped-call]
        finally:
            self.ledger._uninstall()


class _Paused:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.disabled = torch._C.DisableTorchFunction()

    def __enter__(self) -> None:
        self.was_paused, self.ledger._paused = self.ledger._paused, True
        self.disabled.__enter__()

    def __exit__(self, *exc: *_ExcInfo) -> None:
        self.disabled.__exit__(*exc)
        self.ledger._paused = self.was_paused
