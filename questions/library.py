"""What a loaded library holds: packs, their cards as summaries read whole when opened, and the
problems met loading them. Plain Python, no pydantic: a start from the pack cache builds all of
it without importing the card format (`questions.model`), which only reading a card file
needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypedDict, cast, overload

from questions.levels import Importance, Level

if TYPE_CHECKING:
    from questions.model import Card


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
    ranks: int = 0
    """The ranks a code task runs as (`grading.ranks`); 0 for a single run or no code task."""

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
            ranks=card.code_task.grading.ranks or 0 if card.code_task is not None else 0,
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


class PackInfo(NamedTuple):
    """A pack's manifest (`pack.yaml`) as loaded."""

    name: str
    title: str
    description: str
    track: tuple[str, ...] = ()
    """The pack's code tasks in the order to work through them (`pack.yaml`'s `track`); empty
    when the pack leaves the order to grill (`app.practice.tasks.track_order`)."""


@dataclass(frozen=True)
class Pack:
    info: PackInfo
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
        known = {pack.info.name for pack in self.packs}
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UnknownPack(
                f"no pack named {', '.join(map(repr, unknown))}; "
                f"loaded packs: {', '.join(sorted(known)) or 'none'}"
            )
        chosen = [pack for pack in self.packs if not names or pack.info.name in names]
        return Library(packs=chosen, problems=self.problems)
