"""What a run does per optimizer update, counted: host synchronisations and backward passes.

A contract can hold a fix to the solution's rate (`checkers.task.PerUpdate`, judged in
`checkers.judge.rates`): "no `.item()` each step", "one backward pass per step". Each event is
counted where it happens, in the window from one `optimizer.step()` to the next, so a median
over the windows reads as "per update" whatever the run does once before or after its loop.

Host synchronisations are counted as *calls*, not as the device's waits, so a CPU run counts
what a CUDA run would wait for: every torch call that hands a tensor's value to Python or to
the host. They are seen where every route to them passes, the grader's TorchFunctionMode
(`checkers.measure.ledger`): a method (`loss.item()`), a builtin (`float(loss)`,
`bool(mask.any())`), an f-string or `format()`, `print()` and `str()` (a tensor's repr), all
reach torch's `__torch_function__` handling. One call counts once: whatever torch does inside
it (an f-string's own `.item()`) runs with the mode popped. grill's own reads run with the
mode disabled and are not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

MAX_WINDOWS = 256
"""Updates whose counts are kept one by one."""

COUNTED = ("host_syncs", "backward_passes")
"""The events counted per update, by the name a contract gives them."""

_Tensor = torch.Tensor
HOST_SYNCS: frozenset[Callable[..., object]] = frozenset(
    {
        _Tensor.item,
        _Tensor.tolist,
        _Tensor.numpy,
        _Tensor.cpu,
        _Tensor.__float__,
        _Tensor.__int__,
        _Tensor.__index__,
        _Tensor.__bool__,
        _Tensor.__complex__,
        _Tensor.__format__,
        _Tensor.__repr__,
        _Tensor.__contains__,
        _Tensor.__array__,
        _Tensor.is_nonzero,
        _Tensor.equal,
        _Tensor.allclose,
        torch.is_nonzero,
        torch.equal,
        torch.allclose,
    }
)
"""Torch calls that hand a tensor's value to the host: its number, its list, its text, its
truth value, a CPU copy."""


def is_host_sync(
    func: Callable[..., object], args: Sequence[object], kwargs: Mapping[str, object]
) -> bool:
    """Whether this torch call waits for a value on the host: one of HOST_SYNCS, or a `.to()`
    that moves a tensor off an accelerator to the CPU. (`.to("cpu")` of a tensor already on
    the CPU moves nothing: on a CPU run it is how code written for any device moves its data,
    not a synchronisation; `.cpu()` names the host and always counts.)"""
    try:
        if func in HOST_SYNCS:
            return True
    except TypeError:  # an unhashable callable reached torch's dispatch: none of these
        return False
    if func is not _Tensor.to or not args or not isinstance(args[0], torch.Tensor):
        return False
    source = args[0]
    if source.device.type == "cpu":
        return False
    try:
        device = torch._C._nn._parse_to(*args[1:], **kwargs)[0]  # type: ignore[call-overload]
    except (TypeError, RuntimeError):
        return False
    return device is not None and device.type == "cpu"


class PerUpdate:
    """Counts of COUNTED events, per window between optimizer steps."""

    def __init__(self) -> None:
        self.window = dict.fromkeys(COUNTED, 0)
        self.windows: dict[str, list[int]] = {name: [] for name in COUNTED}

    def count(self, name: str) -> None:
        self.window[name] += 1

    def update(self) -> None:
        """An optimizer step ended: its window closes."""
        for name in COUNTED:
            if len(self.windows[name]) < MAX_WINDOWS:
                self.windows[name].append(self.window[name])
            self.window[name] = 0

    def report(self) -> dict[str, list[int]]:
        return {name: list(found) for name, found in self.windows.items()}
