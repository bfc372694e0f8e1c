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

import ast
import bisect
import gc
import random
import resource
import sys
import time
import types
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import NoReturn, Protocol, cast

import torch

from checkers import policy
from checkers.measure import carried, ranked, storage, warnings_shown
from checkers.measure.alive import alive_bytes
from checkers.measure.fingerprint import fingerprint
from checkers.measure.instrument import EACH, ENTER, LEAVE, LOOP, TICK, instrument
from checkers.measure.ledger import (
    ALIVE,
    HELD_SHARE,
    LEAF,
    MIN_HELD,
    MIN_PASS,
    TOKEN,
    UNSET,
    GraphNode,
    Ledger,
    Scan,
)
from checkers.measure.memory import OffHeap, memory_reader
from checkers.measure.retained import Found, HolderScan, frame_roots, saved_tensors
from checkers.measurements import (
    GradePayload,
    HeldPass,
    Measurements,
    RunFailed,
    Series,
    Summary,
)

CPU_MARGIN_S = 5.0
"""CPU time kept back from the run's CPU limit for the final scan and the result."""
MAX_HOLDERS = 200
"""Holders summarised per scan at most (a list of 10,000 losses needs no more)."""
MAX_SUMMARY_NODES = 300_000
"""Graph nodes one scan walks at most, over all its holders."""
MAX_LOOPS = 16
"""Loops whose held passes the parent is told about at most."""
FED_DEPTH = 4
"""Wrappers looked through for the generators a loop draws from: zip(enumerate(gen()), ...)."""
MAX_ITERABLE_TEXT = 40
"""The longest loop iterable named by its text (`for x in Stream(60)`)."""
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
    found: list[carried.Carried] = []
    try:
        return _graded(payload, finish, found.append)
    except (policy.Refused, policy.CandidateError) as exc:
        failed = run_failed(exc)
        if found and failed.status == "error":
            failed.message = carried.explained(failed.message, payload["source"], found[-1])
        raise failed from None


def run_failed(exc: policy.Refused | policy.CandidateError) -> RunFailed:
    """How a snippet that was refused or raised ends its run: the candidate's line and own
    traceback, and a memory error of theirs as the run's memory limit."""
    if isinstance(exc, policy.Refused):
        return RunFailed("refused", "refused", exc.message, exc.line)
    if exc.kind in MEMORY_KINDS or any(m in exc.message.lower() for m in MEMORY_MESSAGES):
        return RunFailed("limit", "memory", "the snippet ran out of its memory limit", exc.line)
    return RunFailed("error", exc.kind, exc.message, exc.line, exc.traceback)


def _graded(
    payload: GradePayload, finish: Finish, on_carried: Callable[[carried.Carried], None]
) -> Measurements:
    filename = payload.get("filename") or "<snippet>"
    device = resolve_device(payload.get("device", "auto"))
    compiling = time.monotonic()
    code = policy.compile_candidate(payload["source"], filename, transform=instrument)
    iterated = loop_iterables(payload["source"])
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
                    snippet_roots(ledger, iterated),
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
        on_scan=lambda: measured_scan(ledger, filename, iterated),
        on_carried=lambda node, born: on_carried(
            carried.found(
                carried.holders(node, snippet_roots(ledger, iterated)),
                _at(ledger.step_at.values(), born),
            )
        ),
    )
    hooks = {
        TICK: ledger.tick,
        LOOP: ledger.loop,
        EACH: ledger.each,
        ENTER: ledger.enter,
        LEAVE: ledger.leave,
    }
    namespace = policy.candidate_namespace(
        code,
        hooks,
        print_limit=payload.get("print_limit", policy.PRINT_LIMIT),
        rank=rank,
        script=payload["source"] if payload.get("own_file") else None,
    )
    seed_everything(int(payload.get("seed") or 0))
    gc.freeze()  # what exists now is grill's and torch's: the final sweep looks at the run's only
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


