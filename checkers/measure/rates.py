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

A call whose output's *size* depends on the values it reads (`DATA_DEPENDENT_SHAPES`:
`nonzero`, indexing with a boolean mask, `masked_select`, `unique`...) waits the same way: the
host must learn how many elements there are before it can allocate the result, so it copies a
count back from the device. Those calls count too; the same result in a fixed shape
(`torch.where(mask, x, y)`, `masked_fill`, a multiply by the mask) does not.

A tensor given where torch expects a Python number (`torch.arange(n)`, `torch.zeros(n)`,
`x.narrow(0, start, 2)`, `x.view(n, -1)`, `x[:n]`, `torch.full((2,), value)`, an `alpha=`)
is read on the host too, by torch's C++ argument parser, where no TorchFunctionMode sees it.
Every such read, like every `.item()`, ends in one operator, `aten::_local_scalar_dense`: a
kernel put in front of torch's own for that operator (`ScalarReads`) hears of it wherever it
runs (outside inference mode), and the read counts when the tensor read is one the snippet
gave the torch call in progress (`given_to`): an argument, or inside a size tuple, a list or
a slice. Not counted: reads inside a call already counted
by name above (`.item()`, `float()`, an f-string: one call, one count); reads of a tensor a
kernel made for itself (the CPU `one_hot` checks its labels' range with `.item()`, which the
CUDA kernel leaves to the device); grill's own reads, made with torch functions disabled. A
tensor operand (`x + t`, `torch.where(m, x, t)`, `x.pow(t)`) stays on the device and reads
nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


_CPU = torch.device("cpu")

_FROM_PYTHON_DATA: frozenset[Callable[..., object]] = frozenset({torch.tensor, torch.as_tensor})
"""Calls that build a tensor from Python data. Tensors inside that data are read one element
at a time on the host (torch converts each with `.item()`, with the dispatch modes off, so no
`ScalarReads` sees it): `torch.tensor([loss_a, loss_b])`."""


def _holds_tensor(data: object, depth: int = 4) -> bool:
    if isinstance(data, torch.Tensor):
        return True
    if depth == 0 or not isinstance(data, list | tuple):
        return False
    return any(_holds_tensor(item, depth - 1) for item in data)


