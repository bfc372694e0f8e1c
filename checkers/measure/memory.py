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

    def add(self, index: int, delta: int) -> None:
        """`self[index] += delta`, growing the array as `__setitem__` does (one call: the
        ledger counts per generation on every node it stamps)."""
        if index >= len(self._view):
            self._grow(index + 1)
        self._view[index] += delta
        if index >= self.length:
            self.length = index + 1

    def get(self, index: int) -> int:
        """`self[index]`, or `fill` past the end (and for a negative index)."""
        return self._view[index] if 0 <= index < self.length else self.fill

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


class TensorPeak:
    """The high-water mark of bytes held by tensors while a run goes on, as the allocator
    itself counts them: every allocation and free, forward, backward (a checkpoint's
    recomputation included), hooks and optimizer steps, whoever makes them.

    On CPU it is torch's CPU allocator's own count, which it reports to the profiler: the
    profiler runs (its memory reports on, its trace never kept) from `start` to `stop`, and
    the peak is the running sum's highest point over its memory events in time order. What
    was allocated before `start` is not counted, and neither is what is not a tensor (Python
    objects, the allocator's slack). On CUDA it is the caching allocator's
    `max_memory_allocated` after a reset at `start`, less what was allocated then.
    The profiler writes a line or two to the process's standard error when it starts and
    stops (kineto's log): those calls run with it pointed at /dev/null."""

    def __init__(self, device: str) -> None:
        import torch

        self._torch = torch
        self._cuda = device == "cuda"
        self._running = False
        self._base = 0
        self.peak = 0

    def start(self) -> None:
        torch = self._torch
        if self._cuda:
            torch.cuda.reset_peak_memory_stats()
            self._base = torch.cuda.memory_allocated()
        else:
            from torch._C._profiler import _ExperimentalConfig
            from torch.autograd import (
                ProfilerActivity,
                ProfilerConfig,
                ProfilerState,
                _enable_profiler,
                _prepare_profiler,
            )

            config = ProfilerConfig(
                ProfilerState.KINETO, False, True, False, False, False, _ExperimentalConfig(), ""
            )
            activities = {ProfilerActivity.CPU}
            with _quiet():
                _prepare_profiler(config, activities)
                _enable_profiler(config, activities)
        self._running = True

    def stop(self) -> int:
        """Stop (once) and return the peak in bytes above the start."""
        if not self._running:
            return self.peak
        self._running = False
        torch = self._torch
        if self._cuda:
            self.peak = max(torch.cuda.max_memory_allocated() - self._base, 0)
            return self.peak
        from torch.autograd import _disable_profiler

        with _quiet():
            events = _disable_profiler().events()
        cpu = torch._C._autograd.DeviceType.CPU
        changes = sorted(
            (event.start_ns(), event.nbytes())  # type: ignore[attr-defined]  # (not in torch's stub)
            for event in events
            if event.name() == "[memory]" and event.device_type() == cpu
        )
        held = peak = 0
        for _, change in changes:
            held += change
            peak = max(peak, held)
        self.peak = peak
        return peak


class _quiet:
    """Standard error (the file descriptor, which C++ writes to) pointed at /dev/null."""

    def __enter__(self) -> None:
        import os

        self._saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)

    def __exit__(self, *exc: object) -> None:
        import os

        os.dup2(self._saved, 2)
        os.close(self._saved)
