"""A compared value as plain JSON, its shape and its numbers, so the parent can hold a fix's
results against the reference solution's (see `checkers.judge.contract`).

Numbers past MAX_NUMBERS are folded into that many chunk means: a correct fix computes the
very same values under the same seed, so a fold loses nothing a comparison needs.
"""

from __future__ import annotations

import math

import torch

from checkers.measure import storage
from checkers.measurements import Fingerprint

MAX_NUMBERS = 4096
MAX_DEPTH = 6
MAX_ITEMS = 10_000


def fingerprint(value: object) -> Fingerprint:
    """`{"shape": str, "numbers": [float], "parts": [[label, dims, count]], "fold": int}`, or
    `{"missing": true}` / `{"unsupported": type}`. `parts` says which numbers are whose (a
    module's `fc.weight`, a dict's `['loss']`), so a mismatch can be named; `fold` is how many
    numbers each of `numbers` is the mean of (1 when none were folded)."""
    if type(value).__name__ == "_Missing":
        return {"missing": True}
    shape: list[str] = []
    tensors: list[torch.Tensor] = []
    parts: list[tuple[str, list[int], int]] = []
    try:
        with torch._C.DisableTorchFunction():
            _collect(value, shape, tensors, 0, "", parts)
    except _Unsupported as exc:
        return {"unsupported": str(exc)}
    flat = (
        torch.cat([t.reshape(-1) for t in tensors])
        if tensors
        else torch.zeros(0, dtype=torch.float64)
    )
    folded = _fold(flat)
    return {
        "shape": " ".join(shape),
        "numbers": [_plain(x) for x in folded.tolist()],
        "parts": parts,
        "fold": max(1, -(-flat.numel() // max(folded.numel(), 1))),
    }


class _Unsupported(Exception):
    pass


def _collect(
    value: object,
    shape: list[str],
    tensors: list[torch.Tensor],
    depth: int,
    label: str,
    parts: list[tuple[str, list[int], int]],
) -> None:
    """Read `value` as grill reads everything the snippet made (`checkers.measure.storage`):
    a module's parameters and persistent buffers from its real tables (no `state_dict()` of
    the snippet's, no hooks), containers from their real storage, no method of theirs."""
    if depth > MAX_DEPTH or len(shape) > MAX_ITEMS:
        raise _Unsupported("a value nested too deeply or too large to compare")
    kind = storage.container_kind(value)
    if storage.is_a(value, torch.nn.Module):
        shape.append(f"module {storage.type_name(type(value))}")
        for name, tensor in _module_tensors(value, ""):
            shape.append(name)
            _collect(tensor, shape, tensors, depth + 1, f"{label}.{name}", parts)
    elif storage.is_a(value, torch.Tensor):
        tensor = torch._C.TensorBase.detach(value)  # type: ignore[arg-type]
        dims = list(tensor.shape)
        # a 0-d tensor is a number: `loss.detach()` and `loss.item()` are the same result
        shape.append("number" if not dims else f"tensor{tuple(dims)}")
        if tensor.is_complex():
            tensor = torch.view_as_real(tensor)
        tensor = tensor.to("cpu", torch.float64)
        parts.append((label, dims, tensor.numel()))
        tensors.append(tensor)
    elif any(type(value) is kind for kind in (bool, int, float)):
        shape.append("number")
        parts.append((label, [], 1))
        tensors.append(torch.tensor([float(value)], dtype=torch.float64))  # type: ignore[arg-type]
    elif kind in (list, tuple):
        found, more = storage.items(value, kind, MAX_ITEMS)
        if more:
            raise _Unsupported("a value nested too deeply or too large to compare")
        shape.append(f"{'list' if kind is list else 'tuple'}[{len(found)}]")
        for index, item in enumerate(found):
            _collect(item, shape, tensors, depth + 1, f"{label}[{index}]", parts)
    elif kind is dict:
        entries, more = storage.pairs(value, MAX_ITEMS)
        if more:
            raise _Unsupported("a value nested too deeply or too large to compare")
        shape.append(f"dict[{len(entries)}]")
        for key, item in entries:
            text = _key_text(key)
            shape.append(text)
            _collect(item, shape, tensors, depth + 1, f"{label}[{text}]", parts)
    else:
        raise _Unsupported(storage.type_name(type(value)))


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


def _fold(flat: torch.Tensor) -> torch.Tensor:
    if flat.numel() <= MAX_NUMBERS:
        return flat
    chunk = -(-flat.numel() // MAX_NUMBERS)
    padded = torch.cat([flat, flat.new_full((chunk * MAX_NUMBERS - flat.numel(),), math.nan)])
    return padded.reshape(MAX_NUMBERS, chunk).nanmean(dim=1)


def _plain(x: float) -> float | str:
    """JSON has no NaN or infinity: they travel as strings."""
    return x if math.isfinite(x) else str(x)
