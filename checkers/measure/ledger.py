"""The life of every autograd node a snippet makes: when it was born, when backward last used
it, and when it died; and the passes of every loop. The grader's verdict is read off these
(see `checkers.judge.growth`).

Time is counted in *generations*. A new generation opens at the top of a loop's iteration
when graph was built or used since the last one opened, so one iteration of a training loop
is one generation, and an inner loop's iterations (timesteps, critic steps) are generations
too; a loop inside a backward pass (a checkpoint's recomputation) opens none. A snippet
without loops opens them at each backward() and optimizer step instead. A node's *key* is
the generation of its last use by a backward pass, or of its birth when backward never
reaches it. From its key until it dies a node is dead weight: nothing will ever
backpropagate through it again. Graph waiting for a later backward (an accumulation window,
an episode) is not dead weight, because its key is that later use: keys are only final at
the end, which is why the analysis is made after the run.

How the ledger sees everything, whatever the snippet does:
- births: a TorchFunctionMode sees every torch call's result (and the tensor an in-place call
  changed); `autograd.Function.apply` is wrapped for custom Functions; gradients returned by
  backward with create_graph are followed. A new node's whole new subgraph is stamped, so nodes
  made inside composite ops are counted too. Torch hides its mode stack inside its own calls,
  so the ledger puts the mode back during every backward pass and inside saved-tensors hooks
  (`_mode_on`); graph still unseen is adopted where a scan, a backward pass, an optimizer step
  or the garbage collector's sweep finds it (`adopt`, `sweep`).
- uses: the autograd engine itself is wrapped, so every backward and autograd.grad is seen,
  however it was called.
- deaths: each node's `metadata` dict (which lives exactly as long as the C++ node) holds a
  token; a weak reference to the token reports the node's death, whoever held it: a tensor,
  a kept `grad_fn`, a closure or a hook.
- passes: each loop's run from its first iteration to its exit (`enter`, `loop`, `leave`),
  the generations its iterations start in, and whether they compute on each other's results
  (`recurrent`: layers, timesteps), so the judge can tell a window that spans a whole pass
  from one the code bounds.
"""

from __future__ import annotations

import functools
import gc
import itertools
import sys
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from types import FrameType, TracebackType
from typing import Protocol, cast

import torch
from torch.autograd import function as autograd_function
from torch.autograd import variable as autograd_variable
from torch.optim import optimizer as optim_module
from torch.overrides import TorchFunctionMode

from checkers.measure import storage
from checkers.measure.memory import CudaAllocator, HostHeap, OffHeap, TensorPeak
from checkers.measure.rates import HOST_SYNC_RULES, PerUpdate, ScalarReads, given_to
from checkers.measure.retained import grad_fn_of
from checkers.measurements import Holder
from checkers.policy.standins import stand_in

_DATA_SOURCES: tuple[type, ...] = (torch.utils.data.DataLoader, torch.utils.data.Dataset)
"""What a loop over data iterates, besides items that carry tensors."""


_NOT_DATA: tuple[type, ...] = (torch.nn.Module, torch.optim.Optimizer)
"""Objects that hold tensors but are no data: a loop over layers or optimizers."""


def carries_tensor(item: object, depth: int = 3) -> bool:
    """Whether a loop's item is data: a tensor, or a tuple, list, dict or object holding one
    within `depth` levels (`(i, (x, y))` from `enumerate(loader)`; torchtext's `Batch` with
    `batch.src`, a dataclass, a namedtuple, a `SimpleNamespace`), read from real storage."""
    if storage.is_a(item, torch.Tensor):
        return True
    if depth == 0:
        return False
    kind = storage.container_kind(item)
    if kind is dict:
        values = [value for _, value in storage.pairs(item, 8)[0]]
    elif kind in (tuple, list):
        values = storage.items(item, kind, 8)[0]
    elif kind is None and not any(storage.is_a(item, k) for k in _NOT_DATA):
        values = storage.attribute_values(item, 8)
    else:
        return False
    return any(carries_tensor(value, depth - 1) for value in values)


TOKEN = "grill"
"""The metadata key holding a node's token. The policy refuses `metadata` to snippets."""
UNSET = -1
ALIVE = 1 << 62
"""`last_death` of a generation that still had live nodes when the run ended."""
MAX_WALK = 200_000
"""Nodes one backward pass's walk visits at most; past this the run is far into a leak."""
FIRST_SCAN_LIVES = 64
"""Live nodes before the first scan of what holds them; each later scan waits for twice as many."""
FIRST_SCAN_GENERATION = 16
"""Generations before the first scan on the clock; each later one waits for twice as many,
so graph grill never saw being made is found (and adopted) however little of it there is."""
MIN_PASS = 4
"""Generations a pass of a loop spans at least before it can be held whole."""
HELD_SHARE = 0.75
"""The share of a pass's generations (all but its last two) whose graph must still be alive
when it ends for the pass to be held whole."""
MIN_HELD = 3
"""Generations held at least: one loss kept from the first batch makes no window."""
START_SAMPLES = 16
"""Iterations of a pass whose starting generation is kept to tell a recurrence."""
RECURRENT_SHARE = 0.5
"""A pass whose generations mostly have this share of their nodes computed from earlier
graph unrolls one computation (layers, timesteps): the code bounds it, it is never held."""
LEAF: type = torch._C._functions.AccumulateGrad  # type: ignore[attr-defined]
"""The type of a leaf tensor's node (the only node type of that name), told by identity."""