def measured_scan(ledger: Ledger, filename: str, iterated: Mapping[int, str]) -> Scan:
    """The ledger's periodic scan, from the snippet's own loop: snippet code that runs while
    it does (a finalizer) acts on nothing."""
    with policy.measuring():
        return scan(ledger, snippet_roots(ledger, iterated), filename)


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
    ledger.stop_peak()
    with ledger.paused():
        final = scan(ledger, roots, filename, saved=True)
        final.reason = "end"
        ledger.scans.append(final)
        ledger.close_lives()
        values = {name: fingerprint(namespace.get(name, _MISSING)) for name in compare}
        dead, released = ledger.dead_weight()
        held = held_passes(ledger)
        scans = chosen_scans(ledger.scans)
        settle(scans)
    steps, loops = ledger.step_at.values(), ledger.loop_at.values()
    memory = (
        ledger.memory_by_step.values()
        if ledger.optimizer_steps
        else ledger.memory_by_backward.values()
    )
    measured: Measurements = {
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
            "per_update": ledger.per_update.report(),
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
                "unread": s.unread,
                "reason": s.reason,
                "loop": s.loop,
                "first": s.first,
                "last": s.last,
            }
            for s in scans
        ],
        "held_passes": [
            {
                **entry,
                "step_first": _at(steps, entry["first"]),
                "step_last": _at(steps, entry["last"]),
            }
            for entry in held
        ],
        "values": values,
        "problem": ledger.problem,
        "unwatched_nodes": ledger.adopted,
        "timings": {
            "compile": round(compile_s, 3),
            "run": round(measuring - started, 3),
            "measure": round(time.monotonic() - measuring, 3),
        },
    }
    with ledger.paused():  # last: its collection must not change what was measured above
        measured["alive_bytes"] = alive_bytes()
    return measured


def held_passes(ledger: Ledger) -> list[HeldPass]:
    """Per loop whose passes were held whole, and by which series: `dead_weight` when, from a
    pass's first iterations to its last, nearly every iteration's graph was still alive past
    its last use as the pass ended; `reach` when the pass's last backward ran back through
    nearly every earlier backward of the same pass, from one that reached back through
    nothing (a state carried, under retain_graph, from the pass's start). How many of its
    passes were, of how many long enough to tell, and its longest such pass. Read after
    `close_lives`, from each generation's final key and death."""
    deaths = ledger.last_death
    backward_at = ledger.backward_at.values()[1:]  # backward pass i + 1 ran in generation [i]
    reach = ledger.reach.values()[1:]
    starts: dict[int, list[int]] = {}
    for index, generation in zip(
        ledger.start_pass.values(), ledger.start_generation.values(), strict=True
    ):
        starts.setdefault(index, []).append(generation)
    found: dict[tuple[str, int], HeldPass] = {}
    for index in range(ledger.passes):
        first, last = ledger.pass_first[index], ledger.pass_last[index]
        if first == UNSET or last - first + 1 < MIN_PASS:
            continue
        line, parent = ledger.pass_line[index], ledger.pass_parent[index]
        pass_starts = starts.get(index, [first])
        held = iterations_held(deaths, pass_starts, last)
        enough = len(held) >= max(MIN_HELD, HELD_SHARE * (len(starts.get(index, [])) - 1))
        enough = enough and not ledger.recurrent(index)  # layers, timesteps: bounded
        end = ledger.pass_end[index] if ledger.pass_end[index] != UNSET else ledger.generation
        lo, hi = bisect.bisect_left(backward_at, first), bisect.bisect_right(backward_at, end)
        # over data: batches trained on, or tensors drawn from a collection; ten dropout
        # samples of one batch, or one forward per class, repeat work the code counts
        trained = iterations_trained(backward_at[lo:hi], pass_starts)
        enough = enough and (trained >= MIN_HELD or bool(ledger.pass_data.get(index)))
        iterations = ledger.pass_ticks.get(index)
        _tally(
            found,
            "dead_weight",
            (line, parent, first, last, iterations),
            len(held) if enough else 0,
            min(held, default=ALIVE) < ALIVE,
        )
        if hi - lo >= MIN_PASS:
            start, end = reach[lo], reach[hi - 1]
            climbed = end - start
            steady = sum(
                1 for i in range(hi - lo) if reach[lo + i] - start >= HELD_SHARE * i
            )  # each backward reaches about one further than the one before
            enough = (
                start <= 1
                and climbed >= max(MIN_HELD, HELD_SHARE * (hi - lo - 1))
                and steady >= HELD_SHARE * (hi - lo)
            )
            cut = hi >= len(reach) or reach[hi] <= 1
            _tally(
                found,
                "reach",
                (line, parent, first, last, iterations),
                climbed if enough else 0,
                cut,
            )
    return sorted(
        (entry for entry in found.values() if entry["held_passes"]),
        key=lambda entry: -entry["held"],
    )[:MAX_LOOPS]


