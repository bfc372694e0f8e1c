"""The grade of one snippet: a frozen, JSON-serializable value.

It travels from the grader to `grill check --json`, to the TUI and into the history, so every
field has a stable name (see docs/grading.md).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Literal, TypedDict, get_args

from checkers.measurements import HeldPass, Series

Device = Literal["auto", "cpu", "cuda"]
"""Where a snippet runs: `auto` takes CUDA when a device is there."""
DEVICES: tuple[Device, ...] = get_args(Device)

Graded = Literal["clean", "leak", "wrong"]
"""The snippet ran and was judged: no graph kept; graph kept; or a task's contract broken."""
NotGraded = Literal["refused", "error", "timeout", "limit", "hang"]
"""Why a run has no grade: refused by the policy, raised (or grill failed), out of time, or
over a limit; and for a ranked run, `hang`: its ranks stopped making progress, each waiting
on another (a collective one rank never joins, mismatched collectives, a rank gone early).
The sandbox's run status uses the same words (`Outcome.status`), all but `hang`, which only
the grader of a ranked run gives."""
VerdictKind = Literal[Graded, NotGraded]
Pattern = Literal["flat", "sawtooth", "monotonic", "fragmentation"]

GRADED: frozenset[str] = frozenset(get_args(Graded))

EXIT_CLEAN, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_GRADED, EXIT_GRILL = 0, 1, 2, 3, 4
"""0 clean; 1 leak or wrong; 2 a usage error; 3 the snippet could not be graded (refused,
raised, ran out of time or memory, built no graph, tampered with the grader); 4 grill itself
could not grade (its sandbox would not start, no CUDA device, a fault of grill's own)."""

GRILL_FAULTS: frozenset[str] = frozenset({"internal", "sandbox", "device"})
"""Error kinds that are grill's (or its machine's) failure, never the snippet's."""


GRILL_NOISE = re.compile(
    r"^(?:Error in cpuinfo: [^\n]*"
    r"|\[W\d{4} [\d:.]+ NNPACK\.cpp:\d+\] Could not initialize NNPACK![^\n]*"
    r"|\[W\d{4} [\d:.]+ CPUAllocator\.cpp:\d+\] Memory block of unknown size was allocated"
    r" before the profiling started[^\n]*"
    r"|USDT:[^\n]*ActivityProfiler[^\n]*\] profiler_(?:start|stop))\n?",
    re.MULTILINE,
)
"""Lines torch writes because of grill, not because of the snippet: cpuinfo and NNPACK
failing to read the CPU's description where the sandbox hides /proc/cpuinfo and /sys, and
the profiler's notes while grill counts a run's peak memory. Never shown as the snippet's."""


def shown_output(text: str) -> str:
    """What the snippet printed, without the lines grill itself caused (GRILL_NOISE)."""
    return GRILL_NOISE.sub("", text) if text else text


@dataclass(frozen=True)
class Retained:
    """Something that still holds graph the run no longer needs."""

    path: str
    """How to reach it from the snippet's names: `running`, `losses[17]`, `tracker.history[-1]`."""
    grad_fn: str
    graph_nodes: int
    saved_bytes: int
    line: int | None = None
    """Snippet line where it was stored, when that can be found."""
    steps: int = 1
    """How many steps' graphs it holds."""


@dataclass(frozen=True)
class Expectation:
    """One promise of a code task's contract, and whether this run kept it."""

    what: str
    """`trains`, `updates`, `host_syncs`, `backward_passes`, `same:<name>`, `exact:<name>`,
    `dtype:<name>`, `bytes:<name>`, `peak_memory`, `alive_bytes`, or a ranked run's `in_sync`, `per_update`..."""
    met: bool
    message: str
    tolerance_used: float = 0.0
    """For a `same:<name>` kept: the largest share of its tolerance one number used (0 when
    they are equal, 1 at the edge), which says how close a fix that passes came to failing."""
    advice: str = ""
    """For a promise broken: what to do, written where the fix's figure was compared with the
    solution's, so it follows the task (how often the solution reads or backpropagates) and
    never contradicts it. Empty where the promise's kind has one piece of advice for all."""


