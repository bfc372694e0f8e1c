"""A compared value as plain JSON, its shape and its numbers, so the parent can hold a fix's
results against the reference solution's (see `checkers.judge.contract`).

Numbers past MAX_NUMBERS are folded into that many chunk means: a correct fix computes the
very same values under the same seed, so a fold loses nothing a comparison needs.
"""

from __future__ import annotations

import math
import numbers

import torch

from checkers.measurements import Fingerprint

MAX_NUMBERS = 4096
MAX_DEPTH = 6
MAX_ITEMS = 10_000


def fingerprint(value: object) -> Fingerprint:
    """`{"shape": str, "numbers": [float]}`, or `{"missing": true}` / `{"unsupported": type}`."""
    if type(value).__name__ == "_Missing":
        return {"missing": True}
    shape: list[str] = []
    tensors: list[torch.Tensor] = []
    try:
        _collect(value, shape, tensors, 0)
    except _Unsupported as exc:
        return {"unsupported": str(exc)}
    flat = (
        torch.cat([t.reshape(-1) for t in tensors])
        if tensors
        else torch.zeros(0, dtype=torch.float64)
    )
    return {"shape": " ".join(shape), "numbers": [_plain(x) for x in _fold(flat).tolist()]}


class _Unsupported(Exception):
    pass


def _collect(value: object, shape: list[str], tensors: list[torch.Tensor], depth: int) -> None:
    if depth > MAX_DEPTH or len(shape) > MAX_ITEMS:
        raise _Unsupported("a value nested too deeply or too large to compare")
    if isinstance(value, torch.nn.Module):
        shape.append(f"module {type(value).__name__}")
        for name, tensor in value.state_dict().items():
            shape.append(name)
            _collect(tensor, shape, tensors, depth + 1)
    elif isinstance(value, torch.optim.Optimizer):
        _collect_optimizer(value, shape, tensors, depth)
    elif isinstance(value, torch.Tensor):
        shape.append(f"tensor{tuple(value.shape)}")
        if value.is_complex():
            value = torch.view_as_real(value)
        tensors.append(value.detach().to("cpu", torch.float64))
    elif isinstance(value, bool | numbers.Real):
        shape.append("number")
        tensors.append(torch.tensor([float(value)], dtype=torch.float64))
    elif isinstance(value, list | tuple):
        shape.append(f"{type(value).__name__}[{len(value)}]")
        for item in value:
            _collect(item, shape, tensors, depth + 1)
    elif isinstance(value, dict):
        shape.append(f"dict[{len(value)}]")
        for key, item in value.items():
            shape.append(repr(key) if isinstance(key, str | int) else type(key).__name__)
            _collect(item, shape, tensors, depth + 1)
    else:
        raise _Unsupported(type(value).__name__)


IMPLEMENTATION_FLAGS = frozenset({"params", "foreach", "fused", "capturable", "differentiable"})
"""param_groups keys that choose how an optimizer computes, not what: left out of its
fingerprint, as are settings left at None."""


def _collect_optimizer(
    optimizer: torch.optim.Optimizer, shape: list[str], tensors: list[torch.Tensor], depth: int
) -> None:
    """An optimizer is compared by what decides its next update: each group's settings (lr,
    momentum, betas, weight_decay...) and each parameter's state (momentum buffers, moments,
    step counts), in the order of its groups and their parameters."""
    shape.append("optimizer")
    for i, group in enumerate(optimizer.param_groups):
        shape.append(f"group {i} of {len(group['params'])}")
        for key in sorted(k for k in group if k not in IMPLEMENTATION_FLAGS):
            setting = group[key]
            if setting is None:
                continue
            if isinstance(setting, str):
                shape.append(f"{key}={setting}")
                continue
            shape.append(key)
            _collect(setting, shape, tensors, depth + 1)
        for param in group["params"]:
            state = optimizer.state.get(param, {})
            shape.append("state")
            for key in sorted(k for k in state if state[k] is not None):
                shape.append(key)
                _collect(state[key], shape, tensors, depth + 1)


def _fold(flat: torch.Tensor) -> torch.Tensor:
    if flat.numel() <= MAX_NUMBERS:
        return flat
    chunk = -(-flat.numel() // MAX_NUMBERS)
    padded = torch.cat([flat, flat.new_full((chunk * MAX_NUMBERS - flat.numel(),), math.nan)])
    return padded.reshape(MAX_NUMBERS, chunk).nanmean(dim=1)


def _plain(x: float) -> float | str:
    """JSON has no NaN or infinity: they travel as strings."""
    return x if math.isfinite(x) else str(x)
