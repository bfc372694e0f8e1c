"""A contract's rates: what a fix does per optimizer update, against the solution's
(`checkers.task.PerUpdate`, counted by `checkers.measure.rates`).

One family: each measure is a name, its noun and what breaking it means; the comparison
(`same`, `at_most`, `at_least`) is one rule for all of them, collectives per update
(`checkers.judge.communication`) included. Pure data, no torch.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from checkers.verdict import Expectation


def within(rule: str, mine: float, theirs: float) -> bool:
    """Whether `mine` keeps `rule` against the solution's `theirs`."""
    if rule == "at_most":
        return mine <= theirs
    if rule == "at_least":
        return mine >= theirs
    return mine == theirs


def median_rate(windows: Sequence[int]) -> float | None:
    """Per update: the median over the windows between optimizer steps, the first left out
    (it holds the set-up before the loop) where there are others. None without an update."""
    if not windows:
        return None
    return float(statistics.median(windows[1:] or windows))


@dataclass(frozen=True)
class Rate:
    """One measure of the family: how it is named and why breaking it matters."""

    noun: str
    plural: str
    more: str
    """Why more than the solution breaks the task."""
    fewer: str
    """Why fewer than the solution breaks the task."""
    phrase: str
    """The broken promise, continuing "Your code no longer does what the task asks: "."""
    advise_more: str
    """What to do with more than the solution's `{theirs}` per update (a count above zero)."""
    advise_none: str
    """The same where the solution makes none per update."""
    advise_fewer: str
    """What to do with fewer than the solution's `{theirs}`."""

    def advice(self, mine: float, theirs: float) -> str:
        """Advice that follows the solution's own rate: a task that reads once per update is
        not told to read once after the loop, one that backpropagates each micro-batch is not
        told to merge them."""
        if mine < theirs:
            return self.advise_fewer.format(theirs=f"{theirs:g}")
        if theirs == 0:
            return self.advise_none
        return self.advise_more.format(theirs=f"{theirs:g}")


_ON_THE_DEVICE = (
    "totals as detached tensors (`loss.detach()`), a mask applied by multiplying or with"
    " `torch.where` rather than by indexing, a branch on a tensor's value written as `clamp`"
    " or `torch.where`."
)
"""The ways a value stays on the device, one for each kind of host read a loop makes."""

RATES: dict[str, Rate] = {
    "host_syncs": Rate(
        "host synchronisation",
        "host synchronisations",
        "each hands a tensor's value to the host (`.item()`, `.tolist()`, `.cpu()`,"
        " `float()`, `bool()`, printing a tensor, or a result sized by the data such as"
        " `x[mask]`), which makes a GPU wait; keep the values on the device (`.detach()`)"
        " and read them only where the solution does",
        "the solution reads these values on the host",
        "it makes the host wait on the device more often than the solution (`.item()`,"
        " printing a tensor, an `if` on one, or a result sized by the data such as `x[mask]`)",
        "Read values on the host no more often than the solution, {theirs} per optimizer"
        " update, once the update's work is done; keep the rest on the device: " + _ON_THE_DEVICE,
        "Read nothing on the host inside the loop, only once after it; keep the values on the"
        " device until then: " + _ON_THE_DEVICE,
        "Read the values on the host as the solution does, {theirs} per optimizer update:"
        " the task keeps those reads.",
    ),
    "backward_passes": Rate(
        "backward pass",
        "backward passes",
        "every backward pass runs through a graph again: build each loss once and run"
        " backward on it once",
        "each step must backpropagate as the solution does",
        "it runs a different number of backward passes per step than the solution",
        "Build each loss once and call backward() on it once: the solution runs {theirs}"
        " backward passes per optimizer update; combine the pieces into one loss where it"
        " runs one.",
        "Build each loss once and call backward() on it once.",
        "Keep backpropagating as the solution does, {theirs} backward passes per optimizer"
        " update: each frees its graph before the next is built, so do not merge them into"
        " one loss or one batch.",
    ),
}


def _counted(rate: float, measure: Rate) -> str:
    return f"{rate:g} {measure.noun if rate == 1 else measure.plural}"


def per_update(
    name: str, rule: str, fix: dict[str, list[int]], solution: dict[str, list[int]]
) -> Expectation:
    """The `name` measure's rate in the fix against the solution's, under `rule`."""
    rate = RATES[name]
    mine, theirs = median_rate(fix.get(name, [])), median_rate(solution.get(name, []))
    if theirs is None:
        return Expectation(
            name, False, f"The solution makes no optimizer update to count {rate.plural} by."
        )
    if mine is None:
        return Expectation(
            name,
            False,
            f"The fix makes no optimizer update: there is nothing to count its {rate.plural} by.",
        )
    told = f"{_counted(mine, rate)} per optimizer update"
    if within(rule, mine, theirs):
        return Expectation(name, True, f"{told[0].upper()}{told[1:]} (the solution: {theirs:g}).")
    why = rate.more if mine > theirs else rate.fewer
    return Expectation(
        name,
        False,
        f"The fix makes {told}; the solution makes {theirs:g}: {why}.",
        advice=rate.advice(mine, theirs),
    )
