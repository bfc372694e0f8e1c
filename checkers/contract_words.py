"""A code task's contract in plain words, shown before the first run (the app's task panel and
`grill task start`'s header), as Exercism shows its tests: the candidate knows what is checked.

Each field of the contract's models has one entry in its table below, which says it (or says
nothing while it is unset); a new field is one new entry, and tests/test_contract_words.py holds
every field of every model to having one. Plain Python over the models (no torch).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a command listing tasks from the pack cache imports no pydantic
    from checkers.task import Communication, Compared, Contract, PerUpdate

ALWAYS_CHECKED = (
    "keeps no autograd graph alive from one step to the next (memory per step stays flat)"
)
"""What every code task checks, contract or not."""


def number(value: float) -> str:
    """A tolerance as a reader writes it, the shorter way: 0.0001 as 1e-4, 0.5 as 0.5."""
    plain = f"{value:g}"
    mantissa, exponent = f"{value:e}".split("e")
    power = f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return power if value and len(power) < len(plain) else _short_exponent(plain)


def _short_exponent(text: str) -> str:
    return re.sub(r"e([+-])0*(\d)", lambda m: f"e{m[1].replace('+', '')}{m[2]}", text)


def _said(model: Any, table: Mapping[str, Callable[[Any], list[str]]]) -> list[str]:
    lines: list[str] = []
    for said in table.values():
        lines += said(model)
    return lines


SLACK = " (10% of slack)"
_AS_MANY = {"same": "as many", "at_most": "at most as many", "at_least": "at least as many"}
"""Each comparison a contract makes with the solution's count, as the sentence says it."""

# -- a compared value: one line, its name first and the other fields in brackets -----------

COMPARED_WORDS: dict[str, Callable[[Compared], str | None]] = {
    "name": lambda value: f"leaves `{value.name}` as the reference solution does",
    "tensors": lambda value: (
        "kept a tensor where the solution keeps one: a Python number from `.item()` is refused"
        if value.tensors
        else None
    ),
    "dtype": lambda value: (
        "in the solution's dtype: the same values in another dtype are refused"
        if value.dtype
        else None
    ),
    "bytes": lambda value: (
        f"holding {_AS_MANY[value.bytes]}{SLACK if value.bytes == 'same' else ''} bytes as the solution's"
        if value.bytes
        else None
    ),
    "rtol": lambda value: f"relative tolerance {number(value.rtol)}",
    "atol": lambda value: f"absolute tolerance {number(value.atol)}",
}


def compared_line(value: Compared) -> str:
    head, *details = (said(value) for said in COMPARED_WORDS.values())
    shown = [detail for detail in details if detail]
    return f"{head} ({'; '.join(shown)})" if shown else str(head)


# -- a ranked task's communication ------------------------------------------------------------

COMMUNICATION_WORDS: dict[str, Callable[[Communication], list[str]]] = {
    "in_sync": lambda c: (
        [
            "every rank steps on the same gradients at each update, and the ranks end with the "
            "same weights"
        ]
        if c.in_sync
        else []
    ),
    "per_update": lambda c: (
        [
            f"each rank makes {_AS_MANY[c.per_update]} collectives per optimizer update as the "
            "reference solution"
        ]
        if c.per_update
        else []
    ),
    "bytes_per_update": lambda c: (
        [
            f"each rank sends {_AS_MANY[c.bytes_per_update]} bytes per optimizer update as the "
            "reference solution" + (SLACK if c.bytes_per_update == "same" else "")
        ]
        if c.bytes_per_update
        else []
    ),
    "averaged": lambda c: (
        [
            "the gradients are averaged over the ranks, not summed (the first update's match the "
            "solution's)"
        ]
        if c.averaged
        else []
    ),
}


# -- how the fix trains, per optimizer update ------------------------------------------------

PER_UPDATE_WORDS: dict[str, Callable[[PerUpdate], list[str]]] = {
    "host_syncs": lambda p: (
        [
            f"makes {_AS_MANY[p.host_syncs]} host synchronisations per optimizer "
            "update as the reference solution (`.item()`, `.tolist()`, `.cpu()`, `float()`, "
            "printing a tensor or an `if` on one, and results sized by the data: `x[mask]`, "
            "`nonzero`, `unique`, `bincount`)"
        ]
        if p.host_syncs
        else []
    ),
    "backward_passes": lambda p: (
        [
            f"runs {_AS_MANY[p.backward_passes]} backward passes per optimizer update "
            "as the reference solution"
        ]
        if p.backward_passes
        else []
    ),
}


# -- the contract -------------------------------------------------------------------------

CONTRACT_WORDS: dict[str, Callable[[Contract], list[str]]] = {
    "trains": lambda c: (
        [
            "trains as the reference solution does: at least as many backward passes, and at least "
            "as many optimizer updates that change the model"
        ]
        if c.trains
        else []
    ),
    "same_as_solution": lambda c: [compared_line(value) for value in c.same_as_solution],
    "peak_memory": lambda c: (
        [
            f"peaks under {c.peak_memory:.0%} of the starter's memory (the host heap on CPU, "
            "allocated bytes on CUDA)"
        ]
        if c.peak_memory is not None
        else []
    ),
    "per_update": lambda c: (
        _said(c.per_update, PER_UPDATE_WORDS) if c.per_update is not None else []
    ),
    "alive_bytes": lambda c: (
        [
            f"keeps {_AS_MANY[c.alive_bytes]}{SLACK} bytes of tensors alive at the end as the "
            "reference solution, wherever they are kept (another name, a container, an attribute)"
        ]
        if c.alive_bytes
        else []
    ),
    "communication": lambda c: (
        _said(c.communication, COMMUNICATION_WORDS) if c.communication is not None else []
    ),
}


def contract_lines(contract: Contract) -> list[str]:
    """What a fix is checked for, one plain sentence (no full stop) per promise: the check every
    task makes, then the contract's, in its fields' order."""
    return [ALWAYS_CHECKED, *_said(contract, CONTRACT_WORDS)]
