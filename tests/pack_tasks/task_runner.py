"""Run a code task's starter and solution as plain scripts and measure what its contract compares.

A stand-in for the contract grader the lead is building in `checkers/` (a code task's
`starter_fails: wrong`, `contract.same_as_solution` and `contract.peak_memory`); once it lands,
`grill lint --run` makes this redundant and this file goes.

Run as a script, it reads a JSON list of jobs from stdin, each
`{"id": ..., "runs": {label: source}, "names": [...], "seed": 0, "warmup": false}`, and executes
each source in a fresh namespace, on one thread, after seeding torch and `random` with `seed`, as
the grader does. It prints `{id: {label: result}}` as JSON, where each result holds:

- `values`: each compared name's value, flattened to lists of floats (an nn.Module becomes its
  parameters and buffers by name), or `missing`;
- `backward`: backward passes (`torch.autograd.backward`, which `Tensor.backward` calls);
- `steps` / `changing_steps`: optimizer steps, and those that changed a parameter;
- `peak_bytes`: the highest glibc heap in use (`mallinfo2`: `uordblks + hblkhd`, what the
  grader's host probe reads) sampled after every ATen operation, forward and backward, above
  the heap in use when the run started;
- `graph_nodes`: autograd nodes still reachable from live tensors when the run ends.

One process runs every job it is given, so torch is imported once. A job with `warmup` runs each
of its sources once unmeasured first, so torch's one-time allocations (kernel caches,
thread-local state) are not charged to whichever run comes first; peak measurements want that,
and a process of their own.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import json
import random
import sys
import warnings

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


_mallinfo2 = ctypes.CDLL(None).mallinfo2
_mallinfo2.restype = MallInfo2


def heap_in_use() -> int:
    info = _mallinfo2()
    return int(info.uordblks + info.hblkhd)


class PeakHeap(TorchDispatchMode):
    """Samples the heap after every ATen operation, including those autograd runs in backward."""

    def __init__(self) -> None:
        super().__init__()
        self.peak = heap_in_use()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        used = heap_in_use()
        if used > self.peak:
            self.peak = used
        return out


class Counters:
    def __init__(self) -> None:
        self.backward = 0
        self.steps = 0
        self.changing_steps = 0
        self._before: list[torch.Tensor] = []


def flatten(value, prefix: str = "") -> dict[str, list[float]] | str:
    """A compared value as {path: list of floats}, or a string saying why it cannot be compared."""
    if isinstance(value, torch.nn.Module):
        out = {}
        for name, tensor in [*value.named_parameters(), *value.named_buffers()]:
            out[f"{prefix}{name}"] = tensor.detach().double().flatten().tolist()
        return out
    if isinstance(value, torch.Tensor):
        return {prefix or ".": value.detach().double().flatten().tolist()}
    if isinstance(value, bool):
        return {prefix or ".": [float(value)]}
    if isinstance(value, (int, float)):
        return {prefix or ".": [float(value)]}
    if isinstance(value, (list, tuple)):
        out = {}
        for i, item in enumerate(value):
            part = flatten(item, f"{prefix}[{i}]")
            if isinstance(part, str):
                return part
            out.update(part)
        return out
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            part = flatten(item, f"{prefix}[{key!r}]")
            if isinstance(part, str):
                return part
            out.update(part)
        return out
    return f"not comparable: {type(value).__name__}"


def graph_nodes_alive() -> int:
    """Autograd nodes reachable from live tensors (a parameter's .grad included when it has one)."""
    roots = []
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor):
            if obj.grad_fn is not None:
                roots.append(obj.grad_fn)
            if isinstance(obj, torch.nn.Parameter) and obj.grad is not None and obj.grad.grad_fn is not None:
                roots.append(obj.grad.grad_fn)
    seen: dict[int, object] = {}
    while roots:
        node = roots.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        roots.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def run_one(source: str, names: list[str], seed: int) -> dict:
    counters = Counters()
    original_backward = torch.autograd.backward

    def counting_backward(*args, **kwargs):
        counters.backward += 1
        return original_backward(*args, **kwargs)

    def before_step(optimizer, args, kwargs):
        counters._before = [p.detach().clone() for group in optimizer.param_groups for p in group["params"]]

    def after_step(optimizer, args, kwargs):
        counters.steps += 1
        after = [p.detach() for group in optimizer.param_groups for p in group["params"]]
        if any(not torch.equal(a, b) for a, b in zip(counters._before, after)):
            counters.changing_steps += 1

    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    pre = register_optimizer_step_pre_hook(before_step)
    post = register_optimizer_step_post_hook(after_step)
    torch.autograd.backward = counting_backward
    gc.collect()
    random.seed(seed)
    torch.manual_seed(seed)
    namespace = {"__name__": "__main__"}
    error = None
    printed = io.StringIO()
    baseline = heap_in_use()
    mode = PeakHeap()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
            warnings.simplefilter("ignore")
            with mode:
                exec(compile(source, "<snippet>", "exec"), namespace)
    except Exception as exc:  # noqa: BLE001 - reported to the caller
        error = f"{type(exc).__name__}: {exc}"
    finally:
        torch.autograd.backward = original_backward
        pre.remove()
        post.remove()
    values = {name: flatten(namespace[name]) if name in namespace else "missing" for name in names}
    nodes = graph_nodes_alive()
    namespace.clear()
    gc.collect()
    return {"values": values, "backward": counters.backward, "steps": counters.steps,
            "changing_steps": counters.changing_steps, "peak_bytes": mode.peak - baseline,
            "graph_nodes": nodes, "error": error, "output": printed.getvalue()[-2000:]}


def run_job(job: dict) -> dict:
    seed = job.get("seed", 0)
    if job.get("warmup"):
        for source in job["runs"].values():
            run_one(source, job["names"], seed)
    return {label: run_one(source, job["names"], seed) for label, source in job["runs"].items()}


def main() -> None:
    torch.set_num_threads(1)
    jobs = json.load(sys.stdin)
    json.dump({job["id"]: run_job(job) for job in jobs}, sys.stdout)


if __name__ == "__main__":
    main()
