"""Byte counters for the memory curve, and arrays that do not show up in it.

On the host the counter is glibc's `mallinfo2()` (bytes malloc handed out and did not get
back); on CUDA, the caching allocator's allocated and reserved bytes. The grader's own
series live in `OffHeap` arrays backed by anonymous mmap, outside malloc's heap: a record
that grew with every step would otherwise draw the very growth it is there to judge.
"""

from __future__ import annotations

import ctypes
import mmap
from array import array
from collections.abc import Iterator

WORD = 8


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


class HostHeap:
    """Bytes glibc malloc has handed out and not got back (small chunks plus mmapped ones)."""

    def __init__(self) -> None:
        function = getattr(ctypes.CDLL(None), "mallinfo2", None)
        if function is None:
            raise OSError("glibc mallinfo2() is not available on this system")
        function.restype = _MallInfo2
        self._mallinfo2 = function

    def read(self) -> tuple[int, int]:
        info = self._mallinfo2()
        used = info.uordblks + info.hblkhd
        return used, used


class CudaAllocator:
    """The caching allocator's view: tensor bytes in use, and bytes held from the driver."""

    def __init__(self) -> None:
        import torch

        self._torch = torch

    def read(self) -> tuple[int, int]:
        cuda = self._torch.cuda
        return cuda.memory_allocated(), cuda.memory_reserved()


def memory_reader(device: str) -> HostHeap | CudaAllocator | None:
    """The byte counter for `device`, or None where the host has no usable one."""
    if device == "cuda":
        return CudaAllocator()
    try:
        return HostHeap()
    except OSError:
        return None


class OffHeap:
    """A growable array of signed 64-bit integers in anonymous mmap, filled with `fill`."""

    def __init__(self, fill: int = 0, capacity: int = 4096) -> None:
        self.fill = fill
        self.length = 0
        self._map = mmap.mmap(-1, capacity * WORD)
        self._view = memoryview(self._map).cast("q")
        if fill:
            self._view[:] = array("q", [fill]) * capacity

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> int:
        if not 0 <= index < self.length:
            raise IndexError(index)
        return self._view[index]

    def __setitem__(self, index: int, value: int) -> None:
        """Set `index`, growing the array (filled with `fill`) as far as needed."""
        if index >= len(self._view):
            self._grow(index + 1)
        self._view[index] = value
        if index >= self.length:
            self.length = index + 1

    def append(self, value: int) -> None:
        self[self.length] = value

    def __iter__(self) -> Iterator[int]:
        view = self._view
        return (view[i] for i in range(self.length))

    def values(self) -> list[int]:
        return self._view[: self.length].tolist()

    def _grow(self, needed: int) -> None:
        capacity = len(self._view)
        while capacity < needed:
            capacity *= 2
        bigger = mmap.mmap(-1, capacity * WORD)
        view = memoryview(bigger).cast("q")
        view[: len(self._view)] = self._view
        if self.fill:
            view[len(self._view) :] = array("q", [self.fill]) * (capacity - len(self._view))
        self._view.release()
        self._map.close()
        self._map, self._view = bigger, view
