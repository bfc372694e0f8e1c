"""A code task's contract: what a fix must still do, held against the reference solution's run.

Pure data in, expectations out, no torch. A fix that stopped leaking by no longer training, by
training fewer steps, by changing the model or by detaching the loss before backward breaks
at least one promise here, and grades `wrong`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checkers.judge.rates import RATES, per_update, within
from checkers.measurements import Fingerprint, Measurements, RankedMeasurements, format_bytes
from checkers.verdict import Expectation

if TYPE_CHECKING:
    from checkers.task import Compared, Contract


BYTES_SLACK = 0.10
"""A compared value's bytes may exceed the solution's by this share (allocator rounding, an
extra small tensor), never by a copy."""


@dataclass(frozen=True)
class Observed:
    """What one run did, as far as a contract cares."""

    backward_calls: int
    updates: int
    optimizer_steps: int
    values: dict[str, Fingerprint] = field(default_factory=dict)
    """Per compared name, its fingerprint (`checkers.measure.fingerprint`)."""
    peak_bytes: int = 0
    alive_bytes: int = 0
    """Tensor bytes alive at the end of the run, wherever they were kept."""
    complete: bool = True
    """The run reached its end (not stopped by a budget)."""
    ranked: RankedMeasurements | None = None
    """A rank's communication and gradients, for a rank of a ranked run."""
    per_update: dict[str, list[int]] = field(default_factory=dict)
    """Per counted event (host syncs, backward passes), its count in each update's window."""

    @classmethod
    def from_measurements(cls, m: Measurements) -> Observed:
        training = m["training"]
        return cls(
            backward_calls=training["backward_calls"],
            updates=training["updates"],
            optimizer_steps=training["optimizer_steps"],
            values=m.get("values") or {},
            peak_bytes=m.get("peak_bytes", 0),
            alive_bytes=m.get("alive_bytes", 0),
            complete=m.get("stopped_by") == "end",
            ranked=m.get("ranked"),
            per_update=training.get("per_update") or {},
        )


def check(
    contract: Contract, fix: Observed, solution: Observed, starter: Observed | None = None
) -> tuple[Expectation, ...]:
    """Each promise of `contract`, kept or not by `fix` measured against `solution`."""
    found: list[Expectation] = []
    if not fix.complete:
        found.append(
            Expectation(
                "complete",
                False,
                "The run was stopped by its time budget before"
                " it ended, so its results cannot be compared with the solution's.",
            )
        )
        return tuple(found)
    if contract.trains:
        found.append(
            _counted("trains", "backward passes", fix.backward_calls, solution.backward_calls)
        )
        found.append(
            _counted(
                "updates",
                "optimizer updates that had gradients to apply",
                fix.updates,
                solution.updates,
            )
        )
    if contract.per_update is not None:
        for name in RATES:
            rule = getattr(contract.per_update, name)
            if rule is not None:
                found.append(per_update(name, rule, fix.per_update, solution.per_update))
    for compared in contract.same_as_solution:
        found.append(
            _same(compared, fix.values.get(compared.name), solution.values.get(compared.name))
        )
    if contract.peak_memory is not None and starter is not None:
        found.append(_peak(contract.peak_memory, fix.peak_bytes, starter.peak_bytes))
    if contract.alive_bytes is not None:
        found.append(_alive(fix.alive_bytes, solution.alive_bytes))
    return tuple(found)


def avoided_calls(contract: Contract) -> frozenset[str]:
    """The calls a hint must not propose, because the contract refuses a fix that makes
    them: `.item()` where the task keeps a value a tensor or bounds its host syncs."""
    rates = contract.per_update
    if (
        rates is not None
        and rates.host_syncs == "at_most"
        or any(compared.tensors for compared in contract.same_as_solution)
    ):
        return frozenset({"item"})
    return frozenset()


def _counted(what: str, noun: str, fix: int, solution: int) -> Expectation:
    if fix >= solution:
        if fix == solution:
            return Expectation(what, True, f"{fix} {noun}, as the solution's {solution}.")
        return Expectation(what, True, f"{fix} {noun}, at least the solution's {solution}.")
    if fix == 0:
        return Expectation(
            what,
            False,
            f"The fix makes no {noun}; the solution makes {solution}: it no longer trains.",
        )
    return Expectation(
        what,
        False,
        f"The fix makes {fix} {noun}; the solution makes {solution}:"
        " it trains less than the task asks.",
    )


def _same(compared: Compared, fix: Fingerprint | None, solution: Fingerprint | None) -> Expectation:
    what, name = f"same:{compared.name}", compared.name
    if not solution or "missing" in solution or "unsupported" in solution:
        problem = (solution or {}).get("unsupported") or "it is not defined at the end"
        return Expectation(
            what,
            False,
            f"The solution's `{name}` cannot be compared ({problem}):"
            " the card's contract names a value it does not leave behind.",
        )
    if not fix or "missing" in fix:
        return Expectation(
            what,
            False,
            f"`{name}` is not defined when the fix ends; the solution leaves it behind to compare.",
        )
    if "unsupported" in fix:
        return Expectation(
            what,
            False,
            f"`{name}` holds a {fix['unsupported']}, which cannot be compared with the solution's.",
        )
    if fix["shape"] != solution["shape"]:
        return Expectation(
            what,
            False,
            f"`{name}` has another shape than the solution's"
            f" ({_short(fix['shape'])} against {_short(solution['shape'])}).",
        )
    if compared.tensors:
        numbers = [
            label
            for label in fix.get("python_numbers", [])
            if label not in solution.get("python_numbers", [])
        ]
        if numbers:
            return Expectation(
                what,
                False,
                f"`{name}{numbers[0]}` is a Python number where the solution keeps a tensor:"
                " the task keeps it a tensor on the device (no `.item()` each step).",
            )
    for kind, broken in (("exact", _exact), ("dtype", _dtype), ("bytes", _bytes)):
        message = broken(compared, fix, solution)
        if message:
            return Expectation(f"{kind}:{name}", False, message)
    worst, used = _worst(fix["numbers"], solution["numbers"], compared)
    if worst is None:
        return Expectation(what, True, f"`{name}` matches the solution's.", used)
    index, got, want = worst
    where = _where(name, fix, index)
    return Expectation(
        what,
        False,
        f"`{where}` differs from the solution's under the same seed"
        f" ({got} where the solution has {want}; tolerance rtol {compared.rtol:g},"
        f" atol {compared.atol:g}).",
    )


