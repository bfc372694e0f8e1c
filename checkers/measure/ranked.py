"""A rank of a ranked run, measured: its communication and its gradients, per optimizer update.

Every collective a rank makes, whoever makes it (the snippet's `dist.all_reduce`, DDP's
gradient buckets and its buffer broadcasts, ZeroRedundancyOptimizer, FSDP, a comm hook), goes
through torch's dispatcher as a `c10d::` operator; grill registers a kernel for each of them,
above the CPU kernel that runs the collective, that counts the call and the bytes this rank
contributes, then hands on. Calls are counted whole and per optimizer update (the window
from one `optimizer.step()` to the next), so "synchronise every micro-batch" and "once per
update" read as 4 and 1. Before each update the rank's gradients are summarised (their sum
and sum of squares, in float64), so the parent can tell whether every rank stepped on the same
gradients and whether they were averaged; at the end, so are the parameters the optimizers
updated. Measured in the sandbox child; the parent compares ranks and runs
(`checkers.judge.ranks`).
"""

from __future__ import annotations

import collections
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import torch
from torch.optim import optimizer as optim_module

from checkers.measurements import RankedMeasurements

MAX_UPDATES = 256
"""Updates whose collectives and gradients are kept one by one (the run's totals go on)."""

OPERATORS: dict[str, str] = {
    "allreduce_": "all_reduce",
    "allreduce_coalesced_": "all_reduce_coalesced",
    "broadcast_": "broadcast",
    "allgather_": "all_gather",
    "_allgather_base_": "all_gather_into_tensor",
    "allgather_coalesced_": "all_gather_coalesced",
    "allgather_into_tensor_coalesced_": "all_gather_into_tensor_coalesced",
    "reduce_scatter_": "reduce_scatter",
    "_reduce_scatter_base_": "reduce_scatter_tensor",
    "reduce_scatter_tensor_coalesced_": "reduce_scatter_tensor_coalesced",
    "reduce_": "reduce",
    "gather_": "gather",
    "scatter_": "scatter",
    "alltoall_": "all_to_all",
    "alltoall_base_": "all_to_all_single",
    "barrier": "barrier",
    "monitored_barrier_": "monitored_barrier",
    "send": "send",
    "recv_": "recv",
    "recv_any_source_": "recv",
}
"""torch's c10d operators, by the name the snippet knows each collective under."""
NO_PAYLOAD = frozenset({"barrier", "monitored_barrier_"})
"""Collectives whose tensor is a token, not data."""


class Communication:
    """What this rank sent through its collectives, in all and per optimizer update."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()
        self.bytes: collections.Counter[str] = collections.Counter()
        self.window = [0, 0, 0]
        """Calls, bytes, and calls made during a backward pass (DDP's gradient all-reduces
        run there, from autograd's hooks), since the last optimizer update."""
        self.per_update: list[list[int]] = []
        self.grads: list[list[float]] = []
        self.updates = 0
        self.optimizers: list[torch.optim.Optimizer] = []
        self.counting = True
        self.depth = 0
        """Optimizer steps under way: ZeroRedundancyOptimizer's step runs its inner
        optimizer's, and only the outer one is the update."""

    def counted(self, operator: str, args: tuple[Any, ...]) -> None:
        if not self.counting:
            return
        name = OPERATORS[operator]
        size = 0 if operator in NO_PAYLOAD else tensor_bytes(_payload(operator, args))
        self.calls[name] += 1
        self.bytes[name] += size
        self.window[0] += 1
        self.window[1] += size
        if torch._C._current_graph_task_id() != -1:
            self.window[2] += 1

    def before_update(self, optimizer: torch.optim.Optimizer) -> None:
        self.depth += 1
        if self.depth > 1:
            return
        if all(optimizer is not seen for seen in self.optimizers):
            self.optimizers.append(optimizer)
        if len(self.grads) < MAX_UPDATES:
            with warnings.catch_warnings():  # FSDP's parameters are views: torch warns on .grad
                warnings.simplefilter("ignore")
                grads = [
                    p.grad
                    for group in optimizer.param_groups
                    for p in group["params"]
                    if p.grad is not None
                ]
            self.grads.append(summary(grads))

    def after_update(self) -> None:
        self.depth = max(self.depth - 1, 0)
        if self.depth:
            return
        self.updates += 1
        if len(self.per_update) < MAX_UPDATES:
            self.per_update.append(list(self.window))
        self.window = [0, 0, 0]

    def report(self, rank: int, world: int, ended_at: int | None) -> RankedMeasurements:
        params = [
            p for opt in self.optimizers for group in opt.param_groups for p in group["params"]
        ]
        return {
            "rank": rank,
            "world": world,
            "collectives": {
                name: {"calls": self.calls[name], "bytes": self.bytes[name]} for name in self.calls
            },
            "per_update": self.per_update,
            "after_updates": list(self.window),
            "updates": self.updates,
            "grads": self.grads,
            "params": summary(params),
            "ended_at": ended_at,
        }


def _payload(operator: str, args: tuple[Any, ...]) -> object:
    """The tensors this rank contributes: the inputs where the schema lists outputs first
    (all_gather, reduce_scatter, gather, all_to_all), the tensors themselves otherwise;
    scatter's are what it receives (only its source rank has inputs)."""
    if operator != "scatter_" and operator.lstrip("_").startswith(
        ("allgather", "reduce_scatter", "gather", "alltoall")
    ):
        return args[1] if len(args) > 1 else ()
    return args[0] if args else ()


def tensor_bytes(value: object) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(tensor_bytes(item) for item in value)
    return 0


def summary(tensors: Iterable[torch.Tensor]) -> list[float]:
    """Sum and sum of squares of all the values, in float64 (equal across ranks whose tensors
    are equal; gloo's reductions give every rank the same bits)."""
    total = squares = 0.0
    with torch.no_grad(), torch._C.DisableTorchFunction():
        for tensor in tensors:
            values = tensor.detach().to(torch.float64)
            total += values.sum().item()
            squares += values.square().sum().item()
    return [total, squares]


_current: list[Communication] = []
_library: list[Any] = []


def watch() -> Communication:
    """Count this process's collectives and follow its optimizer updates (once per rank)."""
    if _current:
        return _current[0]
    counter = Communication()
    _current.append(counter)
    library = torch.library.Library("c10d", "IMPL")  # type: ignore[no-untyped-call]
    _library.append(library)  # registrations last as long as the library object
    for operator in OPERATORS:
        if hasattr(torch.ops.c10d, operator):
            for key in ("AutogradCPU", "AutogradCUDA"):
                library.impl(operator, _counting_kernel(counter, operator), key)  # type: ignore[no-untyped-call]
    optim_module.register_optimizer_step_pre_hook(
        lambda optimizer, args, kwargs: counter.before_update(optimizer)
    )
    optim_module.register_optimizer_step_post_hook(
        lambda optimizer, args, kwargs: counter.after_update()
    )
    return counter


def _counting_kernel(counter: Communication, operator: str) -> Any:
    op = getattr(torch.ops.c10d, operator).default

    def kernel(*args: Any) -> Any:
        counter.counted(operator, args)
        with torch._C.DisableTorchFunction(), torch._C._AutoDispatchBelowAutograd():
            return op(*args)

    return kernel


def communication(payload: Mapping[str, object]) -> Communication | None:
    """This rank's counter, when the run is ranked."""
    return watch() if payload.get("rank") is not None else None