def iterations_trained(backward: Sequence[int], starts: Sequence[int]) -> int:
    """How many iterations of a pass (the generations from one start to the next) ran a
    backward pass (`backward`: their generations): batches trained on. An update that runs
    several backward passes inside one iteration (PPO's epochs over its rollout buffer,
    every N environment steps) trained on one; it does not make the loop's steps batches."""
    return len({bisect.bisect_right(starts, generation) for generation in backward})


def iterations_held(deaths: OffHeap, starts: Sequence[int], last: int) -> list[int]:
    """For each iteration of a pass but its last (the generations from one start to the
    next), whose graph was still alive past its last use when the pass ended (`last`): the
    generation its graph was first let go in (ALIVE: never)."""
    held = []
    for begin, end in zip(starts, starts[1:], strict=False):
        let_go = [deaths.get(k) for k in range(begin, min(end, last - 1)) if deaths.get(k) >= last]
        if let_go:
            held.append(min(let_go))
    return held


def _tally(
    found: dict[tuple[str, int], HeldPass],
    series: str,
    where: tuple[int, int, int, int, int],
    held: int,
    released: bool,
) -> None:
    """Count one pass of a loop (`where`: its line, its enclosing loop's, its first and last
    generations, its iterations), held or not; keep the most held one as the example."""
    line, parent, first, last, iterations = where
    entry = found.get((series, line))
    if entry is None:
        entry = found[(series, line)] = {
            "series": series,
            "loop": line,
            "parent": parent,
            "passes": 0,
            "held_passes": 0,
            "first": 0,
            "last": 0,
            "iterations": 0,
            "held": 0,
            "released": False,
        }
    entry["passes"] += 1
    if not held:
        return
    entry["held_passes"] += 1
    if held > entry["held"]:
        entry["first"], entry["last"], entry["held"] = first, last, held
        entry["iterations"], entry["released"] = iterations, released


def chosen_scans(scans: Sequence[Scan]) -> list[Scan]:
    """The scans the parent gets: every loop's first and latest scan at the end of a held
    pass, and the latest others (the final one among them), in the order they ran."""
    kept: dict[int, Scan] = {}
    by_loop: dict[int, list[Scan]] = {}
    for found in scans:
        if found.reason == "pass":
            by_loop.setdefault(found.loop, []).append(found)
    for loop_scans in list(by_loop.values())[:MAX_LOOPS]:
        for found in (loop_scans[0], loop_scans[-1]):
            kept[id(found)] = found
    for found in [s for s in scans if s.reason != "pass"][-8:]:
        kept[id(found)] = found
    return [found for found in scans if id(found) in kept]


def settle(scans: Sequence[Scan]) -> None:
    """What became of each holder a scan found, known only at the end: whether a backward
    pass ran through its graph after the scan (then it was waiting for that pass, not dead
    weight), and the generation its root node died in (None: alive at the end)."""
    for found in scans:
        for holder, (root, oldest) in zip(found.holders, found.lives, strict=False):
            holder["used_after"] = any(
                life is not None and life.key > found.generation for life in (root, oldest)
            )
            holder["died"] = root.died if root is not None and root.died != UNSET else None


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
        "alive_bytes": 0,
        "scans": [],
        "held_passes": [],
        "values": {},
        "unwatched_nodes": 0,
        "problem": f"the run could not be measured at its end ({why})",
    }