def _exact(compared: Compared, fix: Fingerprint, solution: Fingerprint) -> str:
    """The first string, None or bool that is not the solution's (same shape: same places)."""
    for (label, got), (_, want) in zip(
        fix.get("exact", []), solution.get("exact", []), strict=False
    ):
        if got != want:
            return (
                f"`{compared.name}{label}` is {_short(got)} where the solution has {_short(want)}:"
                " strings, None and booleans are compared exactly."
            )
    return ""


def _dtype(compared: Compared, fix: Fingerprint, solution: Fingerprint) -> str:
    if not compared.dtype:
        return ""
    for (label, got), (_, want) in zip(
        fix.get("dtypes", []), solution.get("dtypes", []), strict=False
    ):
        if got != want:
            return (
                f"`{compared.name}{label}` is {_dtype_name(got)} where the solution keeps"
                f" {_dtype_name(want)}: the task keeps its type."
            )
    return ""


def _dtype_name(dtype: str) -> str:
    return dtype.removeprefix("torch.")


def _bytes(compared: Compared, fix: Fingerprint, solution: Fingerprint) -> str:
    if compared.bytes is None:
        return ""
    mine, theirs = fix.get("bytes", 0), solution.get("bytes", 0)
    slack = BYTES_SLACK * theirs
    if within("at_most", mine, theirs + slack) and (
        compared.bytes == "at_most" or within("at_least", mine, theirs - slack)
    ):
        return ""
    relation = "more" if mine > theirs else "less"
    return (
        f"`{compared.name}` holds {format_bytes(mine)}, {relation} than the solution's"
        f" {format_bytes(theirs)}: "
        + (
            "the task keeps it as small as the solution does (no copy, no wider dtype)."
            if mine > theirs
            else "it no longer holds what the solution keeps."
        )
    )


def _worst(
    fix: Sequence[float | str], solution: Sequence[float | str], compared: Compared
) -> tuple[tuple[int, str, str] | None, float]:
    """The first pair out of tolerance, its position and values as text (None when all agree;
    NaN agrees with NaN), and the largest share of the tolerance a pair in it used: the
    difference over what `math.isclose` allows, max(rtol * the larger size, atol)."""
    used = 0.0
    for index, (got, want) in enumerate(zip(fix, solution, strict=True)):
        a, b = float(got), float(want)
        if math.isnan(a) and math.isnan(b) or a == b:
            continue
        if not math.isclose(a, b, rel_tol=compared.rtol, abs_tol=compared.atol):
            return (index, f"{a:.6g}", f"{b:.6g}"), used
        allowed = max(compared.rtol * max(abs(a), abs(b)), compared.atol)
        used = max(used, abs(a - b) / allowed)
    return None, used


def _where(name: str, found: Fingerprint, index: int) -> str:
    """Which value the number at `index` is: `model.fc.weight[2, 3]`, `history[4]`,
    `metrics['loss']`; a part only (no element) where numbers were folded into means."""
    fold = int(found.get("fold", 1) or 1)
    flat = index * fold
    start = 0
    for label, dims, count in found.get("parts", []):
        if start <= flat < start + int(count):
            offset = flat - start
            element = ""
            if fold == 1 and dims:
                position = []
                for size in reversed(list(dims)):
                    position.append(offset % int(size))
                    offset //= int(size)
                element = f"[{', '.join(str(p) for p in reversed(position))}]"
            return f"{name}{label}{element}"
        start += int(count)
    return name


def _peak(fraction: float, fix: int, starter: int) -> Expectation:
    budget = fraction * starter
    if fix <= budget:
        return Expectation(
            "peak_memory",
            True,
            f"Peak memory {format_bytes(fix)}, within"
            f" {fraction:.0%} of the starter's {format_bytes(starter)}.",
        )
    return Expectation(
        "peak_memory",
        False,
        f"Peak memory {format_bytes(fix)}; the task allows"
        f" {fraction:.0%} of the starter's {format_bytes(starter)}"
        f" ({format_bytes(budget)}).",
    )


def _alive(fix: int, solution: int) -> Expectation:
    """The tensors alive at the end, against the solution's under `at_most` with
    BYTES_SLACK: a copy kept under a name no value of the contract compares shows here."""
    said = (
        f"keeps {format_bytes(fix)} of tensors alive at the end, the solution keeps"
        f" {format_bytes(solution)}"
    )
    if within("at_most", fix, solution * (1 + BYTES_SLACK)):
        return Expectation("alive_bytes", True, f"The fix {said}.")
    return Expectation(
        "alive_bytes",
        False,
        f"It {said}.",
        advice=(
            "Let go of what the solution lets go of: a tensor kept under another name, in a"
            " container or as an attribute still holds its memory (do not make the copy, or"
            " `del` it once it has served)."
        ),
    )


def _short(shape: str, width: int = 60) -> str:
    return shape if len(shape) <= width else shape[: width - 1] + "…"
