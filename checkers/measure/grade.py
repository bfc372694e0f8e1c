"""The grading job inside the sandbox child: instrument the snippet, run it to its end (or to
its budget) under the ledger, and measure. It returns measurements, not a verdict: the parent
judges them (`checkers.judge`) and checks the task's contract (`checkers.judge.contract`).

`grade_job(payload, finish)` is what `Sandbox.run("checkers.measure.grade:grade_job", payload)`
calls. A snippet that is refused or raises ends the run as `RunFailed`, which the sandbox
sends as a not-graded outcome. When the budget is spent
the ledger calls back from the snippet's own loop; the measurements are taken there and
handed to `finish`, which never returns, so no exception has to travel through the snippet's
code (where an `except BaseException:` could swallow it).
"""

from __future__ import annotations

import random
import resource
import sys
import time
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import NoReturn, Protocol, cast

import torch

from checkers import policy
from checkers.measure import ranked, warnings_shown
from checkers.measure.fingerprint import fingerprint
from checkers.measure.instrument import TICK, instrument
from checkers.measure.ledger import TOKEN, UNSET, GraphNode, Ledger, Scan
from checkers.measure.memory import memory_reader
from checkers.measure.retained import Found, frame_roots, graph_holders, saved_tensors
from checkers.measurements import GradePayload, Measurements, RunFailed, Series, Summary

CPU_MARGIN_S = 5.0
"""CPU time kept back from the run's CPU limit for the final scan and the result."""
MAX_HOLDERS = 200
"""Holders summarised per scan at most (a list of 10,000 losses needs no more)."""
MAX_SUMMARY_NODES = 300_000
"""Graph nodes one scan walks at most, over all its holders."""
SERIES_BUCKETS = 1024
CURVE_POINTS = 2000

Finish = Callable[[Measurements], NoReturn]


class Positions(Protocol):
    """A series read by position: a list, or one of the ledger's `OffHeap` arrays (which,
    unlike a list, takes no negative index)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> int: ...


MEMORY_MESSAGES = ("can't allocate memory", "not enough memory", "out of memory")
MEMORY_KINDS = ("MemoryError", "OutOfMemoryError")

WARM_SNIPPET = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)
    def forward(self, x):
        return F.relu(self.fc(x))
net = Net()
opt = optim.SGD(net.parameters(), lr=0.1)
total = 0.0
for step in range(2):
    loss = net(torch.randn(3, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
"""
"""Run through the policy once so its proxies and RestrictedPython's transformer are warm."""


def warm() -> None:
    """What the sandbox's warm worker runs once after loading this job, for every run to
    inherit: the paths every training loop takes (optimizers, double backward, the policy on
    a small snippet)."""
    for optimizer in (torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD):
        first = torch.nn.Linear(4, 8)
        model = torch.nn.Sequential(first, torch.nn.ReLU(), torch.nn.Linear(8, 1))
        opt = optimizer(model.parameters(), lr=1e-3)
        loss = model(torch.randn(2, 4)).pow(2).mean()
        (grad,) = torch.autograd.grad(loss, [first.weight], create_graph=True)
        torch.autograd.backward(grad.sum())
        opt.step()
        opt.zero_grad()
    warm_up = policy.compile_candidate(WARM_SNIPPET, "<warm-up>")
    namespace = policy.candidate_namespace(warm_up)
    policy.run_candidate(warm_up, namespace)
    policy.finish(namespace)


def grade_job(payload: GradePayload, finish: Finish) -> Measurements:
    """Grade `payload["source"]` in this (sandboxed) process; see the module docstring."""
    warnings_shown.install()
    try:
        return _graded(payload, finish)
    except (policy.Refused, policy.CandidateError) as exc:
        raise run_failed(exc) from None


def run_failed(exc: policy.Refused | policy.CandidateError) -> RunFailed:
    """How a snippet that was refused or raised ends its run: the candidate's line and own
    traceback, and a memory error of theirs as the run's memory limit."""
    if isinstance(exc, policy.Refused):
        return RunFailed("refused", "refused", exc.message, exc.line)
    if exc.kind in MEMORY_KINDS or any(m in exc.message.lower() for m in MEMORY_MESSAGES):
        return RunFailed("limit", "memory", "the snippet ran out of its memory limit", exc.line)
    return RunFailed("error", exc.kind, exc.message, exc.line, exc.traceback)


