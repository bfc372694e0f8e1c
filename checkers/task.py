"""A code task as the grader takes it: the card model's own types (`questions.model.CodeTask`
holds these), validated once where the card is read, so the grader and the card format share
one definition of a contract and of how a run is watched.

Imported by the parent only (pydantic, no torch); the sandbox child receives plain data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from checkers.measurements import MAX_RANKS
from checkers.verdict import Device

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=80)]
"""A Python name."""

DEFAULT_SECONDS = 60.0
"""The budget of one run: the grader watches the snippet to its end or for this long."""


class Strict(BaseModel):
    """The card format's rules for every part: unknown keys, wrong types and edits refused;
    each field's docstring becomes its description in the JSON Schema."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True
    )


class Compared(Strict):
    """A value the fix must compute as the reference solution does."""

    name: Identifier
    """A module-level name both leave behind: a number, a tensor, a list, tuple or dict of
    them, an nn.Module (compared by its parameters and buffers), or an optimizer (compared by
    its groups' settings, such as lr and momentum, and its per-parameter state)."""
    rtol: float = Field(default=1e-4, ge=0, le=1)
    """Relative tolerance."""
    atol: float = Field(default=1e-6, ge=0, le=1)
    """Absolute tolerance."""
    tensors: bool = False
    """When true, a part the solution leaves as a tensor must be a tensor in the fix too: a
    Python number (`.item()`) with the same value is refused, for prompts that keep a total
    on the device."""
    dtype: bool = False
    """When true, every tensor in it has the solution's dtype (and every Python number its
    type): for prompts that say "keep it in float16" or "keep the counts integers"."""
    bytes: Literal["same", "at_most"] | None = None
    """The bytes its tensors hold (each storage once, so a view and its base count once),
    against the solution's: `same` (10% of slack) or `at_most`. For prompts that say "do not
    copy it" or "do not keep a float32 copy". Unset: not checked.

    Strings, None and booleans in a value are always compared exactly (a report's reasons, a
    flag), whatever the tolerances; numbers and tensors within them."""


class Communication(Strict):
    """What a ranked task's fix must do between its ranks (`grading.ranks`), measured on
    every rank: every collective a rank makes, DDP's gradient all-reduces included, and the
    gradients each rank steps on, against the reference solution run with as many ranks."""

    in_sync: bool = True
    """Every rank steps on the same gradients at every optimizer update, and the ranks end
    with the same parameters: a missed all-reduce, or a `no_sync()` the last micro-batch never
    leaves, breaks it."""
    per_update: Literal["same", "at_most"] | None = None
    """Collectives a rank makes per optimizer update (the median over its updates), against
    the solution's: `same` as many, or `at_most` as many. So syncing every micro-batch (four
    all-reduces an update) and syncing once per update (one) are told apart. Unset: not
    checked."""
    bytes_per_update: Literal["same", "at_most"] | None = None
    """Bytes a rank sends through its collectives per update, against the solution's (10% of
    slack for `same`). Unset: not checked."""
    averaged: bool = False
    """The gradients of the first update match the solution's (rtol 1e-3): gradients summed
    over the ranks instead of averaged (world size times larger), or never reduced, break it."""


class PerUpdate(Strict):
    """How the fix trains, counted per optimizer update (the median over the run's updates,
    so what runs once before or after the loop does not count) against the solution's under
    the same seed: `same` as many, `at_most` or `at_least` as many. Unset: not checked."""

    host_syncs: Literal["same", "at_most"] | None = None
    """Calls that hand a tensor's value to the host: `.item()`, `.tolist()`, `.numpy()`,
    `.cpu()`, `.to("cpu")` of a tensor on an accelerator, `float()`, `int()` or `bool()` of a
    tensor (an `if` on one), formatting or printing one. Counted as calls, so a CPU run counts
    what a CUDA run would wait for. `at_most` says "no `.item()` each step"."""
    backward_passes: Literal["same", "at_least"] | None = None
    """Backward passes (and `torch.autograd.grad` calls) per update: `same` says "one
    backward per step" where a fix could run one per chunk; `at_least` is what `trains`
    already checks over the whole run."""


class Contract(Strict):
    """What the fixed code must still do, checked on the same run against the reference
    solution under the same seed. A fix that breaks it grades `wrong`, whatever its memory."""

    trains: bool = True
    """The fix runs at least as many backward passes and optimizer updates that change the
    model as the solution does, over the whole run (deleting the training, training fewer
    steps, or detaching the loss before backward breaks this). Exactly as many backward passes
    per update: `per_update.backward_passes: same`."""
    same_as_solution: list[Compared] = Field(min_length=1)
    """Values compared with the solution's at the end of the run."""
    peak_memory: float | None = Field(default=None, gt=0, lt=1)
    """When set: the fix's peak memory (host heap on CPU, allocated bytes on CUDA) must stay
    under this fraction of the starter's. For lessons about memory that peaks rather than
    grows (activation checkpointing, activation size)."""
    per_update: PerUpdate | None = None
    """How the fix trains, per optimizer update: host synchronisations, backward passes."""
    alive_bytes: Literal["at_most"] | None = None
    """`at_most`: the bytes of every tensor still alive at the end of the run (after a garbage
    collection; wherever kept: a module's parameters and buffers, another name, a container,
    an attribute, a gradient; each storage once; grill's own not counted) are at most the
    solution's, with 10% of slack. For prompts that say "do not keep a float32 copy" or "do
    not keep the whole history", where a fix could keep it under a name the contract does not
    compare. Unset: not checked."""
    communication: Communication | None = None
    """For a ranked task (`grading.ranks`): what its ranks must send each other."""


class Grading(Strict):
    """How the checkers run a code task."""

    device: Device = "auto"
    """Where to run: `auto` takes CUDA when available."""
    seconds: float = Field(default=DEFAULT_SECONDS, ge=5, le=600)
    """Wall-clock budget for one run. The grader watches the snippet to its end; a run that
    outlasts the budget is graded on the part it saw, and the verdict says so."""
    steps: int | None = Field(default=None, ge=1, le=100_000)
    """Stop watching after this many training steps (optimizer updates); unset, the run is
    watched to its end."""
    seed: int = Field(default=0, ge=0)
    """torch and `random` are seeded with this before the run, so a fix and the reference
    solution see the same data and the same initial weights."""
    ranks: int | None = Field(default=None, ge=1, le=MAX_RANKS)
    """Run the code as this many ranks, as `torchrun --nproc-per-node N` would (each with
    RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set, torch.distributed on gloo); each rank
    is graded and held to the contract against the same rank of the solution. Unset: one
    plain run, where torch.distributed is refused."""


class TaskSpec(Strict):
    """What grading a fix needs: the reference, the starter, the contract, the run."""

    solution: str
    starter: str = ""
    contract: Contract
    grading: Grading = Grading()
