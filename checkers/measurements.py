"""The grading job's JSON, both ways: what the parent asks for (`GradePayload`) and what the
sandbox child measures (`Measurements`, from `checkers.measure.grade.measure`) for the parent to judge
(`checkers.judge`) and hold against a task's contract (`checkers.judge.contract`).

Types only: no torch, nothing to run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, Required, TypedDict

if TYPE_CHECKING:
    from checkers.verdict import NotGraded


MAX_RANKS = 16
"""The most ranks one ranked run may have (`grill check --ranks N`, a code task's `ranks`):
on a laptop's cores more only queue behind each other."""


class RunFailed(Exception):
    """How a sandbox job ends its run without a result: the sandbox sends it as the run's
    status (the snippet was refused, raised, or ran out of memory), with the candidate's
    line and their own traceback."""

    def __init__(
        self,
        status: NotGraded,
        kind: str,
        message: str,
        line: int | None = None,
        traceback: str = "",
    ):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.line = line
        self.traceback = traceback


class GradePayload(TypedDict, total=False):
    """`checkers.measure.grade.grade_job`'s arguments; only the source and the budget are required."""

    source: Required[str]
    seconds: Required[float]
    filename: str
    device: str
    steps: int | None
    seed: int
    compare: list[str]
    peak: bool
    print_limit: int
    """Characters of the snippet's printed text kept (then a note that it was cut)."""
    own_file: bool
    """Place the source, read-only, in the run's folder as the file it runs as (`__file__`,
    `sys.argv[0]`): set by the sandbox's callers, whose runs have a folder of their own."""
    rank: int
    """Set for a rank of a ranked run (`grill check --ranks`): which one, of `world`."""
    world: int


class TrainingCounts(TypedDict):
    optimizer_steps: int
    updates: int
    backward_calls: int
    graph_nodes: int
    reused_nodes: int
    higher_order: bool
    walk_truncated: bool
    per_update: NotRequired[dict[str, list[int]]]
    """Per counted event (`checkers.measure.rates.COUNTED`: host syncs, backward passes), how
    many each optimizer step's window held (at most 256 windows; the first holds the set-up)."""


class Series(TypedDict):
    """A per-generation (or per-backward) series in at most SERIES_BUCKETS buckets
    (`checkers.measure.grade.bucketed`)."""

    lows: list[int]
    highs: list[int]
    first: list[int]
    """The first index each bucket covers."""
    steps: list[int]
    loops: list[int]
    releases: list[int]
    width: int


class Summary(TypedDict):
    """One holder's graph (`checkers.measure.grade.summarize`)."""

    grad_fn: str
    nodes: int
    saved_bytes: int
    line: int | None
    keys: list[int] | None
    """The lowest and highest generation its nodes carry."""
    generations: int
    steps: int
    used: bool
    passes: int
    root_used: bool
    numel: int | None
    view: bool
    node_only: bool
    unwatched: NotRequired[int]
    """Nodes the ledger had not seen made (adopted by the scan)."""


class Holder(Summary):
    """Something a scan found holding graph, and how the snippet reaches it."""

    path: str
    stored: str
    """The path it was first seen under: where it was stored."""
    parts: NotRequired[list[str]]
    """The path's steps (`history`, `[3]`, `['loss']`); an elided middle is `…`."""
    kinds: NotRequired[list[str]]
    """What each step reached: `list`, `tuple`, `dict`, `tensor`, `object`..."""
    in_container: NotRequired[int]
    """Holders the scan found in the same container (up to its first position), all of
    them, where the scan summarises at most a few hundred."""
    used_after: NotRequired[bool]
    """A backward pass ran through its graph after the scan: it was waiting, not dead weight."""
    died: NotRequired[int | None]
    """The generation its root node died in; None while alive at the end."""


class ScanRecord(TypedDict):
    generation: int
    step: int
    holders: list[Holder]
    capped: bool
    unread: NotRequired[int]
    """Objects the scan's caps left unread."""
    reason: NotRequired[str]
    """`growth`, `clock`, `pass` or `end`."""
    loop: NotRequired[int]
    first: NotRequired[int]
    last: NotRequired[int]
    """A `pass` scan's loop line and the generations of the pass it ran at the end of."""


class HeldPass(TypedDict):
    """A loop whose passes were held whole: the graph of nearly every iteration still alive,
    past its last use, when the pass ended; or whose last backward ran back through nearly
    all the pass's earlier ones (`checkers.measure.grade.held_passes`)."""

    series: NotRequired[str]
    """`dead_weight` (the default) or `reach`."""
    loop: int
    """The loop's line."""
    parent: int
    """The line of the loop it ran inside (0: none)."""
    passes: int
    """Its passes long enough to tell."""
    held_passes: int
    """Of those, the ones held whole."""
    first: int
    last: int
    """The longest held pass's first and last generations..."""
    iterations: NotRequired[int]
    """... its iterations..."""
    held: int
    """... and how many of its generations' graph was still alive at its end (for `reach`:
    how many of its earlier backward passes its last one ran back through)."""
    released: bool
    """That graph was let go before the run ended (when an enclosing loop moved on)."""
    step_first: NotRequired[int]
    step_last: NotRequired[int]


class Fingerprint(TypedDict, total=False):
    """A compared value (`checkers.measure.fingerprint`): its shape and numbers, or why there are none."""

    missing: bool
    unsupported: str
    shape: str
    numbers: list[float | str]
    """Non-finite numbers travel as strings (`nan`, `inf`)."""
    parts: list[tuple[str, list[int], int]]
    """Whose the numbers are, in order: `[label, dims, count]` (`['.fc.weight', [4, 8], 32]`)."""
    fold: int
    """How many numbers each of `numbers` is the mean of (1: none folded)."""
    python_numbers: list[str]
    """The labels of the parts that are Python numbers, not tensors."""
    exact: list[tuple[str, str]]
    """The leaves compared exactly, in order: `[label, repr]` of each string, None and bool
    (a report's reasons, a flag)."""
    dtypes: list[tuple[str, str]]
    """`[label, dtype]` of each numeric leaf: `torch.float16`, or `int`/`float` for a Python
    number."""
    bytes: int
    """The bytes its tensors' storages hold, each storage counted once."""


class Collective(TypedDict):
    calls: int
    bytes: int


class RankedMeasurements(TypedDict):
    """A rank's communication and gradients (`checkers.measure.ranked`)."""

    rank: int
    world: int
    collectives: dict[str, Collective]
    """Per collective (`all_reduce`, `broadcast`...), over the whole run."""
    per_update: list[list[int]]
    """Per optimizer update (at most 256): [calls, bytes, calls inside a backward pass] of
    the collectives made since the update before (the first holds the set-up: DDP's
    broadcast of the weights)."""
    after_updates: list[int]
    """[calls, bytes, calls inside a backward pass] after the last update."""
    updates: int
    grads: list[list[float]]
    """Per update (at most 256): [sum, sum of squares] of the gradients it stepped on."""
    params: list[float]
    """[sum, sum of squares] of the optimizers' parameters at the end."""
    ended_at: int | None
    """The line whose sys.exit() ended the snippet early, if one did."""


class Measurements(TypedDict):
    device: str
    stopped_by: str
    """`end`, `budget` or `steps`."""
    seconds: float
    training: TrainingCounts
    dead_weight: Series
    reach: Series
    memory: list[int]
    reserved: list[int]
    peak_bytes: int
    alive_bytes: NotRequired[int]
    """Tensor bytes alive at the end of the run, wherever kept (`checkers.measure.alive`)."""
    scans: list[ScanRecord]
    held_passes: NotRequired[list[HeldPass]]
    values: dict[str, Fingerprint]
    problem: str | None
    unwatched_nodes: int
    timings: NotRequired[dict[str, float]]
    """Absent where the run could not be measured."""
    sandbox_notes: NotRequired[list[str]]
    """What the sandbox changed to run the snippet (a DataLoader's workers kept in process)."""
    ranked: NotRequired[RankedMeasurements]
    """For a rank of a ranked run."""


def format_bytes(amount: float) -> str:
    """Bytes as people read them, for messages and the memory curve."""
    if abs(amount) < 1024:
        return f"{amount:.0f} B"
    if abs(amount) < 1024**2:
        return f"{amount / 1024:.1f} KB"
    if abs(amount) < 1024**3:
        return f"{amount / 1024**2:.1f} MB"
    return f"{amount / 1024**3:.2f} GB"