def _graded(payload: GradePayload, finish: Finish) -> Measurements:
    filename = payload.get("filename") or "<snippet>"
    device = resolve_device(payload.get("device", "auto"))
    compiling = time.monotonic()
    code = policy.compile_candidate(payload["source"], filename, transform=instrument)
    started = time.monotonic()
    compile_s = started - compiling
    seconds = float(payload["seconds"])
    compare = [str(name) for name in payload.get("compare") or ()]
    rank = ranked_rank(payload, device)
    talk = ranked.communication(payload)

    def stop(reason: str) -> NoReturn:
        try:
            with policy.measuring():
                result = measure(
                    ledger,
                    frame_roots(candidate_frames()),
                    namespace,
                    compare,
                    reason,
                    started,
                    filename,
                    device=device,
                    compile_s=compile_s,
                )
        except (Exception, policy.Measuring) as exc:  # where the snippet stood, measuring failed
            result = unmeasured(ledger, f"{type(exc).__name__} while measuring", started, device)
        result["sandbox_notes"] = policy.notes(namespace)
        if talk is not None and rank is not None:
            result["ranked"] = talk.report(rank.rank, rank.world, policy.ended_at())
        finish(result)

    ledger = Ledger(
        filename,
        memory_reader(device),
        deadline=started + seconds,
        cpu_deadline=cpu_allowance(),
        steps_cap=payload.get("steps"),
        track_peak=bool(payload.get("peak")),
        on_stop=stop,
        on_scan=lambda: measured_scan(ledger, filename),
    )
    namespace = policy.candidate_namespace(
        code,
        {TICK: ledger.tick},
        print_limit=payload.get("print_limit", policy.PRINT_LIMIT),
        rank=rank,
    )
    seed_everything(int(payload.get("seed") or 0))
    if device == "cuda":
        torch.set_default_device("cuda")
    with ledger.watching():
        policy.run_candidate(code, namespace)
    with policy.measuring():
        result = measure(
            ledger,
            namespace,
            namespace,
            compare,
            "end",
            started,
            filename,
            device=device,
            compile_s=compile_s,
        )
    result["sandbox_notes"] = policy.notes(namespace)
    if talk is not None and rank is not None:
        talk.counting = False  # what grill itself does from here on is not the snippet's
        result["ranked"] = talk.report(rank.rank, rank.world, policy.ended_at())
    return result


def ranked_rank(payload: GradePayload, device: str) -> policy.Ranked | None:
    """The rank this run is, for a ranked run."""
    rank, world = payload.get("rank"), payload.get("world")
    if rank is None or world is None:
        return None
    return policy.Ranked(int(rank), int(world), device)


def measured_scan(ledger: Ledger, filename: str) -> Scan:
    """The ledger's periodic scan, from the snippet's own loop: snippet code that runs while
    it does (a finalizer) acts on nothing."""
    with policy.measuring():
        return scan(ledger, frame_roots(candidate_frames()), filename)


