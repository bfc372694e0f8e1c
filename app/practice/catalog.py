"""What the home screen lists: pack summaries and the card filter. Headless: no Textual here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from questions.levels import Level
from questions.library import Library, LoadedCard

Status = Literal["all", "due", "new", "later", "code"]
STATUSES: tuple[Status, ...] = ("all", "due", "new", "later", "code")


@dataclass(frozen=True)
class CardFilter:
    """The home screen's filter; `None` and empty text mean "any"."""

    pack: str | None = None
    level: Level | None = None
    tag: str | None = None
    status: Status = "all"
    """`due`: in today's queue (reviews due plus today's new cards); `new`: never practised;
    `later`: practised and not due today, the cards to study ahead (Anki's "review ahead");
    `code`: cards with a code task, whatever their state (the app's way to the tasks `grill task
    list` lists)."""
    text: str = ""
    """Every word must appear in the card's id, question, tags or key points (any case)."""

    def matches(self, loaded: LoadedCard, *, due: set[str], seen: Set[str]) -> bool:
        card = loaded.summary
        if self.pack is not None and loaded.pack != self.pack:
            return False
        if self.level is not None and card.level != self.level:
            return False
        if self.tag is not None and self.tag not in card.tags:
            return False
        if self.status == "due" and card.id not in due:
            return False
        if self.status == "new" and card.id in seen:
            return False
        if self.status == "later" and (card.id not in seen or card.id in due):
            return False
        if self.status == "code" and not card.code_task:
            return False
        return all(word in searchable_text(loaded) for word in self.text.lower().split())


def searchable_text(loaded: LoadedCard) -> str:
    card = loaded.summary
    parts = [card.id, card.question, *card.tags, *card.key_points]
    return " ".join(parts).lower()


def filter_cards(
    cards: Iterable[LoadedCard], card_filter: CardFilter, *, due: set[str], seen: Set[str]
) -> list[LoadedCard]:
    return [card for card in cards if card_filter.matches(card, due=due, seen=seen)]


def all_tags(cards: Iterable[LoadedCard]) -> list[str]:
    return sorted({tag for loaded in cards for tag in loaded.summary.tags})


@dataclass(frozen=True)
class PackSummary:
    name: str
    title: str
    cards: int
    seen: int
    due: int


def pack_summaries(library: Library, *, due: set[str], seen: Set[str]) -> list[PackSummary]:
    return [
        PackSummary(
            name=pack.info.name,
            title=pack.info.title,
            cards=len(pack.cards),
            seen=sum(loaded.id in seen for loaded in pack.cards),
            due=sum(loaded.id in due for loaded in pack.cards),
        )
        for pack in library.packs
    ]


def order_by_queue(cards: Sequence[LoadedCard], queue: Sequence[str]) -> list[LoadedCard]:
    """The cards named in `queue`, in the queue's order (ids no longer loaded are dropped)."""
    by_id = {loaded.id: loaded for loaded in cards}
    return [by_id[card_id] for card_id in queue if card_id in by_id]
