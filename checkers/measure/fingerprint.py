"""A compared value as plain JSON, its shape and its numbers, so the parent can hold a fix's
results against the reference solution's (see `checkers.judge.contract`).

Numbers past MAX_NUMBERS are folded into that many chunk means: a correct fix computes the
very same values under the same seed, so a fold loses nothing a comparison needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from checkers.measure import storage
from checkers.measurements import Fingerprint

MAX_NUMBERS = 4096
MAX_DEPTH = 6
MAX_ITEMS = 10_000


def fingerprint(value: object) -> Fingerprint:
    """`{"shape": str, "numbers": [float], "parts": [[label, dims, count]], "fold": int,
    "python_numbers": [label], "exact": [[label, repr]], "dtypes": [[label, dtype]],
    "bytes": int}`, or `{"missing": true}` / `{"unsupported": type}`. `parts` says which
    numbers are whose (a module's `fc.weight`, a dict's `['loss']`), so a mismatch can be
    named; `fold` is how many numbers each of `numbers` is the mean of (1 when none were
    folded); `python_numbers` names the parts that are Python numbers, not tensors (the shape
    calls both a number); `exact` holds the strings, Nones and bools, compared as they are;
    `dtypes` each numeric part's type; `bytes` what its tensors' storages hold, each once."""
    if type(value).__name__ == "_Missing":
        return {"missing": True}
    into = _Collected()
    try:
        with torch._C.DisableTorchFunction():
            _collect(value, into, 0, "")
    except _Unsupported as exc:
        return {"unsupported": str(exc)}
    flat = (
        torch.cat([t.reshape(-1) for t in into.tensors])
        if into.tensors
        else torch.zeros(0, dtype=torch.float64)
    )
    folded = _fold(flat)
    return {
        "shape": " ".join(into.shape),
        "numbers": [_plain(x) for x in folded.tolist()],
        "parts": into.parts,
        "fold": max(1, -(-flat.numel() // max(folded.numel(), 1))),
        "python_numbers": into.python_numbers,
        "exact": into.exact,
        "dtypes": into.dtypes,
        "bytes": sum(into.storages.values()),
    }


class _Unsupported(Exception):
    pass


@dataclass
class _Collected:
    """What reading a value gathers, leaf by leaf in order."""

    shape: list[str] = field(default_factory=list)
    tensors: list[torch.Tensor] = field(default_factory=list)
    parts: list[tuple[str, list[int], int]] = field(default_factory=list)
    python_numbers: list[str] = field(default_factory=list)
    exact: list[tuple[str, str]] = field(default_factory=list)
    dtypes: list[tuple[str, str]] = field(default_factory=list)
    storages: dict[int, int] = field(default_factory=dict)
    """Bytes per storage (by its address), so a view and its base count once."""


def _collect(value: object, into: _Collected, depth: int, label: str) -> None:
    """Read `value` as grill reads everything the snippet made (`checkers.measure.storage`):
    a module's parameters and persistent buffers from its real tables (no `state_dict()` of
    the snippet's, no hooks), containers from their real storage, no method of theirs."""
    if depth > MAX_DEPTH or len(into.shape) > MAX_ITEMS:
        raise _Unsupported("a value nested too deeply or too large to compare")
    kind = storage.container_kind(value)
    if storage.is_a(value, torch.nn.Module):
        into.shape.append(f"module {storage.type_name(type(value))}")
        for name, tensor in _module_tensors(value, ""):
            into.shape.append(name)
            _collect(tensor, into, depth + 1, f"{label}.{name}")
    elif storage.is_a(value, torch.optim.Optimizer):
        _collect_optimizer(value, into, depth, label)
    elif storage.is_a(value, torch.Tensor):
        tensor = torch._C.TensorBase.detach(value)  # type: ignore[arg-type]
        dims = list(tensor.shape)
        into.dtypes.append((label, str(tensor.dtype)))
        held = torch._C.TensorBase.untyped_storage(tensor)
        into.storages[held.data_ptr() or id(held)] = held.nbytes()
        # a 0-d tensor is a number: `loss.detach()` and `loss.item()` are the same result
        into.shape.append("number" if not dims else f"tensor{tuple(dims)}")
        if tensor.is_complex():
            tensor = torch.view_as_real(tensor)
        tensor = tensor.to("cpu", torch.float64)
        into.parts.append((label, dims, tensor.numel()))
        into.tensors.append(tensor)
    elif value is None or type(value) is bool or type(value) is str:
        into.shape.append("value")  # which one it is, the exact comparison says
        into.exact.append((label, _exact_text(value)))
    elif type(value) is int or type(value) is float:
        into.shape.append("number")
        into.parts.append((label, [], 1))
        into.python_numbers.append(label)
        into.dtypes.append((label, type(value).__name__))
        into.tensors.append(torch.tensor([float(value)], dtype=torch.float64))
    elif kind in (list, tuple):
        found, more = storage.items(value, kind, MAX_ITEMS)
        if more:
            raise _Unsupported("a value nested too deeply or too large to compare")
        into.shape.append(f"{'list' if kind is list else 'tuple'}[{len(found)}]")
        for index, item in enumerate(found):
            _collect(item, into, depth + 1, f"{label}[{index}]")
    elif kind is dict:
        entries, more = storage.pairs(value, MAX_ITEMS)
        if more:
            raise _Unsupported("a value nested too deeply or too large to compare")
        into.shape.append(f"dict[{len(entries)}]")
        for key, item in entries:
            text = _key_text(key)
            into.shape.append(text)
            _collect(item, into, depth + 1, f"{label}[{text}]")
    else:
        raise _Unsupported(storage.type_name(type(value)))