def cpu_allowance() -> float | None:
    """CPU seconds the snippet may use before the budget stops it, under the run's limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == resource.RLIM_INFINITY:
        return None
    return soft - min(CPU_MARGIN_S, soft / 4)


def measure(
    ledger: Ledger,
    roots: Mapping[str, object],
    namespace: Mapping[str, object],
    compare: Sequence[str],
    stopped_by: str,
    started: float,
    filename: str,
    *,
    device: str,
    compile_s: float = 0.0,
) -> Measurements:
    """Everything the parent judges, as JSON: the final scan, the series, the counts, the
    compared values. Runs once, at the end of the run or where the budget stopped it."""
    measuring = time.monotonic()
    with ledger.paused():
        final = scan(ledger, roots, filename, saved=True)
        ledger.scans.append(final)
        ledger.close_lives()
        values = {name: fingerprint(namespace.get(name, _MISSING)) for name in compare}
        dead, released = ledger.dead_weight()
    steps, loops = ledger.step_at.values(), ledger.loop_at.values()
    memory = (
        ledger.memory_by_step.values()
        if ledger.optimizer_steps
        else ledger.memory_by_backward.values()
    )
    return {
        "device": device,
        "stopped_by": stopped_by,
        "seconds": round(time.monotonic() - started, 3),
        "training": {
            "optimizer_steps": ledger.optimizer_steps,
            "updates": ledger.updates,
            "backward_calls": ledger.backward_calls,
            "graph_nodes": ledger.nodes_created,
            "reused_nodes": ledger.reused_nodes,
            "higher_order": ledger.higher_order,
            "walk_truncated": ledger.walk_truncated,
        },
        "dead_weight": bucketed(dead, steps, loops, released),
        "reach": bucketed(ledger.reach.values()[1:], None, None),
        "memory": thin(memory),
        "reserved": thin(ledger.reserved_by_step.values()) if ledger.optimizer_steps else [],
        "peak_bytes": max(ledger.peak - ledger.base, 0),
        "scans": [
            {
                "generation": s.generation,
                "step": _at(steps, s.generation),
                "holders": s.holders,
                "capped": s.capped,
            }
            for s in ledger.scans[-8:]
        ],
        "values": values,
        "problem": ledger.problem,
        "unwatched_nodes": final.unwatched,
        "timings": {
            "compile": round(compile_s, 3),
            "run": round(measuring - started, 3),
            "measure": round(time.monotonic() - measuring, 3),
        },
    }


def unmeasured(ledger: Ledger, why: str, started: float, device: str) -> Measurements:
    """Measurements that say the run could not be measured: never graded, never clean."""
    empty = bucketed([], None, None)
    return {
        "device": device,
        "stopped_by": "budget",
        "seconds": round(time.monotonic() - started, 3),
        "training": {
            "optimizer_steps": ledger.optimizer_steps,
            "updates": ledger.updates,
            "backward_calls": ledger.backward_calls,
            "graph_nodes": ledger.nodes_created,
            "reused_nodes": 0,
            "higher_order": False,
            "walk_truncated": False,
        },
        "dead_weight": empty,
        "reach": empty,
        "memory": [],
        "reserved": [],
        "peak_bytes": 0,
        "scans": [],
        "values": {},
        "unwatched_nodes": 0,
        "problem": f"the run could not be measured at its end ({why})",
    }


def scan(ledger: Ledger, roots: Mapping[str, object], filename: str, saved: bool = False) -> Scan:
    """What holds live graph now, each holder summarised from its nodes' lives. `saved`: also
    measure the tensors the nodes saved for backward, which only the final scan does: reading
    a saved tensor runs its unpack hook, and under activation checkpointing that recomputes a
    block's forward, which must not happen in the middle of the snippet's step."""
    found = Scan(ledger.generation)
    budget = MAX_SUMMARY_NODES
    summaries: dict[int, Summary] = {}
    # What grill's walk reads is not the snippet's doing: no warning of torch's (FSDP's
    # parameters warn on `.grad`) may show as the snippet's.
    with ledger.paused(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for holder in graph_holders(roots, filename):
            if len(found.holders) >= MAX_HOLDERS or budget <= 0:
                found.capped = True
                break
            summary = summaries.get(id(holder.holder))
            if summary is None:
                summary, walked = summarize(holder, budget, ledger.step_at, saved)
                summaries[id(holder.holder)] = summary
                budget -= walked
                found.unwatched += summary.pop("unwatched")
            found.holders.append(
                {"path": holder.path, "stored": first_path(ledger, holder), **summary}
            )
    return found


def first_path(ledger: Ledger, found: Found) -> str:
    """The path a holder was first seen under (`losses[3]` inside `train`, though it ends up
    as `history[3]` once `train` returns it): where it was stored."""
    if not isinstance(found.holder, torch.Tensor):
        return found.path
    seen = ledger.first_paths.get(id(found.holder))
    if seen is not None and seen[0]() is found.holder:
        return seen[1]
    ledger.first_paths[id(found.holder)] = (weakref.ref(found.holder), found.path)
    return found.path


def summarize(
    found: Found, budget: int, step_at: Positions, saved: bool = True
) -> tuple[Summary, int]:
    """One holder: its graph's size and saved bytes, the generations (and optimizer steps) its
    nodes carry, whether a backward pass ever ran through it, and what the tensor is (a
    scalar, a view of a larger one)."""
    root = cast(GraphNode, found.root)  # a holder has a graph node: that is what it was found for
    seen: dict[int, object] = {}
    stack: list[GraphNode | None] = [root]
    storages: dict[int, int] = {}
    keys: set[int] = set()
    passes: set[int] = set()
    unwatched = 0
    while stack and len(seen) < budget:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        if type(node).__name__ == "AccumulateGrad":
            continue
        token = node.metadata.get(TOKEN)
        if token is None:
            unwatched += 1
        else:
            keys.add(token.life.key)
            if token.life.first_use != UNSET:
                passes.add(token.life.first_use)
        for kept in saved_tensors(node) if saved else ():
            storages[kept.data_ptr()] = kept.untyped_storage().nbytes()
        stack.extend(child for child, _ in node.next_functions)
    token = root.metadata.get(TOKEN)
    holder = found.holder
    tensor = holder if isinstance(holder, torch.Tensor) else None
    return {
        "grad_fn": type(root).__name__,
        "nodes": len(seen),
        "saved_bytes": sum(storages.values()),
        "line": token.life.line if token is not None else None,
        "keys": [min(keys), max(keys)] if keys else None,
        "generations": len(keys),
        "steps": len({_at(step_at, key) for key in keys}),
        "used": bool(passes),
        "passes": len(passes),
        "root_used": token is not None and token.life.first_use != UNSET,
        "numel": tensor.numel() if tensor is not None else None,
        "view": tensor is not None and tensor._base is not None,
        "node_only": tensor is None,
        "unwatched": unwatched,
    }, len(seen)


def candidate_frames() -> list[FrameType]:
    """The snippet's frames on the current stack, innermost first."""
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if policy.is_namespace(frame.f_globals):
            frames.append(frame)
        frame = frame.f_back
    return frames