_ExcInfo = tuple[type[BaseException] | None, BaseException | None, TracebackType | None]


class _Token:
    """Lives in a node's metadata; its death is the node's."""

    __slots__ = ("life", "__weakref__")
    life: _Life


class _Life(weakref.ref[_Token]):
    """A node's record: its key, its first use, the line that made it, the generation of its
    birth and of its death (UNSET while it lives), and whether a saved-tensors hook packed
    what it saved (reading those runs the hook). A scan keeps the records of the holders it
    found, so what became of them is known at the end."""

    __slots__ = ("key", "first_use", "line", "born", "died", "hooked", "descends")
    key: int
    first_use: int
    line: int | None
    born: int
    died: int
    hooked: bool
    descends: bool
    """Computed from graph made in an earlier generation (see `Ledger._descends`)."""


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
    """Graph nodes found that the ledger never saw being made (a bypass, or a blind spot);
    the scan stamped them, so from then on they count like any other."""
    unread: int = 0
    """Objects the scan's caps left unread: where a holder could still be."""
    reason: str = "growth"
    """Why it ran: `growth` (live graph doubled), `clock`, `pass` (a loop's pass ended with
    its graph still alive) or `end`."""
    loop: int = 0
    """For a `pass` scan: the loop's line, and the generations its pass spanned."""
    first: int = 0
    last: int = 0
    lives: list[tuple[_Life | None, _Life | None]] = field(default_factory=list)
    """Per holder: the records of its root node and of its oldest node when it was found."""


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
        on_carried: Callable[[GraphNode, int], None] | None = None,
    ) -> None:
        super().__init__()
        self.filename = filename
        self.reader = reader
        self.track_peak = track_peak
        """Keep the high-water mark of tensor bytes over the run (`TensorPeak`), for a
        peak-memory budget: only when a task asks (on CPU the allocator reports every
        allocation to the profiler then, a few percent of the run's time)."""
        self._peak = (
            TensorPeak("cuda" if isinstance(reader, CudaAllocator) else "cpu")
            if track_peak
            else None
        )
        self.deadline = deadline
        self.cpu_deadline = cpu_deadline
        """The budget in the process's CPU time: the run stops itself before its CPU limit
        would kill it (on a quiet machine wall and CPU time run together)."""
        self.steps_cap = steps_cap
        self.on_stop = on_stop
        """Called (trusted code) when the budget is spent: it must not return."""
        self.on_scan = on_scan
        self.on_carried = on_carried
        """Called, paused, when a backward pass fails on graph an earlier step made (torch's
        "backward through the graph a second time", or an in-place change under retain_graph):
        with the newest such node and the generation it was born in."""
        self._earlier: tuple[GraphNode, int] | None = None
        """Called when live graph doubles, to find what holds it while it is still held."""
        self.generation = 0
        self._dirty = False
        self.last_death = OffHeap(fill=UNSET)
        self.step_at = OffHeap()
        """Steps (`steps`) taken when each generation opened."""
        self.loop_at = OffHeap()
        """Line of the loop whose tick opened each generation (0: a backward or step)."""
        self.reach = OffHeap()
        """Per backward pass: how many earlier passes' graphs it ran through again."""
        self.backward_at = OffHeap()
        """The generation of each backward pass."""
        self.memory_by_step = OffHeap()
        self.reserved_by_step = OffHeap()
        self.memory_by_backward = OffHeap()
        """Memory at each backward pass, read only until the first optimizer step: the curve
        of a run that takes none (with steps, the curve is by step)."""
        self.lives: set[_Life] = set()
        self.born_count = OffHeap()
        self.died_by_born = OffHeap()
        """Per generation: how many nodes born in it have died (the rest are alive now)."""
        self.descending = OffHeap()
        """Per generation: nodes born in it, and of those, the ones computed from earlier
        graph (`_descends`)."""
        self.pass_line = OffHeap()
        """Per pass of a loop (each time a loop runs, from its first iteration to its exit):
        the loop's line, the generations of its first and last iterations, the generation
        it ended in, and the line of the loop it ran inside (0: none)."""
        self.pass_first = OffHeap()
        self.pass_last = OffHeap()
        self.pass_end = OffHeap()
        self.pass_parent = OffHeap()
        self.pass_ticks = OffHeap()
        """Per pass: how many iterations it ran."""
        self.pass_start = OffHeap(fill=UNSET)
        self.start_pass = OffHeap()
        self.start_generation = OffHeap()
        """Each generation an iteration of a pass started in, in order (the pass, the
        generation): where each iteration's graph begins, for `iterations_held`."""
        self.pass_recurrent = OffHeap(fill=UNSET)
        """Per pass, once it ended: 1 when its iterations compute on each other's results."""
        self.pass_data = OffHeap()
        """Per pass: 1 when its loop runs over a DataLoader or a Dataset itself."""
        self._starts: dict[int, list[int]] = {}
        """Per open pass: the generations its first iterations started in (a sample)."""
        self.passes = 0
        self._open: dict[int, list[int]] = {}
        self._open_order: list[int] = []
        self.feeding: dict[int, tuple[object, bool]] = {}
        """What each open pass iterates over (a generator, a zip of them), by pass, and whether
        the pass is a `for` statement's (not a comprehension's): the snippet's generators and
        iterator objects suspended there hold state no running frame names."""
        self._pass_scanned: dict[int, int] = {}
        self.adopted = 0
        """Nodes grill did not see being made, stamped when a scan or a backward pass found
        them (their birth estimated from the graph they were made from)."""
        self.nodes_created = 0
        self.backward_calls = 0
        self.per_update = PerUpdate()
        """Host synchronisations and backward passes, per optimizer step's window."""
        self.optimizer_steps = 0
        self.updates = 0
        """Optimizer steps that found at least one gradient to apply."""
        self.steps = 0
        """Optimizer steps as the loop counts them, for the judge's step numbers and cadences:
        the steps of one generation are one (several optimizers updating in one iteration)."""
        self._stepped_in = UNSET
        self.reused_nodes = 0
        """Node visits by a backward pass that an earlier pass had already used (retain_graph)."""
        self.higher_order = False
        self.walk_truncated = False
        self.peak = 0
        self.base = 0
        self.scans: list[Scan] = []
        self.first_paths: dict[int, tuple[weakref.ref[torch.Tensor], str, bool]] = {}
        """Per holder seen by a scan: a weak reference to it, the path it was first seen
        under in a container (or under a name, until it is seen in one), and whether that
        path is in a container (kept by the grader's scans, not by the snippet)."""
        self.problem: str | None = None
        """Set when the instrumentation was found switched off or replaced."""
        self._next_scan = FIRST_SCAN_LIVES
        self._next_clock_scan = FIRST_SCAN_GENERATION
        self._streak_scanned = 0
        self._backward_depth = 0
        """Backward passes running now: a loop inside one (a checkpoint's recomputation, a
        hook's) is no iteration of training, and opens no generation."""
        self._hooks_active = 0
        """Saved-tensors default hooks pushed and not popped: what nodes save now is packed."""
        self._hook_functions: tuple[Callable[..., object], Callable[..., object]] | None = None
        self._paused = False
        self._step_pause: _Paused | None = None
        self._step_depth = 0
        """Optimizer steps running now: an optimizer whose step() runs another's (Lookahead,
        ZeroRedundancyOptimizer over its local optimizer) makes one update, not two."""
        self._inside = 0
        """Depth of torch calls running inside the mode's handler (where torch pops the mode)."""
        self._calls: list[tuple[Sequence[object], Mapping[str, object], bool]] = []
        """The torch calls in progress: their arguments, and whether each counted as a host
        sync already (the scalar reads inside one are its own)."""
        self.scalar_reads = ScalarReads(self._scalar_read)
        self._loop_line = 0
        self._engine: torch._C._ImperativeEngine | None = None
        self._apply: classmethod[autograd_function.Function, ..., object] | None = None
        self._installed_apply: classmethod[autograd_function.Function, ..., object] | None = None
        self._hooks: list[torch.utils.hooks.RemovableHandle] = []
        self._on_death = self._died
        """Each node's death callback: one bound method for them all."""

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
        autograd = torch._C._autograd
        push, pop = (
            autograd._push_saved_tensors_default_hooks,
            autograd._pop_saved_tensors_default_hooks,
        )
        self._hook_functions = (push, pop)
        # (torch's own code calls these, never the snippet: no stand-in, which would be kept
        # for good and keep every hook's frame with it)
        autograd._push_saved_tensors_default_hooks = self._push_saved_hooks  # type: ignore[assignment]
        autograd._pop_saved_tensors_default_hooks = self._pop_saved_hooks
        if self._peak is not None:
            self._peak.start()

    def stop_peak(self) -> None:
        """End the peak's count (at the run's end, or where its budget stopped it), before
        grill itself allocates anything to measure."""
        if self._peak is not None:
            self.peak = self._peak.stop()

    def _uninstall(self) -> None:
        self.stop_peak()
        autograd_variable.Variable._execution_engine = self._engine  # type: ignore[attr-defined]
        autograd_function.Function.apply = self._apply  # type: ignore[method-assign, assignment]
        for handle in self._hooks:
            handle.remove()
        if self._hook_functions is not None:
            autograd = torch._C._autograd
            push, pop = self._hook_functions
            autograd._push_saved_tensors_default_hooks = push  # type: ignore[assignment]
            autograd._pop_saved_tensors_default_hooks = pop  # type: ignore[assignment]

    # -- code torch runs inside its own calls ---------------------------------------------
    # Torch hides its mode stack while the mode's handler runs a call, so what Python code
    # runs inside that call (a saved-tensors pack hook during a forward op; a tensor or
    # module hook, a custom Function's backward, a checkpoint's recomputation during
    # backward) would make graph the mode never sees. The ledger puts itself back on the
    # stack for that code, and stamps what it returns.

    def _mode_on(self) -> bool:
        """Put the mode back on torch's stack where torch hid it; True when it did."""
        if self._paused or _on_stack(self):
            return False
        torch._C._push_on_torch_function_stack(self)
        return True

    def _mode_off(self, pushed: bool) -> None:
        if pushed and _mode_stack() and _mode_stack()[-1] is self:
            torch._C._pop_torch_function_stack()

    def _push_saved_hooks(self, pack: Callable[..., object], unpack: Callable[..., object]) -> None:
        assert self._hook_functions is not None, "installed"
        self._hooks_active += 1
        self._hook_functions[0](self._observed(pack), self._observed(unpack))

    def _pop_saved_hooks(self) -> None:
        assert self._hook_functions is not None, "installed"
        self._hooks_active = max(0, self._hooks_active - 1)
        self._hook_functions[1]()

    def _observed(self, hook: Callable[..., object]) -> Callable[..., object]:
        def observed(value: object) -> object:
            pushed = self._mode_on()
            try:
                result = hook(value)
            finally:
                self._mode_off(pushed)
            if not self._paused and torch.is_grad_enabled():
                with self.paused():
                    self.observe(result)
            return result

        return observed

    def intact(self) -> bool:
        """Whether every observer is still the one installed and torch calls still reach the
        mode (torch pops it while its own handler runs: a hook called during backward). While
        grill itself pauses the mode (an optimizer's step, the candidate's own included), the
        mode is off by grill's hand but must still be on the stack."""
        return (
            isinstance(autograd_variable.Variable._execution_engine, _Engine)  # type: ignore[attr-defined]
            and autograd_function.Function.__dict__["apply"] is self._installed_apply
            and (
                self._inside > 0
                or (self._paused or torch._C._is_torch_function_mode_enabled())
                and _on_stack(self)
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
        # Every torch call of the run comes through here: one frame, and each check made once
        # (the calls it makes are the ones it cannot avoid).
        if kwargs is None:
            kwargs = {}
        calls = self._calls
        if self._paused:
            calls.append((args, kwargs, False))
            try:
                return func(*args, **kwargs)
            finally:
                calls.pop()
        try:
            rule = HOST_SYNC_RULES.get(func)
        except TypeError:  # an unhashable callable reached torch's dispatch: none of those
            rule = None
        counted = rule is not None and rule(args, kwargs)
        if counted:
            self.per_update.count("host_syncs")
        calls.append((args, kwargs, counted))
        try:
            if not _GRAD_ENABLED():
                return func(*args, **kwargs)
            self._inside += 1
            try:
                result = func(*args, **kwargs)
            finally:
                self._inside -= 1
            if _GRAD_ENABLED():  # the call may have switched it (set_grad_enabled)
                # `observe`, its exact-tensor case inline (most results): its graph, if new
                kind = type(result)
                if kind is _TENSOR or kind is _PARAMETER:
                    try:
                        node: GraphNode | None = _GRAD_FN(result)
                    except RuntimeError:
                        node = None
                    if node is not None and TOKEN not in node.metadata:
                        self._discover(node, 1)
                elif id(kind) not in _NO_GRAPH:
                    self.observe(result)
                if args and args[0] is not result:  # an in-place call: its target's new grad_fn
                    self.observe(args[0], depth=0)
            return result
        finally:
            calls.pop()

    def _scalar_read(self, tensor: object) -> None:
        """A tensor element read into a Python number (`rates.ScalarReads`): a host sync when
        the snippet gave that tensor to the call in progress for a number, unless that call
        counted already; a kernel's reads of its own intermediates and grill's reads (torch
        functions off) are not the snippet's."""
        if self._paused or torch._C._is_torch_function_all_disabled():
            return
        if self._calls:
            args, kwargs, _ = self._calls[-1]
            if any(counted for *_, counted in self._calls) or not given_to(tensor, args, kwargs):
                return
        self.per_update.count("host_syncs")

    def observe(self, value: object, depth: int = 2) -> None:
        """Stamp the graph behind `value` (a tensor, or tuples and lists of them). Called
        where torch calls do not reach the mode (inside it, or paused). Only the real types
        are looked into, so nothing of the snippet's runs."""
        kind = type(value)
        if kind is torch.Tensor or kind is torch.nn.Parameter:  # the common case, and fast
            try:
                node: GraphNode | None = _GRAD_FN(value)
            except RuntimeError:
                node = None
            if node is not None and TOKEN not in node.metadata:
                self._discover(node, 1)
        elif id(kind) in _NO_GRAPH:  # a number, a size, a dtype: the next most common
            return
        elif storage.is_a(value, torch.Tensor):
            with torch._C.DisableTorchFunctionSubclass():  # no subclass getter of theirs
                node = cast("GraphNode | None", grad_fn_of(cast(torch.Tensor, value)))
            if node is not None and TOKEN not in node.metadata:
                self._discover(node, 1)
        elif depth and (kind is tuple or kind is list):
            for item in cast("list[object]", value):  # (exact types: C iteration only)
                self.observe(item, depth - 1)

    def _discover(self, root: GraphNode, outer: int) -> None:
        """Stamp every node under `root` not stamped yet (stamped nodes end the walk), with the
        snippet line running now (`outer`: how many frames above this one are the ledger's, so
        the search for that line starts past them)."""
        stack = [root]
        line: int | None = UNSET
        made: list[tuple[_Life, tuple[tuple[GraphNode | None, int], ...]]] = []
        born = self.generation
        new_life = self._new_life
        while stack:
            node = stack.pop()
            metadata = node.metadata
            if TOKEN in metadata or type(node) is LEAF:
                continue
            if line == UNSET:  # (frames out from here: this one, then `outer` of the ledger's)
                line = self._candidate_line(outer + 2)
            children = node.next_functions
            made.append((new_life(metadata, line, born), children))
            for child, _ in children:
                if child is not None:
                    stack.append(child)
        if not made:
            return
        self.born_count.add(born, len(made))
        self.nodes_created += len(made)
        self._dirty = True
        descending = 0
        for life, children in reversed(made):  # children before their parents
            if self._descends(children):
                life.descends = True
                descending += 1
        if descending:
            self.descending.add(born, descending)

    def _descends(self, children: tuple[tuple[GraphNode | None, int], ...]) -> bool:
        """Whether a new node is computed from graph made before this generation (`x` in
        `x = block(x)`, `state` in `state = cell(x, state)`), itself or through the new nodes
        it is computed from: a loop whose iterations mostly do so unrolls one computation
        (layers, timesteps), it does not repeat work over data."""
        for child, _ in children:
            if child is None or type(child) is LEAF:
                continue
            token = child.metadata.get(TOKEN)
            if token is not None and (token.life.born < self.generation or token.life.descends):
                return True
        return False

    def _stamp(
        self, metadata: dict[str, _Token], line: int | None, born: int | None = None
    ) -> _Life:
        """Give a node its record, born now (or in `born`), and count it."""
        life = self._new_life(metadata, line, self.generation if born is None else born)
        self.born_count.add(life.born, 1)
        self.nodes_created += 1
        self._dirty = True
        return life

    def _new_life(self, metadata: dict[str, _Token], line: int | None, born: int) -> _Life:
        """A node's record and token, put in its metadata (its caller counts the birth)."""
        token = _Token()
        life = _Life(token, self._on_death)
        life.key = life.born = born
        life.first_use = UNSET
        life.line = line
        life.died = UNSET
        life.hooked = self._hooks_active > 0
        life.descends = False
        token.life = life
        metadata[TOKEN] = token
        self.lives.add(life)
        return life

    def _live_at(self, generation: int) -> int:
        return self.born_count.get(generation) - self.died_by_born.get(generation)

    def recurrent(self, index: int) -> bool:
        """Whether pass `index`'s iterations mostly compute on each other's results: in the
        generation each of its iterations starts in (a sample of them, its first iteration
        left out), the middle share of new nodes computed from earlier graph is at least
        RECURRENT_SHARE. A loop over layers or timesteps starts each iteration from the last
        one's output; a loop over batches starts each from new data (an accumulator's node,
        or a layer loop inside the batch, links only generations within or at the end of an
        iteration)."""
        known = self.pass_recurrent.get(index)
        if known != UNSET:
            return bool(known)
        shares = sorted(
            self.descending.get(g) / born
            for g in self._starts.get(index, [])[1:]
            if (born := self.born_count.get(g))
        )
        return bool(shares) and shares[len(shares) // 2] >= RECURRENT_SHARE

    def _died(self, life: _Life) -> None:
        self.lives.discard(life)
        generation = life.died = self.generation
        self.died_by_born.add(life.born, 1)
        last_death = self.last_death
        if last_death.get(life.key) < generation:  # (UNSET past its end)
            last_death[life.key] = generation

    def adopt(self, root: GraphNode | None) -> int:
        """Stamp the nodes under `root` that grill did not see being made (built inside code
        torch runs itself, or by torch's C++): each is given the latest birth among the
        stamped nodes it was made from (it cannot be older), or now where it was made from
        leaves only. Returns how many it stamped."""
        if root is None or TOKEN in root.metadata or type(root) is LEAF:
            return 0
        born: dict[int, int] = {}
        keep: dict[int, GraphNode] = {}  # holds each wrapper, so no id is reused mid-walk
        stack: list[tuple[GraphNode, bool]] = [(root, False)]
        adopted = 0
        while stack and len(keep) < MAX_WALK:
            node, expanded = stack.pop()
            if id(node) in born and not expanded:
                continue
            keep[id(node)] = node
            metadata = node.metadata
            token = metadata.get(TOKEN)
            if token is not None:
                born[id(node)] = token.life.born
                continue
            if type(node) is LEAF:
                born[id(node)] = UNSET
                continue
            children = [child for child, _ in node.next_functions if child is not None]
            if not expanded:
                stack.append((node, True))
                stack.extend((child, False) for child in children if id(child) not in born)
                continue
            estimate = max((born.get(id(child), UNSET) for child in children), default=UNSET)
            birth = estimate if estimate != UNSET else self.generation
            self._stamp(metadata, None, min(birth, self.generation))
            born[id(node)] = birth
            adopted += 1
        self.adopted += adopted
        return adopted

    def sweep(self) -> int:
        """Adopt every graph the garbage collector can see that grill did not stamp (held
        where no scan from the snippet's names reaches: what grill cannot read still counts).
        Reads only the collector's list and the C++ tensors and nodes; objects the worker
        froze before the run are not in the list."""
        adopted = 0
        kinds: dict[int, tuple[type, int]] = {}  # per type: 0 neither, 1 tensor, 2 node
        with torch._C.DisableTorchFunction():
            for obj in gc.get_objects():
                cls = type(obj)
                known = kinds.get(id(cls))
                if known is None or known[0] is not cls:
                    kind = (
                        2 if storage.is_node(obj) else 1 if storage.is_a(obj, torch.Tensor) else 0
                    )
                    known = kinds[id(cls)] = (cls, kind)
                if not known[1]:
                    continue
                if known[1] == 2:
                    node = cast("GraphNode", obj)
                else:
                    tensor = cast(torch.Tensor, obj)
                    found = storage.grad_fn(tensor)
                    if found is None:
                        grad = storage.grad(tensor)
                        found = storage.grad_fn(grad) if grad is not None else None
                    if found is None:
                        continue
                    node = cast("GraphNode", found)
                if TOKEN not in node.metadata:
                    adopted += self.adopt(node)
        return adopted

    def _candidate_line(self, outer: int = 1) -> int | None:
        """The line the snippet runs now: its innermost frame's, looked for from the frame
        `outer` levels out from this one (1: the caller's), the ledger's own frames inside it
        skipped (`sys._getframe` makes no frame objects for those)."""
        try:
            frame: FrameType | None = sys._getframe(outer)
        except ValueError:  # no frame that far out: none of the snippet's either
            return None
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
        self.per_update.count("backward_passes")
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
        pushed = self._mode_on()  # hooks and custom backwards run inside: see _mode_on
        self._backward_depth += 1
        carried, self._earlier = self._earlier, None
        try:
            result = engine.run_backward(outputs, *args, **kwargs)
        except RuntimeError as exc:
            if carried is not None and self.on_carried is not None and carried_error(str(exc)):
                with self.paused():
                    self.on_carried(*carried)
            raise
        finally:
            self._backward_depth -= 1
            self._mode_off(pushed)
        if create_graph:
            self.higher_order = True
            with self.paused():
                self.observe(result)
                for leaf in leaves:
                    variable = getattr(leaf, "variable", None)  # (a C++ AccumulateGrad's)
                    grad = storage.grad(variable) if variable is not None else None
                    if grad is not None:
                        self.observe(grad)
        if self.reader is not None and not self.optimizer_steps:  # (with steps: by step)
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
            if type(node) is LEAF:
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
            if life.born < self.generation and (
                self._earlier is None or life.born > self._earlier[1]
            ):
                self._earlier = (node, life.born)  # the newest graph an earlier step made
            for child, _ in node.next_functions:
                if child is not None:
                    stack.append(child)
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
        run without the mode unless a closure (L-BFGS) builds graph inside the step. A step
        inside another optimizer's step is part of that one's update."""
        self._step_depth += 1
        if self._step_depth > 1:
            return
        with self.paused(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # FSDP's parameters are views: torch warns on .grad
            gradients = _gradients(optimizer)
            if gradients:
                self.updates += 1
            for grad in gradients:  # from the graph side: a gradient made with create_graph
                made = storage.grad_fn(grad)
                if made is not None:
                    self.adopt(cast("GraphNode", made))
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
        self._step_depth = max(self._step_depth - 1, 0)
        if self._step_depth:
            return
        if self._step_pause is not None:
            pause, self._step_pause = self._step_pause, None
            pause.__exit__(None, None, None)
        self.optimizer_steps += 1
        if self._stepped_in != self.generation:
            self._stepped_in = self.generation
            self.steps += 1
        self.per_update.update()
        if self.reader is not None:
            used, reserved = self._read()
            self.memory_by_step.append(used)
            self.reserved_by_step.append(reserved)
        self.tick(0)

    # -- ticks ----------------------------------------------------------------------------

    def enter(self, line: int) -> None:
        """A loop at `line` starts a pass (its first iteration, or its exit, may follow)."""
        index = self.passes
        self.passes += 1
        self.pass_line[index] = line
        self.pass_first[index] = UNSET
        self.pass_last[index] = UNSET
        self.pass_end[index] = UNSET
        self.pass_parent[index] = self.pass_line[self._open_order[-1]] if self._open_order else 0
        self._open.setdefault(line, []).append(index)
        self._open_order.append(index)

    def loop(self, line: int, iterable: Iterable[object], ticking: bool) -> Iterator[object]:
        """`iterable`, item for item, marking the pass of the loop at `line` that runs over it
        (and, `ticking`, an iteration before each item: a comprehension has no statement to
        put a tick in). The pass ends when the iterable is exhausted or the loop drops it."""

        def one_pass() -> Iterator[object]:
            self.enter(line)
            index = self.passes - 1
            self.feeding[index] = (iterable, not ticking)
            if any(storage.is_a(iterable, kind) for kind in _DATA_SOURCES):
                self.pass_data[index] = 1
            try:
                for count, item in enumerate(iterable):
                    if count == 0 and carries_tensor(item):  # one look: a loop over data's
                        self.pass_data[index] = 1  # items all carry tensors, or none do
                    if ticking:
                        self.tick(line)
                    yield item
            finally:
                self.leave(line)  # its scan may still name what the pass drew from
                self.feeding.pop(index, None)

        return one_pass()

    def each(self, line: int, callee: object, iterable: Iterable[object]) -> Iterable[object]:
        """The iterable argument of `map`, `filter`, `functools.reduce` or
        `itertools.starmap`, marked as a loop when the callee is the real one."""
        if any(callee is known for known in _CALLING_EACH):
            return self.loop(line, iterable, True)
        return iterable

    def leave(self, line: int) -> None:
        """The loop at `line` ended its pass (exhausted, a break, a return, an exception). A
        pass whose graph is still alive from its first iterations is scanned now, while it is
        held, so the verdict can name what holds it."""
        stack = self._open.get(line)
        if not stack:
            return
        index = stack.pop()
        if index in self._open_order:
            self._open_order.remove(index)
        self.pass_end[index] = self.generation
        self.pass_recurrent[index] = int(self.recurrent(index))
        self._starts.pop(index, None)
        first, last = self.pass_first[index], self.pass_last[index]
        if first == UNSET or last - first + 1 < MIN_PASS or self.on_scan is None:
            return
        if self._backward_depth:
            return
        held = sum(1 for g in range(first, last - 1) if self._live_at(g) > 0)
        iterations = min(self.pass_ticks.get(index), last - first + 1)
        if (
            held >= max(MIN_HELD, HELD_SHARE * (iterations - 2))
            and held > 2 * self._pass_scanned.get(line, 0)
            and not self.recurrent(index)
        ):
            self._pass_scanned[line] = held
            self._scan("pass", line, first, last)

    def tick(self, line: int = 0) -> None:
        """Top of a loop iteration (`line`: the loop), or the end of a backward or a step (0)."""
        if line:
            self._loop_line = line
            if self.problem is None and not self.intact():
                self._switched_off()
        if self._backward_depth:
            self._tick_pass(line)  # the pass is marked, all of it within this one moment
            return
        opened = self._dirty and (line or not self._loop_line)
        if opened:  # a new generation opens
            self._dirty = False
            self.generation += 1
            self.step_at[self.generation] = self.steps
            self.loop_at[self.generation] = self._loop_line
        self._tick_pass(line)
        if self.on_scan is not None:
            if len(self.lives) >= self._next_scan:
                self._scan("growth")
            elif self.generation >= self._next_clock_scan:
                self._next_clock_scan = 2 * self.generation
                self._scan("clock")
            elif opened and self._held_for(self._streak_scanned * 2 + 1):
                self._streak_scanned = max(self._streak_scanned * 2 + 1, MIN_HELD)
                self._scan("streak")
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

    def _tick_pass(self, line: int) -> None:
        stack = self._open.get(line) if line else None
        if stack:
            index = stack[-1]
            if self.pass_first[index] == UNSET:
                self.pass_first[index] = self.generation
            self.pass_last[index] = self.generation
            self.pass_ticks.add(index, 1)
            if self.pass_start.get(index) != self.generation:  # an iteration starts anew here
                self.pass_start[index] = self.generation
                self.start_pass.append(index)
                self.start_generation.append(self.generation)
            starts = self._starts.setdefault(index, [])
            if len(starts) <= START_SAMPLES and (not starts or starts[-1] != self.generation):
                starts.append(self.generation)

    def _held_for(self, generations: int) -> bool:
        """Whether graph born in each of the last `generations` finished generations (those
        before the one that just ended) is still alive, read at a few of them: something
        keeps a window of graphs, worth a scan to name it while it holds them."""
        generations = max(generations, MIN_HELD)
        newest = self.generation - 2
        if newest - generations + 1 < 0:
            return False
        probes = {
            0,
            1,
            2,
            generations // 4,
            generations // 2,
            3 * generations // 4,
            generations - 1,
        }
        return all(self._live_at(newest - back) > 0 for back in probes if back < generations)

    def _switched_off(self) -> None:
        self.problem = (
            "the snippet switched off or replaced grill's instrumentation"
            f" (at line {self._candidate_line() or '?'})"
        )

    def _scan(self, reason: str, loop: int = 0, first: int = 0, last: int = 0) -> None:
        assert self.on_scan is not None, "tick() scans only with on_scan set"
        with self.paused():
            scan = self.on_scan()
            if scan is not None:
                scan.reason, scan.loop, scan.first, scan.last = reason, loop, first, last
                self.scans.append(scan)
            self._next_scan = max(2 * len(self.lives), FIRST_SCAN_LIVES)

    # -- reading --------------------------------------------------------------------------

    def paused(self) -> _Paused:
        """Context in which torch calls are neither observed nor dispatched to the mode."""
        return _Paused(self)

    def _read(self) -> tuple[int, int]:
        return self.reader.read() if self.reader is not None else (0, 0)

    def close_lives(self) -> None:
        """At the end of the run, which is one more generation boundary: every node still alive
        marks its generation as alive at the end, except graph still waiting for a backward
        pass the run did not get to. That is graph never used, made within the longest stretch
        the run ever went between backward passes (the last, unfinished accumulation window or
        episode); older unused graph is dead weight."""
        self.generation += 1
        self.step_at[self.generation] = self.steps  # the last generation's steps end here
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


_CALLING_EACH = (map, filter, functools.reduce, itertools.starmap)
_GRAD_ENABLED = torch.is_grad_enabled
_TENSOR, _PARAMETER = torch.Tensor, torch.nn.Parameter
_NO_GRAPH = frozenset(
    id(kind)
    for kind in (type(None), bool, int, float, complex, str, torch.Size, torch.dtype, torch.device)
)
"""Exact types of what torch calls return that hold no graph (kept by id: builtins)."""
_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"].__get__
"""`tensor.grad_fn` read from the C++ tensor (an exact Tensor: no getter of anyone's)."""


def _node_of(output: object) -> GraphNode | None:
    if storage.is_a(output, torch.Tensor):
        return cast("GraphNode | None", grad_fn_of(output))  # type: ignore[arg-type]
    if isinstance(output, tuple) and storage.is_a(output, tuple) and tuple.__len__(output) == 2:
        node = tuple.__getitem__(output, 0)  # a GradientEdge (isinstance: for the checker)
        return cast("GraphNode", node) if storage.is_node(node) else None
    return None


def _gradients(optimizer: object) -> list[torch.Tensor]:
    """The gradients the optimizer's parameters have to apply, read from its real
    `param_groups` (an Optimizer subclass may define any property)."""
    attributes = storage.instance_dict(optimizer)
    groups = dict.get(attributes, "param_groups") if attributes is not None else None
    found: list[torch.Tensor] = []
    if storage.container_kind(groups) is not list:
        return found
    for group in storage.items(groups, list, 10_000)[0]:
        if storage.container_kind(group) is not dict:
            continue
        params = dict.get(cast("dict[str, object]", group), "params")
        kind = storage.container_kind(params)
        if kind is None or kind is dict:
            continue
        for param in storage.items(params, kind, 1_000_000)[0]:
            tensor = cast(torch.Tensor, param)
            grad = storage.grad(tensor) if storage.is_a(tensor, torch.Tensor) else None
            if grad is not None:
                found.append(grad)
    return found


def _argument(
    args: tuple[object, ...], kwargs: dict[str, object], position: int, name: str
) -> object:
    return args[position] if len(args) > position else kwargs.get(name, False)


CARRIED_ERRORS = (
    "backward through the graph a second time",
    "modified by an inplace operation",
)
"""What torch says when a backward pass runs into graph an earlier pass already used or whose
saved tensors an update changed since."""


def carried_error(message: str) -> bool:
    return any(error in message for error in CARRIED_ERRORS)


def _mode_stack() -> list[object]:
    return [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]


def _on_stack(mode: object) -> bool:
    """Whether `mode` is on torch's mode stack (looked for from the top, where it usually is;
    every tick asks)."""
    for index in range(torch._C._len_torch_function_stack() - 1, -1, -1):
        if torch._C._get_function_stack_at(index) is mode:
            return True
    return False


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
        self.ledger.scalar_reads.__enter__()
        return self.ledger

    def __exit__(self, *exc: *_ExcInfo) -> None:
        try:
            self.ledger.scalar_reads.__exit__(*exc)
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
