"""The grade of one snippet: a frozen, JSON-serializable value.

It travels unchanged from the sandbox child to `grill check --json`, to the TUI and into the
history, so every field has a stable name (see README, "How grading works").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

VerdictKind = Literal["clean", "leak", "refused", "error", "timeout", "limit"]
Pattern = Literal["flat", "sawtooth", "monotonic", "fragmentation"]

GRADED: frozenset[str] = frozenset({"clean", "leak"})

EXIT_CLEAN, EXIT_LEAK, EXIT_USAGE, EXIT_NOT_GRADED = 0, 1, 2, 3


@dataclass(frozen=True)
class Retained:
    """A tensor that outlived the loop while still holding a graph."""

    path: str
    """How to reach it from the snippet's names: `running`, `losses[17]`, `tracker.history[-1]`."""
    grad_fn: str
    graph_nodes: int
    saved_bytes: int
    line: int | None = None
    """Snippet line where it was assigned, when that can be found."""


@dataclass(frozen=True)
class ErrorInfo:
    """Why a snippet could not be graded: `kind` is the verdict or the exception type."""

    kind: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class Verdict:
    verdict: VerdictKind
    device: str
    steps: int = 0
    pattern: Pattern | None = None
    growth_bytes_per_step: float = 0.0
    samples: tuple[float, ...] = ()
    retained: tuple[Retained, ...] = ()
    message: str = ""
    hint: str = ""
    error: ErrorInfo | None = None
    output: str = ""
    """What the snippet printed (capped)."""
    extra: dict = field(default_factory=dict)
    """Further evidence (node counts per step, reserved bytes on CUDA...); keys may grow."""

    @property
    def graded(self) -> bool:
        return self.verdict in GRADED

    @property
    def exit_code(self) -> int:
        return {"clean": EXIT_CLEAN, "leak": EXIT_LEAK}.get(self.verdict, EXIT_NOT_GRADED)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["samples"] = list(self.samples)
        data["retained"] = [asdict(r) for r in self.retained]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        data = dict(data)
        data["samples"] = tuple(data.get("samples") or ())
        data["retained"] = tuple(Retained(**r) for r in data.get("retained") or ())
        if data.get("error") is not None:
            data["error"] = ErrorInfo(**data["error"])
        return cls(**data)

    @classmethod
    def not_graded(cls, verdict: VerdictKind, device: str, message: str,
                   line: int | None = None, kind: str | None = None, output: str = "") -> Verdict:
        return cls(verdict=verdict, device=device, message=message, output=output,
                   error=ErrorInfo(kind=kind or verdict, message=message, line=line))