def scan(
    ledger: Ledger,
    roots: Mapping[str, object],
    filename: str,
    saved: bool = False,
    sweep: bool | None = None,
) -> Scan:
    """What holds live graph now, each holder summarised from its nodes' lives. Graph found
    that grill did not see being made is adopted (stamped, its birth estimated), so it counts
    from now on like any other; `sweep` (by default: at the end, or once such graph was found)
    also adopts what the garbage collector sees that no name reaches. `saved`: also measure
    the tensors the nodes saved for backward, which only the final scan does, and only where
    no saved-tensors hook packed them: reading one runs its unpack hook (under activation
    checkpointing, a block's forward), which must not happen while grill measures."""
    found = Scan(ledger.generation)
    budget = MAX_SUMMARY_NODES
    summaries: dict[int, tuple[Summary, tuple[object, object]]] = {}
    # What grill's walk reads is not the snippet's doing: no warning of torch's (FSDP's
    # parameters warn on `.grad`) may show as the snippet's.
    with ledger.paused(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        walk = HolderScan(roots, filename)
        holders = walk.walk()
        found.unread = walk.unread
        found.capped = walk.capped
        counts: dict[str, int] = {}
        for holder in holders:
            container = container_path(holder.steps)
            counts[container] = counts.get(container, 0) + 1
        for holder in holders:
            if len(found.holders) >= MAX_HOLDERS or budget <= 0:
                found.capped = True
                break
            known = summaries.get(id(holder.holder))
            if known is None:
                summary, walked, lives = summarize(holder, budget, ledger, saved)
                known = summaries[id(holder.holder)] = (summary, lives)
                budget -= walked
                found.unwatched += summary.get("unwatched", 0)
            summary, lives = known
            found.holders.append(
                {
                    "path": holder.path,
                    "stored": first_path(ledger, holder),
                    **summary,  # type: ignore[typeddict-item]
                    "parts": list(holder.steps),
                    "kinds": list(holder.kinds),
                    "in_container": counts.get(container_path(holder.steps), 1),
                }
            )
            found.lives.append(lives)  # type: ignore[arg-type]
        if sweep if sweep is not None else (saved or ledger.adopted > 0):
            found.unwatched += ledger.sweep()
    return found


def container_path(steps: Sequence[str]) -> str:
    """The path up to a holder's first position in a container (`records` for
    `records[3]['loss']`): what a count of holders is per."""
    for index, step in enumerate(steps):
        if index and (step.startswith("[") or step == "{...}"):
            return "".join(steps[:index])
    return "".join(steps)


def first_path(ledger: Ledger, found: Found) -> str:
    """The path a holder was first seen under (`losses[3]` inside `train`, though it ends up
    as `history[3]` once `train` returns it): where it was stored."""
    if not storage.is_a(found.holder, torch.Tensor):
        return found.path
    seen = ledger.first_paths.get(id(found.holder))
    contained = _in_container(found.steps)
    if seen is not None and seen[0]() is found.holder:
        if contained and not seen[2]:
            # first seen as a bare name (`policy_loss`), stored since: where it was stored is
            # the container's line, not the name's
            ledger.first_paths[id(found.holder)] = (seen[0], found.path, True)
            return found.path
        return seen[1]
    tensor = cast(torch.Tensor, found.holder)
    ledger.first_paths[id(found.holder)] = (weakref.ref(tensor), found.path, contained)
    return found.path


def _in_container(steps: Sequence[str]) -> bool:
    return any(
        index and (step.startswith("[") or step == "{...}") for index, step in enumerate(steps)
    )


def summarize(
    found: Found, budget: int, ledger: Ledger, saved: bool = True
) -> tuple[Summary, int, tuple[object, object]]:
    """One holder: its graph's size and saved bytes, the generations (and optimizer steps) its
    nodes carry, whether a backward pass ever ran through it, what the tensor is (a scalar, a
    view of a larger one), how many of its nodes grill had not seen being made (adopted now),
    and the records of its root and its oldest node, for what became of them."""
    root = cast(GraphNode, found.root)  # a holder has a graph node: that is what it was found for
    unwatched = ledger.adopt(root)
    seen: dict[int, object] = {}
    stack: list[GraphNode | None] = [root]
    storages: dict[int, int] = {}
    keys: set[int] = set()
    passes: set[int] = set()
    oldest = None
    while stack and len(seen) < budget:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        if type(node) is LEAF:
            continue
        token = node.metadata.get(TOKEN)
        if token is None:
            unwatched += 1
        else:
            life = token.life
            keys.add(life.key)
            if oldest is None or life.key < oldest.key:
                oldest = life
            if life.first_use != UNSET:
                passes.add(life.first_use)
            if saved and not life.hooked:
                for kept in saved_tensors(node):
                    storages[torch._C.TensorBase.data_ptr(kept)] = storage_bytes(kept)
        for child, _ in node.next_functions:
            stack.append(child)
    token = root.metadata.get(TOKEN)
    holder = found.holder
    tensor = cast(torch.Tensor, holder) if storage.is_a(holder, torch.Tensor) else None
    step_at = ledger.step_at
    return (
        {
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
            "numel": storage.numel(tensor) if tensor is not None else None,
            "view": tensor is not None and storage.base(tensor) is not None,
            "node_only": tensor is None,
            "unwatched": unwatched,
        },
        len(seen),
        (token.life if token is not None else None, oldest),
    )


def storage_bytes(tensor: torch.Tensor) -> int:
    return int(torch._C.TensorBase.untyped_storage(tensor).nbytes())


def snippet_roots(ledger: Ledger, iterated: Mapping[int, str]) -> dict[str, object]:
    """What a scan starts from: the names the snippet's running frames see, then what its
    open loops iterate over where no name holds it: the locals of the snippet's generators
    suspended there (`for step, x in zip(range(n), batches())`), and an iterator object
    made in the `for` statement itself, named by its text (`for x in Stream(60)`). Both
    live as long as the loop does. A running frame's name wins over theirs."""
    roots = frame_roots(candidate_frames())
    suspended: list[FrameType] = []
    unnamed: dict[str, object] = {}
    for index, (iterable, statement) in list(ledger.feeding.items()):
        frames, iterators = drawn_from(iterable)
        suspended.extend(frame for frame in frames if policy.is_namespace(frame.f_globals))
        text = iterated.get(ledger.pass_line[index]) if statement else None
        if text is not None and len(iterators) == 1:
            unnamed.setdefault(text, iterators[0])
    for name, value in [*frame_roots(suspended).items(), *unnamed.items()]:
        roots.setdefault(name, value)
    return roots


def loop_iterables(source: str) -> dict[int, str]:
    """The text of what each `for` statement iterates over, by the statement's line, where it
    is short and on one line (`Stream(60)`): the name of an iterator no variable holds."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # compiled already: never here
        return {}
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            text = ast.get_source_segment(source, node.iter)
            if text and "\n" not in text and len(text) <= MAX_ITERABLE_TEXT:
                found.setdefault(node.lineno, text)
    return found


def candidate_frames() -> list[FrameType]:
    """The snippet's frames on the current stack, innermost first."""
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if policy.is_namespace(frame.f_globals):
            frames.append(frame)
        frame = frame.f_back
    return frames


def drawn_from(iterable: object) -> tuple[list[FrameType], list[object]]:
    """What a loop over `iterable` draws its items from: the suspended frames of generators,
    and iterator objects of classes (one with its own `__next__`), found as `iterable`
    itself or inside the builtin iterators that wrap them (zip, enumerate, map, itertools',
    the policy's guard), a few wrappers deep. Only Python's own objects are looked into
    (gc's referents, class namespaces: nothing of the snippet runs)."""
    frames: list[FrameType] = []
    iterators: list[object] = []
    todo, seen = [(iterable, 0)], set()
    while todo:
        value, depth = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        cls = type(value)
        if cls is types.GeneratorType:
            if value.gi_frame is not None and not value.gi_running:  # type: ignore[attr-defined]
                frames.append(value.gi_frame)  # type: ignore[attr-defined]
        elif storage.is_heap_type(cls):
            if _defines_next(cls):
                iterators.append(value)
        elif depth < FED_DEPTH and (_defines_next(cls) or (depth and cls is tuple)):
            todo.extend((part, depth + 1) for part in gc.get_referents(value))
    return frames, iterators


def _defines_next(cls: type) -> bool:
    """Whether `cls` is an iterator class (a `__next__` in its real MRO's namespaces)."""
    return any(
        name == "__next__" for klass in storage.mro(cls) for name, _ in storage.namespace(klass)
    )


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
