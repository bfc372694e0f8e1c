"""What one sandboxed run may use; the defaults fit a small training loop on a laptop."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TypedDict, cast

from checkers.measurements import MAX_RANKS as MAX_RANKS  # (the sandbox enforces it)

MiB = 1024 * 1024


class LimitValues(TypedDict):
    """`Limits.to_dict()`: a run's limits as the child applies them."""

    memory_bytes: int
    cpu_seconds: int
    wall_seconds: float
    output_bytes: int
    result_bytes: int
    processes: int
    open_files: int
    file_bytes: int
    scratch_bytes: int
    ranked_memory_bytes: int
    stall_seconds: float


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 2048 * MiB
    """Address space a run may add to the warm worker's (RLIMIT_AS; not applied on CUDA,
    whose driver reserves huge virtual ranges)."""
    cpu_seconds: int = 60
    """CPU time of the run's process (RLIMIT_CPU)."""
    wall_seconds: float = 30.0
    """Default wall-clock timeout, from request to result."""
    output_bytes: int = 64 * 1024
    """Printed text kept; later prints are dropped with a note. Raw writes past twice this
    (plus 64 KiB for warnings) stop the run with a `limit` outcome."""
    result_bytes: int = 4 * MiB
    """Largest result message the parent accepts."""
    processes: int = 32
    """Tasks (processes and threads) in the sandbox's user namespace (RLIMIT_NPROC)."""
    open_files: int = 256
    """Open file descriptors (RLIMIT_NOFILE)."""
    file_bytes: int = 1 * MiB
    """Largest file the run may write (RLIMIT_FSIZE)."""
    scratch_bytes: int = 64 * MiB
    """All the files a run may keep in its scratch folder: the size of bubblewrap's tmpfs;
    without bubblewrap, measured every 0.1 s and the run stopped past it. The ranks of a
    ranked run share one folder, and so this limit."""
    ranked_memory_bytes: int = 4096 * MiB
    """Memory the ranks of a ranked run may add together, above the warm worker each starts
    from (resident memory, measured every 0.25 s; each rank also has `memory_bytes`)."""
    stall_seconds: float = 3.0
    """A ranked run whose ranks have all sat idle this long (no CPU time, no result), with
    every rank that has not finished waiting inside a collective, is ended as a hang."""

    @property
    def raw_output_bytes(self) -> int:
        return 2 * self.output_bytes + 64 * 1024

    def to_dict(self) -> LimitValues:
        return cast(LimitValues, asdict(self))  # its fields, by name
