"""The card and pack model: the single source of truth for the loader, `grill lint` and the JSON Schema.

Every field carries a docstring under it; `use_attribute_docstrings` copies those into the
generated schema, so editors show the same words the loader enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal, NamedTuple, TypedDict, cast, overload

from pydantic import Field, StringConstraints, model_validator

from checkers.task import Contract, Grading, Strict, TaskSpec
from questions.levels import LEVELS as LEVELS  # re-exported: part of the card model
from questions.levels import Level as Level

FORMAT_VERSION = 1

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A string that must say something: empty or blank strings are rejected."""

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", max_length=80)]
"""Lower-case words joined by hyphens, used for ids that appear in file names and history."""
SLUG_RULE = (
    "2 to 80 of a-z, 0-9 and '-', starting and ending with a letter or digit, like 'retained-graph'"
)
"""The pattern above in words, for messages."""

Importance = Literal["must know", "should know", "nice to know"]


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


class ProblemDict(TypedDict):
    """A Problem as JSON (`grill lint --json`)."""

    path: str
    line: int
    column: int
    message: str
    hint: str


@dataclass(frozen=True)
class Problem:
    """A load or lint problem, located in a file so editors and terminals can jump to it."""

    path: str
    line: int
    column: int
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        # A file name that is not UTF-8 arrives with surrogate escapes, which no UTF-8 terminal,
        # JSON reader or widget accepts: show its bad bytes as U+FFFD instead. A control
        # character from the file (a key holding a newline) is shown escaped, so a problem
        # stays one line.
        for name in ("path", "message", "hint"):
            object.__setattr__(
                self, name, _printable(getattr(self, name)).translate(_CONTROL_ESCAPES)
            )

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.message}"
        return f"{text} (hint: {self.hint})" if self.hint else text

    def to_dict(self) -> ProblemDict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }


_CONTROL_ESCAPES = {code: repr(chr(code))[1:-1] for code in (*range(32), 127)}


def _printable(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that is not an escaped byte
        return text.encode("utf-8", "replace").decode("utf-8")


class CardSummary(NamedTuple):
    """What lists, filters, statistics and a mock's draw read of a card: everything a start
    needs, so that a start from the pack cache (`questions.cache`) reads no card file. (A
    named tuple: ten thousand of them are made on each start.)"""

    id: str
    question: str
    level: Level
    importance: Importance
    frequency: int
    tags: tuple[str, ...]
    key_points: tuple[str, ...]
    """Each key point's claim (home's search looks in them)."""
    basic_seconds: int
    solid_seconds: int
    code_task: bool

    @classmethod
    def of(cls, card: Card) -> CardSummary:
        return cls(
            id=card.id,
            question=card.question,
            level=card.level,
            importance=card.importance,
            frequency=card.frequency,
            tags=tuple(card.tags),
            key_points=tuple(point.point for point in card.key_points),
            basic_seconds=card.basic.seconds,
            solid_seconds=card.solid.seconds,
            code_task=card.code_task is not None,
        )


class CardUnavailable(Exception):
    """A card listed from the pack cache could not be read when it was opened: its file changed
    or went away since, and no longer holds a card that loads. The message says which file and
    why, as `grill lint` would."""


class _WholeCard:
    """`LoadedCard.card`: the card given, or else read through the card's `load` the first
    time it is asked for (a data descriptor, so the dataclass's own `__init__` sets it)."""

    @overload
    def __get__(self, loaded: None, owner: type) -> None: ...
    @overload
    def __get__(self, loaded: LoadedCard, owner: type) -> Card: ...
    def __get__(self, loaded: LoadedCard | None, owner: type) -> Card | None:
        if loaded is None:
            return None  # the field's default: no card given
        found: Card | None = loaded.__dict__.get("_card")
        if found is None:
            if loaded.load is None:
                raise TypeError("a LoadedCard needs its card, or its summary and a way to load it")
            found = loaded.load()
            loaded.__dict__["_card"] = found
        return found

    def __set__(self, loaded: LoadedCard, card: Card | None) -> None:
        loaded.__dict__["_card"] = card


@dataclass(frozen=True, eq=False, repr=False)
class LoadedCard:
    """A card as loaded, with where it came from. `card` is the whole card; a card listed from
    the pack cache reads it from its file the first time it is asked for (opening it to
    practise: CardUnavailable if the file no longer loads), and everything else reads
    `summary`, which is always there."""

    card: _WholeCard = _WholeCard()
    path: Path = Path()
    pack: str = ""
    summary: CardSummary = cast(CardSummary, None)
    """Made from `card` when a card is given."""
    load: Callable[[], Card] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        given = self.__dict__.get("_card")
        if given is not None:  # the card given decides (`replace(loaded, card=...)` too)
            object.__setattr__(self, "summary", CardSummary.of(given))
        elif self.summary is None or self.load is None:
            raise TypeError("a LoadedCard needs its card, or its summary and a way to load it")

    @classmethod
    def listed(
        cls, summary: CardSummary, path: Path, pack: str, load: Callable[[], Card]
    ) -> LoadedCard:
        """A card known by its summary, read whole through `load` when first asked for: what a
        start from the pack cache makes, ten thousand at a time, so `__init__` is skipped."""
        loaded = object.__new__(cls)
        loaded.__dict__.update(path=path, pack=pack, summary=summary, load=load, _card=None)
        return loaded

    @property
    def id(self) -> str:
        return self.summary.id

    @property
    def is_read(self) -> bool:
        """Whether the whole card is in memory (tests count what a start reads)."""
        return self.__dict__.get("_card") is not None

    def _key(self) -> tuple[object, ...]:
        return (self.path, self.pack, self.summary)

    def __eq__(self, other: object) -> bool:
        """Equal where path, pack and summary are; when both whole cards are read, they too."""
        if not isinstance(other, LoadedCard):
            return NotImplemented
        if self._key() != other._key():
            return False
        if self.is_read and other.is_read:
            return bool(self.card == other.card)
        return True

    def __hash__(self) -> int:
        return hash((self.path, self.pack, self.summary.id))

    def __repr__(self) -> str:  # never reads the card
        return f"LoadedCard(id={self.summary.id!r}, path={self.path!r}, pack={self.pack!r})"


@dataclass(frozen=True)
class Pack:
    manifest: Manifest
    root: Path
    cards: tuple[LoadedCard, ...]


class UnknownPack(ValueError):
    """Packs asked for by name that grill did not load; the message names them and those it has."""


@dataclass
class Library:
    """Everything grill loaded, and everything it could not."""

    packs: list[Pack] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def cards(self) -> list[LoadedCard]:
        return [card for pack in self.packs for card in pack.cards]

    def card(self, card_id: str) -> LoadedCard | None:
        return next((c for c in self.cards if c.id == card_id), None)

    def only(self, names: Sequence[str]) -> Library:
        """The named packs alone (every pack when none is named), keeping every load problem.
        Raises UnknownPack when a name matches no loaded pack."""
        known = {pack.manifest.name for pack in self.packs}
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UnknownPack(
                f"no pack named {', '.join(map(repr, unknown))}; "
                f"loaded packs: {', '.join(sorted(known)) or 'none'}"
            )
        chosen = [pack for pack in self.packs if not names or pack.manifest.name in names]
        return Library(packs=chosen, problems=self.problems)
