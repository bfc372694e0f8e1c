"""The card and pack file format: the single source of truth for the loader, `grill lint` and the
JSON Schema.

Every field carries a docstring under it; `use_attribute_docstrings` copies those into the
generated schema, so editors show the same words the loader enforces. What a loaded library
holds (`questions.library`) needs none of this: a start from the pack cache never imports
pydantic.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from checkers.task import Contract, Grading, Strict, TaskSpec
from questions.levels import Importance, Level

FORMAT_VERSION = 1

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A string that must say something: empty or blank strings are rejected."""

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", max_length=80)]
"""Lower-case words joined by hyphens, used for ids that appear in file names and history."""
SLUG_RULE = (
    "2 to 80 of a-z, 0-9 and '-', starting and ending with a letter or digit, like 'retained-graph'"
)
"""The pattern above in words, for messages."""


class KeyPoint(Strict):
    point: Text
    """One short claim a good answer makes."""
    signals: list[Text] = Field(default_factory=list)
    """Words or phrases whose presence in a typed answer suggests the point was made."""


class TimedAnswer(Strict):
    text: Text
    """The answer, as a candidate would say it."""
    seconds: int = Field(ge=5, le=600)
    """How long saying it should take (about 20 s for basic, 50 s for solid)."""


class Tiers(Strict):
    """What a candidate at each seniority is expected to say."""

    junior: Text
    middle: Text
    senior: Text
    principal: Text


class Example(Strict):
    language: Text
    """Language of the code, for syntax highlighting (`python` is checked to parse)."""
    code: Text
    """The code itself."""
    note: Text
    """What the example shows."""


class FollowUp(Strict):
    question: Text
    answer: Text


class RedFlag(Strict):
    flag: Text
    """Something that, said in an interview, costs the question."""
    signals: list[Text] = Field(default_factory=list)
    """Phrases whose presence in a typed answer suggests the flag was said."""


class TriedFix(Strict):
    """A fix a candidate might really try, with the verdict it must get: the contract is
    tested against it like code (`grill lint --run` grades each one)."""

    name: Text
    """What the fix does, in a few words ("divides the learning rate instead of the loss")."""
    code: Text
    """The whole fixed snippet, as a candidate would submit it."""
    expect: Literal["clean", "wrong", "leak", "hang", "error"]
    """How it must grade: `clean` for an alternative correct fix, `wrong` for one that breaks
    what the prompt keeps, `leak` for one that still keeps graphs alive; for a ranked task
    also `hang` (its ranks wait on each other for ever) or `error` (a rank raises, as DDP
    does on parameters it expected gradients for)."""
    why: Text
    """Why it grades so: what it keeps or breaks of the prompt."""


class CodeTask(Strict):
    prompt: Text
    """What the candidate must do to the starter code."""
    starter: Text
    """Code shown in the editor; it must fail as `starter_fails` says."""
    solution: Text
    """Reference solution, revealed only after an attempt; it must grade `clean`."""
    hints: list[Text] = Field(min_length=1)
    """Hints in the order they are offered."""
    starter_fails: Literal["leak", "wrong", "hang", "error"] = "leak"
    """How the starter must grade: `leak` (it keeps graphs alive), or `wrong` (it breaks the
    contract: it computes something other than the solution, or peaks over the memory budget);
    a ranked task's (`grading.ranks`) may also `hang` (its ranks stop making progress, each
    waiting on another) or raise an `error` (torch.distributed's own, such as DDP's on unused
    parameters), the bug the task is about."""
    contract: Contract
    grading: Grading = Field(default_factory=Grading)
    tried_fixes: list[TriedFix] = Field(default_factory=list)
    """Fixes a candidate might try, each graded by `grill lint --run` and required to get its
    `expect`ed verdict: wrong ones the contract must catch, and correct ones it must let pass."""

    @model_validator(mode="after")
    def _ranked_outcomes_need_ranks(self) -> CodeTask:
        """A hang, an error of torch.distributed and a contract on communication only exist
        for a task run as ranks."""
        if self.grading.ranks is not None:
            return self
        if self.starter_fails in ("hang", "error"):
            raise ValueError(
                f"starter_fails: {self.starter_fails} needs a ranked task (grading: ranks: N)"
            )
        if any(fix.expect in ("hang", "error") for fix in self.tried_fixes):
            raise ValueError(
                "a tried fix that must hang or raise needs a ranked task (grading: ranks: N)"
            )
        if self.contract.communication is not None:
            raise ValueError("contract.communication needs a ranked task (grading: ranks: N)")
        return self

    @property
    def spec(self) -> TaskSpec:
        """The task as the grader takes it."""
        return TaskSpec(
            solution=self.solution,
            starter=self.starter,
            contract=self.contract,
            grading=self.grading,
        )


class Card(Strict):
    id: Slug
    """Unique across every loaded pack; history is keyed by it, so never reuse one."""
    question: Text
    """The question as an interviewer asks it."""
    level: Level
    """Where the question is usually asked."""
    importance: Importance
    frequency: int = Field(ge=0, le=100)
    """How often it comes up in interviews, in percent."""
    tags: list[Slug] = Field(min_length=1)
    key_points: list[KeyPoint] = Field(min_length=3, max_length=7)
    """The 3 to 7 claims a good answer makes."""
    basic: TimedAnswer
    """A ~20 s answer."""
    solid: TimedAnswer
    """A ~50 s answer."""
    tiers: Tiers
    deep_dive: Text
    """Markdown."""
    examples: list[Example] = Field(min_length=1)
    follow_ups: list[FollowUp] = Field(min_length=1)
    red_flags: list[RedFlag] = Field(min_length=1)
    code_task: CodeTask | None = None
    sources: list[Text] = Field(default_factory=list)
    """Where the card's facts were checked (documentation pages, source files with their
    release): for authors and reviewers, never shown in practice."""


class Manifest(Strict):
    """`pack.yaml` at the root of a pack folder."""

    name: Slug
    """Short id of the pack."""
    title: Text
    description: Text
    format_version: Literal[1]
    """Card format version this pack is written for."""
    track: list[Slug] = Field(default_factory=list, max_length=10_000)
    """The pack's code tasks (card ids) in the order to work through them, easy before hard, as
    `grill task list` lists them and `grill task next` offers them; tasks left out follow in
    grill's own order (by level, ranked runs last). Each must be a code task of this pack."""