def _always(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    return True


def _is_mask(index: object) -> bool:
    return isinstance(index, torch.Tensor) and index.dtype in (torch.bool, torch.uint8)


def _masked_index(index: object) -> bool:
    """A boolean (or legacy uint8) tensor in an index, alone or among others (`x[:, mask]`).
    A Python list of booleans is host data: it needs no wait."""
    if isinstance(index, tuple | list):
        return any(_is_mask(part) for part in index)
    return _is_mask(index)


def _masked_read(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    return len(args) > 1 and _masked_index(args[1])


def _masked_write(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """`x[mask] = value` (and `index_put_` with a mask): a Python number, or a one-element
    tensor kept on the CPU, is filled in place (PyTorch turns it into `masked_fill_`: no count
    needed); any other tensor value is scattered to the true positions, which must first be
    found and counted."""
    if len(args) < 3:
        return False
    target, index, value = args[0], args[1], args[2]
    if not _masked_index(index) or not isinstance(value, torch.Tensor):
        return False
    if value.numel() != 1:
        return True
    return isinstance(target, torch.Tensor) and value.device == target.device != _CPU


def _indices_of_true(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """`torch.where(mask)`, one argument, is `nonzero(as_tuple=True)`; with three it keeps
    the broadcast shape and reads nothing."""
    return len(args) + len(kwargs) == 1


def _repeats_read(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """Tensor repeats without `output_size`: the output's length is their sum, read on the
    host (its docs: `output_size` avoids that synchronisation). Integer repeats are known."""
    if kwargs.get("output_size") is not None:
        return False
    repeats = kwargs.get("repeats", args[1] if len(args) > 1 else args[0] if args else None)
    return isinstance(repeats, torch.Tensor)


def _classes_read(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """`one_hot` without `num_classes` sizes its last dimension by the largest class, read on
    the host; given the number, CUDA leaves the range check to the device."""
    classes = kwargs.get("num_classes", args[1] if len(args) > 1 else -1)
    return classes == -1


@dataclass(frozen=True)
class DataDependentShape:
    """Calls whose output size is known only after reading the values, so the host waits."""

    calls: tuple[Callable[..., object], ...]
    why: str
    counts: Callable[[Sequence[object], Mapping[str, object]], bool] = _always
    """Whether this call, with these arguments, has a size that depends on the data."""


DATA_DEPENDENT_SHAPES: tuple[DataDependentShape, ...] = (
    DataDependentShape(
        (torch.nonzero, _Tensor.nonzero, torch.argwhere, _Tensor.argwhere),
        "one row per true element: the count is copied back (their docs: on CUDA they"
        " synchronise the host with the device; nonzero_static, with a fixed size, does not)",
    ),
    DataDependentShape(
        (torch.where,),
        "with one argument, the indices of the true elements: nonzero",
        _indices_of_true,
    ),
    DataDependentShape(
        (_Tensor.__getitem__,),
        "indexing with a boolean mask keeps the true rows: it runs nonzero first",
        _masked_read,
    ),
    DataDependentShape(
        (_Tensor.__setitem__, _Tensor.index_put_, _Tensor.index_put, torch.index_put),
        "writing a tensor through a boolean mask finds the true positions with nonzero",
        _masked_write,
    ),
    DataDependentShape(
        (torch.masked_select, _Tensor.masked_select),
        "a flat tensor of the selected elements, as many as the mask has true entries",
    ),
    DataDependentShape(
        (torch.unique, _Tensor.unique, torch.unique_consecutive, _Tensor.unique_consecutive),
        "one element per distinct value, a number known only after sorting the data",
    ),
    DataDependentShape(
        (torch.bincount, _Tensor.bincount),
        "one bin per value up to the largest, so the maximum is read on the host",
    ),
    DataDependentShape(
        (torch.nn.functional.one_hot,),
        "without num_classes, one column per class up to the largest label, read on the host",
        _classes_read,
    ),
    DataDependentShape(
        (torch.repeat_interleave, _Tensor.repeat_interleave),
        "tensor repeats without output_size: the length is their sum, read on the host",
        _repeats_read,
    ),
)
"""Calls that wait for the device to size their output, each with why (checked against
PyTorch's documentation and kernels). Not here: calls whose output size is fixed whatever the
values (`torch.where(mask, x, y)`, `masked_fill`, `nonzero_static`, `count_nonzero`, integer
indexing), which queue on the device and return at once."""

_SIZED_BY_DATA: dict[Callable[..., object], DataDependentShape] = {
    call: shape for shape in DATA_DEPENDENT_SHAPES for call in shape.calls
}


def _from_python_data(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    data = args[0] if args else kwargs.get("data")
    return isinstance(data, list | tuple) and _holds_tensor(data)


def _moves_to_host(args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """`.to()` of a tensor on an accelerator, to the CPU."""
    if not args or not isinstance(args[0], torch.Tensor):
        return False
    source = args[0]
    if source.device.type == "cpu":
        return False
    try:
        device = torch._C._nn._parse_to(*args[1:], **kwargs)[0]  # type: ignore[call-overload]
    except (TypeError, RuntimeError):
        return False
    return device is not None and device.type == "cpu"


HostSyncRule = Callable[[Sequence[object], Mapping[str, object]], bool]

HOST_SYNC_RULES: dict[Callable[..., object], HostSyncRule] = {
    _Tensor.to: _moves_to_host,
    **{call: shape.counts for call, shape in _SIZED_BY_DATA.items()},
    **dict.fromkeys(_FROM_PYTHON_DATA, _from_python_data),
    **dict.fromkeys(HOST_SYNCS, _always),
}
"""Per torch call that may wait for a value on the host, whether it does with these
arguments (`is_host_sync`), in one table: the ledger looks every torch call up once, and
most calls are in none of them. A call in several sets has the rule of the first of
HOST_SYNCS, _FROM_PYTHON_DATA, DATA_DEPENDENT_SHAPES, `.to()`."""


def is_host_sync(
    func: Callable[..., object], args: Sequence[object], kwargs: Mapping[str, object]
) -> bool:
    """Whether this torch call waits for a value on the host: one of HOST_SYNCS, a tensor
    built from Python data holding tensors (`torch.tensor([loss_a, loss_b])`), a call whose
    output size depends on the data (DATA_DEPENDENT_SHAPES), or a `.to()` that moves a tensor
    off an accelerator to the CPU. (`.to("cpu")` of a tensor already on the CPU moves nothing:
    on a CPU run it is how code written for any device moves its data, not a synchronisation;
    `.cpu()` names the host and always counts.)"""
    try:
        rule = HOST_SYNC_RULES.get(func)
    except TypeError:  # an unhashable callable reached torch's dispatch: none of these
        return False
    return rule is not None and rule(args, kwargs)


SCALAR_READ = torch.ops.aten._local_scalar_dense.default
"""The operator every read of one tensor element into a Python number ends in, from Python
(`.item()`) or from torch's C++ (a tensor given for an int, a float or a Scalar)."""


def given_to(tensor: object, args: Sequence[object], kwargs: Mapping[str, object]) -> bool:
    """Whether `tensor` is one of a call's arguments, or an element of a size tuple, a list or
    a slice among them (`torch.zeros((n, 2))`, `x[:n]`, `x[1:n, 0]`)."""

    def holds(value: object, depth: int) -> bool:
        if value is tensor:
            return True
        if depth == 0:
            return False
        if isinstance(value, slice):
            return any(holds(bound, depth - 1) for bound in (value.start, value.stop, value.step))
        if isinstance(value, tuple | list):
            return any(holds(item, depth - 1) for item in value)
        return False

    return any(holds(value, 2) for value in (*args, *kwargs.values()))


_readers: list[Callable[[object], None]] = []
"""Who hears of each SCALAR_READ now, innermost last."""

_kernels: list[torch.library.Library] = []
"""The registration of `_read_kernel`, made once per process and kept (a kernel stays
registered as long as its library object lives)."""


def _read_kernel(keyset: torch._C.DispatchKeySet, tensor: torch.Tensor) -> object:
    if _readers:
        _readers[-1](tensor)
    return SCALAR_READ.redispatch(keyset & torch._C._after_autograd_keyset, tensor)


class ScalarReads:
    """While entered, calls `on_read` with the tensor read at each SCALAR_READ, whatever route
    led to it. The hook is a kernel for that one operator at the Autograd key, in front of
    torch's own, so no other operator pays for it (a TorchDispatchMode would put Python in
    front of every operator of the run). Inference mode skips the Autograd key: reads made
    there, or of tensors made there, are not heard."""

    def __init__(self, on_read: Callable[[object], None]) -> None:
        self.on_read = on_read

    def __enter__(self) -> None:
        if not _kernels:
            library = torch.library.Library("aten", "IMPL")  # type: ignore[no-untyped-call]
            with warnings.catch_warnings():  # torch warns that its kernel is overridden
                warnings.simplefilter("ignore")
                library.impl("_local_scalar_dense", _read_kernel, "Autograd", with_keyset=True)  # type: ignore[no-untyped-call]
            _kernels.append(library)
        _readers.append(self.on_read)

    def __exit__(self, *exc: object) -> None:
        _readers.remove(self.on_read)


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
