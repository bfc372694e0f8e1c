"""The tensor bytes still alive at the end of a run: every tensor the run made that survives a
garbage collection, wherever it is kept (a module's parameters and buffers, a second name, a
container, a closure, an attribute), each storage once, gradients included.

A contract compares named values; a fix that keeps the forbidden thing under another name
(`reference = copy.deepcopy(model)` beside a converted `model`, a full history beside a
trimmed cache) passes them all. This measure sees it whatever it is called.

What grill itself made before the run is frozen out of the collector's list (`gc.freeze()` in
`checkers.measure.grade`), so torch's and the harness's own tensors do not count; grill makes
none it keeps during the run (a run of the solution alone counts its own tensors' bytes to
the byte, tests/grader/test_alive_bytes.py).
"""

from __future__ import annotations

import gc
from typing import cast

import torch

from checkers.measure import storage


def alive_bytes() -> int:
    """Bytes held by the storages of the tensors alive now that the collector tracks (so made
    since the last `gc.freeze()`), and of their gradients, each storage once, after a
    collection. An empty or meta tensor holds nothing; a tensor whose storage cannot be read
    (sparse, a wrapper subclass) counts as nothing: its parts, when they are tensors of their
    own, count themselves."""
    gc.collect()
    storages: dict[int, int] = {}
    # per type, since most objects are not tensors; by id, since a class's metaclass may
    # define `__hash__` (the type is kept beside its answer, so no id is reused)
    tensor_types: dict[int, tuple[type, bool]] = {}
    with torch._C.DisableTorchFunction():
        for obj in gc.get_objects():
            cls = type(obj)
            known = tensor_types.get(id(cls))
            if known is None:
                known = tensor_types[id(cls)] = (cls, storage.is_sub(cls, torch.Tensor))
            if not known[1]:
                continue
            tensor = cast(torch.Tensor, obj)
            for held in (tensor, storage.grad(tensor)):
                if held is not None:
                    _count(held, storages)
    return sum(storages.values())


def _count(tensor: torch.Tensor, storages: dict[int, int]) -> None:
    try:
        held = torch._C.TensorBase.untyped_storage(tensor)
        address = held.data_ptr()
    except (RuntimeError, NotImplementedError, TypeError):
        return
    if address:  # none for an empty or meta tensor: it holds no memory
        storages[address] = int(held.nbytes())