def bucketed(
    series: Sequence[int],
    steps: Sequence[int] | None,
    loops: Sequence[int] | None,
    released: Sequence[int] = (),
) -> Series:
    """At most SERIES_BUCKETS buckets, each with its lowest and highest value (so peaks and
    returns to the floor both survive), how many kept generations it let go, and where it lies
    in the run."""
    count = len(series)
    width = max(1, -(-count // SERIES_BUCKETS))
    out: Series = {
        "lows": [],
        "highs": [],
        "first": [],
        "steps": [],
        "loops": [],
        "releases": [],
        "width": width,
    }
    for start in range(0, count, width):
        part = series[start : start + width]
        out["lows"].append(min(part))
        out["highs"].append(max(part))
        out["first"].append(start)
        if released:
            out["releases"].append(sum(released[start : start + width]))
        if steps is not None:
            out["steps"].append(_at(steps, start))
        if loops is not None:
            out["loops"].append(_at(loops, start))
    return out


def thin(series: Sequence[int]) -> list[int]:
    """At most CURVE_POINTS samples, evenly spread, the last one kept."""
    if len(series) <= CURVE_POINTS:
        return list(series)
    stride = len(series) / CURVE_POINTS
    return [series[int(i * stride)] for i in range(CURVE_POINTS - 1)] + [series[-1]]


def _at(series: Positions, index: int) -> int:
    return series[index] if 0 <= index < len(series) else (series[-1] if series else 0)


def seed_everything(seed: int) -> None:
    """The same data and initial weights for a fix and the reference solution."""
    random.seed(seed)
    torch.manual_seed(seed)


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda was asked for, but no CUDA device is available")
    return device


class _Missing:
    """A compared name the snippet never defined."""


_MISSING = _Missing()