MAX_TEXT = 1000
"""Characters of a string kept to compare; a longer one is compared by these and its length."""


def _exact_text(value: None | bool | str) -> str:
    """A leaf compared exactly, as text: its repr, read by the real types' own methods."""
    if type(value) is str:
        text = str.__repr__(value[:MAX_TEXT])
        return text if len(value) <= MAX_TEXT else f"{text}… ({len(value)} characters)"
    return "None" if value is None else bool.__repr__(value)


def _module_tensors(module: object, prefix: str) -> list[tuple[str, object]]:
    """A module's parameters and persistent buffers, submodules' too, named as in its
    state_dict, from the real `_parameters`, `_buffers` and `_modules` tables."""
    found: list[tuple[str, object]] = []
    stack: list[tuple[str, object]] = [(prefix, module)]
    seen: set[int] = set()
    while stack:
        name, current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        attributes = storage.instance_dict(current) or {}
        skipped = dict.get(attributes, "_non_persistent_buffers_set")
        hidden = (
            set(storage.items(skipped, set, MAX_ITEMS)[0])
            if storage.container_kind(skipped) is set
            else set()
        )
        for table in ("_parameters", "_buffers"):
            entries = dict.get(attributes, table)
            if storage.container_kind(entries) is not dict:
                continue
            for key, tensor in storage.pairs(entries, MAX_ITEMS)[0]:
                if tensor is None or type(key) is not str:
                    continue
                if table == "_buffers" and key in hidden:
                    continue
                found.append((f"{name}{key}", tensor))
        children = dict.get(attributes, "_modules")
        if storage.container_kind(children) is dict:
            named = [
                (f"{name}{key}.", child)
                for key, child in storage.pairs(children, MAX_ITEMS)[0]
                if child is not None and type(key) is str
            ]
            stack.extend(reversed(named))  # depth first, in order: as state_dict() lists them
    return found


def _key_text(key: object) -> str:
    if type(key) is str:
        return str.__repr__(key)
    if type(key) is int:
        return int.__repr__(key)
    return storage.type_name(type(key))


IMPLEMENTATION_FLAGS = frozenset({"params", "foreach", "fused", "capturable", "differentiable"})
"""param_groups keys that choose how an optimizer computes, not what: left out of its
fingerprint, as are settings left at None."""


def _collect_optimizer(optimizer: object, into: _Collected, depth: int, label: str) -> None:
    """An optimizer is compared by what decides its next update: each group's settings (lr,
    momentum, betas, weight_decay...) and each parameter's state (momentum buffers, moments,
    step counts), in the order of its groups and their parameters; read from its real
    `param_groups` and `state` tables, as everything else is."""
    attributes = storage.instance_dict(optimizer) or {}
    groups = dict.get(attributes, "param_groups")
    state = dict.get(attributes, "state")
    if storage.container_kind(groups) is not list or storage.container_kind(state) is not dict:
        raise _Unsupported("an optimizer without its param_groups and state")
    found, more = storage.items(groups, list, MAX_ITEMS)
    states, more_states = storage.pairs(state, MAX_ITEMS)
    if more or more_states:
        raise _Unsupported("a value nested too deeply or too large to compare")
    by_param = {id(param): entry for param, entry in states}
    into.shape.append("optimizer")
    for i, group in enumerate(found):
        if storage.container_kind(group) is not dict:
            raise _Unsupported("an optimizer group that is not a dict")
        settings = dict(storage.pairs(group, MAX_ITEMS)[0])
        params = settings.get("params")
        members = (
            storage.items(params, list, MAX_ITEMS)[0]
            if storage.container_kind(params) is list
            else []
        )
        into.shape.append(f"group {i} of {len(members)}")
        for key in sorted(k for k in settings if type(k) is str and k not in IMPLEMENTATION_FLAGS):
            setting = settings[key]
            if setting is None:
                continue
            if type(setting) is str:
                into.shape.append(f"{key}={setting}")
                continue
            into.shape.append(key)
            _collect(setting, into, depth + 1, f"{label}group{i}.{key}")
        for j, param in enumerate(members):
            entry = by_param.get(id(param))
            values = (
                dict(storage.pairs(entry, MAX_ITEMS)[0])
                if storage.container_kind(entry) is dict
                else {}
            )
            into.shape.append("state")
            for key in sorted(k for k in values if type(k) is str and values[k] is not None):
                into.shape.append(key)
                _collect(values[key], into, depth + 1, f"{label}state{i}.{j}.{key}")


def _fold(flat: torch.Tensor) -> torch.Tensor:
    if flat.numel() <= MAX_NUMBERS:
        return flat
    chunk = -(-flat.numel() // MAX_NUMBERS)
    padded = torch.cat([flat, flat.new_full((chunk * MAX_NUMBERS - flat.numel(),), math.nan)])
    return padded.reshape(MAX_NUMBERS, chunk).nanmean(dim=1)


def _plain(x: float) -> float | str:
    """JSON has no NaN or infinity: they travel as strings."""
    return x if math.isfinite(x) else str(x)
