"""Today's queue, built as Anki builds a deck's: what is due, then new cards up to daily limits.

Per pack: its cards due by the end of today (reviews, and cards still in learning), most
overdue first, then its never-seen cards in the pack's order, up to the pack's own daily limit
of new cards (less those of the pack introduced today) and never beyond what the overall limit
leaves (the limit over every pack, less every card introduced today). Every pack together:
every due card, most overdue first, then new cards taken from the packs in turn (one from each,
then a second from each...), each pack within its own limit, until the overall limit is met.
So on day one each pack offers its new cards, and "all packs" is a mix of them, not ten cards
of the first pack.

Headless and pure: the history reads the file and hands the facts in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Seen:
    """A card practised before: when it is due, and whether it is still being learnt (FSRS's
    learning or relearning state, with steps of minutes) rather than in review."""

    due: datetime
    learning: bool = False


@dataclass(frozen=True)
class DayCounts:
    """What a queue holds today, as Anki counts it: reviews due, cards in learning, new cards."""

    reviews: int = 0
    learning: int = 0
    new: int = 0

    @property
    def cards(self) -> int:
        return self.reviews + self.learning + self.new


@dataclass(frozen=True)
class TodaysQueue:
    cards: tuple[str, ...] = ()
    """Every pack's queue together, in the order to practise it."""
    total: DayCounts = DayCounts()
    per_pack: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each pack's own queue: what `d` practises with the pack chosen."""
    counts: Mapping[str, DayCounts] = field(default_factory=dict)
    new_left: int = 0
    """New cards the overall limit still allows today, whichever pack they come from."""

    def of(self, pack: str | None) -> tuple[str, ...]:
        """The queue of one pack, or of every pack (None)."""
        return self.cards if pack is None else self.per_pack.get(pack, ())

    def counts_of(self, pack: str | None) -> DayCounts:
        return self.total if pack is None else self.counts.get(pack, DayCounts())


def build_queue(
    packs: Mapping[str, Sequence[str]],
    seen: Mapping[str, Seen],
    *,
    cutoff: datetime,
    new_per_day: int,
    new_per_pack: int,
    introduced_today: Set[str] = frozenset(),
    introduced_today_total: int | None = None,
    hidden: Set[str] = frozenset(),
) -> TodaysQueue:
    """Today's queues of `packs` (name -> card ids, in the pack's order).

    `cutoff`: the end of today; a seen card due before it is due today. `introduced_today`:
    cards first practised today (each pack's limit counts its own); `introduced_today_total`:
    how many cards were introduced today in all, loaded or not (default: those given).
    `hidden`: suspended and buried cards, in no queue.
    """
    introduced_total = (
        len(introduced_today) if introduced_today_total is None else introduced_today_total
    )
    new_left = max(0, new_per_day - introduced_total)
    claimed: set[str] = set()
    per_pack: dict[str, tuple[str, ...]] = {}
    counts: dict[str, DayCounts] = {}
    due_everywhere: list[tuple[datetime, str]] = []
    allowed_new: list[list[str]] = []
    for name, card_ids in packs.items():
        mine = [c for c in dict.fromkeys(card_ids) if c not in claimed and c not in hidden]
        claimed.update(mine)
        due = sorted((seen[c].due, c) for c in mine if c in seen and seen[c].due < cutoff)
        due_everywhere += due
        fresh = [c for c in mine if c not in seen]
        room = max(0, new_per_pack - sum(c in introduced_today for c in card_ids))
        allowed_new.append(fresh[:room])
        new = fresh[: min(room, new_left)]
        learning = sum(seen[c].learning for _, c in due)
        per_pack[name] = tuple(c for _, c in due) + tuple(new)
        counts[name] = DayCounts(reviews=len(due) - learning, learning=learning, new=len(new))
    new_mix = _in_turn(allowed_new, new_left)
    due_everywhere.sort()
    learning = sum(seen[c].learning for _, c in due_everywhere)
    return TodaysQueue(
        cards=tuple(c for _, c in due_everywhere) + tuple(new_mix),
        total=DayCounts(
            reviews=len(due_everywhere) - learning, learning=learning, new=len(new_mix)
        ),
        per_pack=per_pack,
        counts=counts,
        new_left=new_left,
    )


def _in_turn(lists: list[list[str]], limit: int) -> list[str]:
    """The first of each list, then the second of each..., up to `limit` in all."""
    taken: list[str] = []
    depth = 0
    while len(taken) < limit and any(depth < len(items) for items in lists):
        taken += [items[depth] for items in lists if depth < len(items)]
        depth += 1
    return taken[:limit]