@dataclass(frozen=True)
class Training:
    """What the run did, counted by the grader."""

    optimizer_steps: int = 0
    updates: int = 0
    """Optimizer steps that had gradients to apply."""
    backward_calls: int = 0
    graph_nodes: int = 0
    """Autograd nodes built over the whole run (0: nothing was trained)."""


@dataclass(frozen=True)
class ErrorInfo:
    """Why a snippet could not be graded: `kind` is the verdict or the exception type."""

    kind: str
    message: str
    line: int | None = None


class Extra(TypedDict, total=False):
    """`Verdict.extra`: further evidence, each key where the run has it; keys may grow."""

    dead_weight: Series
    reach: Series
    timings: dict[str, float]
    peak_bytes: int
    unwatched_nodes: int
    reserved: list[int]
    """Bytes the CUDA allocator reserved per step, above the first step's."""
    retained_total: int
    """Holders of the leak, of which `retained` lists the first few."""
    held_passes: list[HeldPass]
    """Loops whose passes were held whole (`checkers.measurements.HeldPass`)."""
    traceback: str
    """The snippet's traceback, when it raised."""


@dataclass(frozen=True)
class RankReport:
    """One rank of a ranked run (`grill check --ranks N`), in the verdict of the whole run."""

    rank: int
    verdict: VerdictKind
    """The rank's own verdict, as a single run would get it (`error` for a rank that was
    ended before it finished, `hang` for one that waited when the run stalled)."""
    state: str
    """`finished` (its snippet ran to its end, or to its budget), `waiting` (inside a
    collective when the run was ended), `running` (elsewhere in its code), `failed` (it
    raised, was refused, crashed or passed a limit), or `ended` (stopped before it answered)."""
    summary: str
    """One line: `waits in all_reduce at line 31`, `finished at line 40`, `leaks: ...`."""
    line: int | None = None
    """The snippet's line it waits at, finished at, or failed at."""
    call: str | None = None
    """What it waits in (`all_reduce`, `barrier`, `backward`...), when it waits."""
    steps: int = 0
    collectives: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per collective it made (DDP's included): `{calls, bytes}`."""
    per_update: float | None = None
    """Collectives per optimizer update (the median over its updates)."""


@dataclass(frozen=True)
class Verdict:
    verdict: VerdictKind
    device: str
    steps: int = 0
    """Training steps observed (optimizer steps; backward passes where there is no optimizer)."""
    pattern: Pattern | None = None
    growth_bytes_per_step: float = 0.0
    samples: tuple[float, ...] = ()
    """Memory per training step, above the first sample."""
    retained: tuple[Retained, ...] = ()
    message: str = ""
    hint: str = ""
    error: ErrorInfo | None = None
    output: str = ""
    """What the snippet printed (capped)."""
    expectations: tuple[Expectation, ...] = ()
    """The task contract's promises, when the snippet was graded as a task's fix."""
    notes: tuple[str, ...] = ()
    """Remarks that do not change the verdict (a bounded window of kept graph, say)."""
    coverage: str = ""
    """What part of the run the grader saw: the whole run, or where its budget stopped it."""
    training: Training = field(default_factory=Training)
    extra: Extra = field(default_factory=Extra)
    """Further evidence (the dead-weight series, reserved bytes on CUDA...); keys may grow."""
    ranks: tuple[RankReport, ...] = ()
    """For a ranked run, each rank; the verdict above is the whole run's (a leak on any rank
    is a leak, and its message names the ranks)."""

    @property
    def graded(self) -> bool:
        return self.verdict in GRADED

    @property
    def exit_code(self) -> int:
        if self.verdict == "clean":
            return EXIT_CLEAN
        if self.graded:
            return EXIT_FAILED
        if self.error is not None and self.error.kind in GRILL_FAULTS:
            return EXIT_GRILL
        return EXIT_NOT_GRADED

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def not_graded(
        cls,
        verdict: VerdictKind,
        device: str,
        message: str,
        line: int | None = None,
        kind: str | None = None,
        output: str = "",
    ) -> Verdict:
        return cls(
            verdict=verdict,
            device=device,
            message=message,
            output=shown_output(output),
            error=ErrorInfo(kind=kind or verdict, message=message, line=line),
        )
