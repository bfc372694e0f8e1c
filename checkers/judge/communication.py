"""A ranked task's contract, per rank: the single-run contract held on every rank against the
same rank of the reference solution, and what the ranks sent each other (`Communication`).

Pure data in, expectations out, no torch: each rank's measurements (`checkers.measure.ranked`)
say how many collectives it made per optimizer update and how many bytes, and summarise the
gradients it stepped on and the parameters it ended with.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from checkers.judge.contract import Observed, check
from checkers.judge.ranks import spans
from checkers.judge.rates import within
from checkers.measurements import RankedMeasurements, format_bytes
from checkers.verdict import Expectation

if TYPE_CHECKING:
    from checkers.task import Contract

SYNC_RTOL = 1e-6
"""Ranks that all-reduce their gradients step on the same bits; this only forgives printing."""
AVERAGED_RTOL = 1e-3
BYTES_SLACK = 0.10


def check_ranks(
    contract: Contract,
    fixes: Sequence[Observed],
    solutions: Sequence[Observed],
    starters: Sequence[Observed] | None = None,
) -> tuple[Expectation, ...]:
    """Every promise, on every rank: one expectation each, met when every rank keeps it,
    its message naming the ranks that do not."""
    per_rank = [
        check(contract, fix, solutions[rank], starters[rank] if starters else None)
        for rank, fix in enumerate(fixes)
    ]
    merged = [_merged(found) for found in zip(*per_rank, strict=True)]
    comm = contract.communication
    if comm is not None and all(fix.complete for fix in fixes):
        if comm.in_sync:
            merged.append(in_sync(fixes))
        if comm.per_update is not None:
            merged.append(per_update(comm.per_update, fixes, solutions))
        if comm.bytes_per_update is not None:
            merged.append(bytes_per_update(comm.bytes_per_update, fixes, solutions))
        if comm.averaged:
            merged.append(averaged(fixes, solutions))
    return tuple(merged)


def _merged(found: Sequence[Expectation]) -> Expectation:
    broken = [rank for rank, e in enumerate(found) if not e.met]
    if not broken:
        return found[0]
    first = found[broken[0]]
    who = spans(broken) if len(found) > 1 else ""
    prefix = f"{who[0].upper()}{who[1:]}: " if who else ""
    return Expectation(first.what, False, prefix + first.message)


def _ranked(observed: Observed) -> RankedMeasurements | None:
    return observed.ranked


def in_sync(fixes: Sequence[Observed]) -> Expectation:
    """Every rank stepped on rank 0's gradients, update by update, and ended with its
    parameters."""
    what = "in_sync"
    first = _ranked(fixes[0])
    if first is None:
        return Expectation(
            what, False, "The fix was not run as ranks, so its ranks cannot be compared."
        )
    for rank, fix in enumerate(fixes[1:], start=1):
        other = _ranked(fix)
        if other is None:
            continue
        if other["updates"] != first["updates"]:
            return Expectation(
                what,
                False,
                f"Rank {rank} makes {other['updates']} optimizer updates, rank 0"
                f" {first['updates']}: the ranks no longer train in step.",
            )
        for update, (mine, theirs) in enumerate(
            zip(first["grads"], other["grads"], strict=False), 1
        ):
            if not _close(mine, theirs, SYNC_RTOL):
                return Expectation(
                    what,
                    False,
                    f"Rank {rank} steps on other gradients than rank 0 at update {update}"
                    f" (their sum {theirs[0]:.6g} against {mine[0]:.6g}): the gradients are not"
                    " all-reduced before that step, so the replicas drift apart.",
                )
        if not _close(first["params"], other["params"], SYNC_RTOL):
            return Expectation(
                what,
                False,
                f"Rank {rank} ends with other parameters than rank 0 (their sum"
                f" {other['params'][0]:.6g} against {first['params'][0]:.6g}): the replicas"
                " did not start from the same weights, or drifted apart.",
            )
    return Expectation(
        what,
        True,
        "Every rank steps on the same gradients at every update, and ends with the same parameters.",
    )


def _rate(observed: Observed, index: int) -> float | None:
    ranked = _ranked(observed)
    if ranked is None or not ranked["per_update"]:
        return None
    values = [window[index] for window in ranked["per_update"]]
    return float(statistics.median(values[1:] or values))


def per_update(rule: str, fixes: Sequence[Observed], solutions: Sequence[Observed]) -> Expectation:
    what = "per_update"
    for rank, (fix, solution) in enumerate(zip(fixes, solutions, strict=True)):
        mine, theirs = _rate(fix, 0), _rate(solution, 0)
        if theirs is None:
            return Expectation(
                what, False, "The solution makes no optimizer update to count collectives by."
            )
        if mine is None:
            return Expectation(
                what,
                False,
                f"Rank {rank} of the fix makes no optimizer update: there is nothing to count"
                " its collectives by.",
            )
        if within(rule, mine, theirs):
            continue
        return Expectation(what, False, _rate_message(rank, mine, theirs, fix, solution, rule))
    rate = _rate(fixes[0], 0)
    return Expectation(
        what,
        True,
        f"{_count(rate)} per optimizer update on every rank, as the solution"
        f" ({_breakdown(fixes[0])}).",
    )


def _rate_message(
    rank: int, mine: float, theirs: float, fix: Observed, solution: Observed, rule: str
) -> str:
    """Why a rank's collectives per update differ from the solution's, told from where they
    were made: inside a backward pass (DDP's gradient buckets, fired by autograd's hooks) or
    by the code itself (a hand-made `all_reduce`)."""
    text = (
        f"Rank {rank} makes {_count(mine)} per optimizer update ({_breakdown(fix)}); the"
        f" solution makes {_count(theirs)}"
    )
    backward = fix.backward_calls / fix.updates if fix.updates else 0
    in_backward, theirs_in_backward = _rate(fix, 2) or 0, _rate(solution, 2) or 0
    buckets = max(theirs_in_backward, 1)
    if backward > 1 and in_backward > theirs_in_backward and in_backward >= backward * buckets:
        return text + (
            f": DDP all-reduces its gradients in every one of the {backward:g} backward passes"
            " of an update (every micro-batch), where the solution accumulates the first ones"
            " locally and synchronises once."
        )
    outside, theirs_outside = mine - in_backward, theirs - theirs_in_backward
    if outside > theirs_outside:
        if theirs_in_backward > 0 and theirs_outside == 0:
            return text + (
                f": {outside:g} of them outside any backward pass, made by the code itself,"
                " where the solution leaves the gradients to DDP's buckets."
            )
        return text + (
            f": {outside:g} of them made by the code itself, outside any backward pass, where"
            f" the solution makes {theirs_outside:g} there."
        )
    if mine > theirs:
        return text + ": it communicates more than the task needs."
    if rule == "same":
        return text + ": it skips communication the task needs."
    return text + "."


def what_changed(fixes: Sequence[Observed], solutions: Sequence[Observed]) -> str | None:
    """How a ranked fix communicates otherwise than the solution, whatever the contract asks:
    a fix whose values differ from the solution's because it dropped (or added) a collective
    hears of that rather than of a seed or data it never touched. None when they match."""
    for rank, (fix, solution) in enumerate(zip(fixes, solutions, strict=True)):
        mine, theirs = _rate(fix, 0), _rate(solution, 0)
        if mine is not None and theirs is not None and mine != theirs:
            return _rate_message(rank, mine, theirs, fix, solution, "same")
    return None


def _count(rate: float | None) -> str:
    if rate is None:
        return "no collectives"
    number = f"{rate:g}"
    return f"{number} collective" + ("" if rate == 1 else "s")


def _breakdown(observed: Observed) -> str:
    ranked = _ranked(observed)
    if ranked is None or not ranked["collectives"]:
        return "none over the run"
    parts = sorted(ranked["collectives"].items(), key=lambda item: -item[1]["calls"])
    return ", ".join(f"{name} ×{found['calls']}" for name, found in parts) + " over the run"


def bytes_per_update(
    rule: str, fixes: Sequence[Observed], solutions: Sequence[Observed]
) -> Expectation:
    what = "bytes_per_update"
    for rank, (fix, solution) in enumerate(zip(fixes, solutions, strict=True)):
        mine, theirs = _rate(fix, 1), _rate(solution, 1)
        if mine is None or theirs is None:
            return Expectation(what, False, f"Rank {rank}: no optimizer update to count bytes by.")
        over = mine > theirs * (1 + BYTES_SLACK)
        under = rule == "same" and mine < theirs * (1 - BYTES_SLACK)
        if over or under:
            return Expectation(
                what,
                False,
                f"Rank {rank} sends {format_bytes(mine)} per optimizer update through its"
                f" collectives; the solution sends {format_bytes(theirs)}.",
            )
    return Expectation(
        what,
        True,
        f"{format_bytes(_rate(fixes[0], 1) or 0)} per optimizer update on every rank, as the solution.",
    )


def averaged(fixes: Sequence[Observed], solutions: Sequence[Observed]) -> Expectation:
    what = "averaged"
    for rank, (fix, solution) in enumerate(zip(fixes, solutions, strict=True)):
        mine, theirs = _ranked(fix), _ranked(solution)
        if mine is None or theirs is None or not mine["grads"] or not theirs["grads"]:
            return Expectation(
                what, False, f"Rank {rank}: no optimizer update to compare gradients at."
            )
        got, want = mine["grads"][0][1], theirs["grads"][0][1]
        if math.isclose(got, want, rel_tol=AVERAGED_RTOL, abs_tol=1e-12):
            continue
        world = mine["world"]
        ratio = math.sqrt(got / want) if want > 0 and got >= 0 else float("nan")
        if world > 1 and math.isclose(ratio, world, rel_tol=0.05):
            return Expectation(
                what,
                False,
                f"Rank {rank}'s gradients at the first update are {world} times the solution's:"
                f" they are summed over the {world} ranks, not averaged (divide by the world size,"
                " or reduce with ReduceOp.AVG).",
            )
        return Expectation(
            what,
            False,
            f"Rank {rank}'s gradients at the first update differ from the solution's (norm"
            f" {math.sqrt(max(got, 0)):.6g} against {math.sqrt(max(want, 0)):.6g}).",
        )
    return Expectation(
        what, True, "The gradients of the first update are the solution's averaged ones."
    )


def _close(a: Sequence[float], b: Sequence[float], rtol: float) -> bool:
    return all(
        math.isclose(x, y, rel_tol=rtol, abs_tol=1e-12) or math.isnan(x) and math.isnan(y)
        for x, y in zip(a, b, strict=True)
    )
