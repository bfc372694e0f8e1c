"""Home: packs and progress, the filterable card list, today's queue, and load problems."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Header, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from app.practice.catalog import (
    STATUSES,
    CardFilter,
    all_tags,
    filter_cards,
    order_by_queue,
    pack_summaries,
)
from app.progress.queue import DayCounts, TodaysQueue
from app.ui.base import GrillScreen
from app.ui.card_text import card_text
from app.ui.widgets.card_table import CardRow, CardTable
from app.ui.widgets.footer import KeysFooter
from app.wording import count, due_status
from questions.levels import LEVELS
from questions.library import Library, LoadedCard

if TYPE_CHECKING:
    from app.progress.history import CardFlags

ALL_PACKS = "*all*"
STATUS_LABELS = {
    "all": "Due, new and later",
    "due": "Due today",
    "new": "Never practised",
    "later": "Due later (ahead)",
    "code": "Code tasks",
}


class HomeScreen(GrillScreen):
    SUB_TITLE = "Home"
    HELP = (
        "Your packs and cards. Pick a card to practise, or press d for today's queue: cards due "
        "for review, then new ones up to the daily limit. Filter by pack, level, tag and status "
        "on the left, or search every word of the cards with /."
    )
    BINDINGS = [
        Binding(
            "p",
            "practise_selected",
            "Practise",
            tooltip="Practise the listed cards, starting at the selected one (enter too).",
        ),
        Binding(
            "d",
            "practise_due",
            "Due",
            tooltip="Practise today's queue of the chosen pack: due reviews, then new cards.",
        ),
        Binding(
            "m",
            "mock",
            "Mock",
            tooltip="A timed five-question mock interview at your tier, from the chosen pack.",
        ),
        Binding(
            "s",
            "stats",
            "Stats",
            tooltip="Progress: mastery per pack and tag, answers per day, what is due.",
        ),
        Binding(
            "o", "settings", "Settings", tooltip="Tier, device for code, new cards per day, theme."
        ),
        Binding(
            "t", "app.toggle_theme", "Theme", tooltip="Switch between the dark and the light theme."
        ),
        Binding(
            "c",
            "clear_filters",
            "Clear",
            tooltip="Clear the search and every filter: all packs, levels, tags.",
        ),
        Binding("q", "app.quit", "Quit", tooltip="Close grill."),
        Binding(
            "slash",
            "focus_search",
            "Search",
            show=False,
            key_display="/",
            tooltip="Search every word of the cards' ids, questions, tags and key points.",
        ),
        Binding(
            "g",
            "focus_packs",
            "Packs",
            show=False,
            tooltip="Go to the pack list (up and down choose a pack; escape back to the cards).",
        ),
        Binding(
            "escape",
            "focus_cards",
            "Cards",
            show=False,
            tooltip="Back from the search to the card list.",
        ),
        # Not in the footer, which is full at 80 columns: the help and the palette list them.
        Binding(
            "x",
            "suspend",
            "Suspend",
            show=False,
            tooltip="Suspend the selected card (out of every queue), or bring it back.",
        ),
        Binding(
            "b",
            "bury",
            "Bury",
            show=False,
            tooltip="Bury the selected card until tomorrow, or bring it back now.",
        ),
        Binding(
            "u,ctrl+z",
            "undo",
            "Undo",
            show=False,
            tooltip="Take back the last rating given in practice, and open its card again.",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.card_filter = CardFilter()
        self.shown: list[LoadedCard] = []
        self.today = TodaysQueue()
        """Today's queue of each pack and of every pack."""
        self.due_dates: dict[str, datetime] = {}
        self.flags: dict[str, CardFlags] = {}
        """Cards suspended or buried."""
        self._just_filled = False

    @property
    def due(self) -> tuple[str, ...]:
        """Today's queue of the pack chosen on the left (every pack's when none is)."""
        return self.today.of(self.card_filter.pack)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="home-history-error", markup=False)
        with Horizontal(id="home-body"):
            with Vertical(id="home-side"):
                yield Label("Packs", classes="home-heading")
                yield OptionList(id="home-packs")
                yield Select(
                    [(level, level) for level in LEVELS],
                    prompt="Any level",
                    compact=True,
                    id="home-level",
                )
                yield Select([], prompt="Any tag", compact=True, id="home-tag")
                yield Select(
                    [(STATUS_LABELS[s], s) for s in STATUSES],
                    value="all",
                    allow_blank=False,
                    compact=True,
                    id="home-status",
                )
                yield Static("", id="home-due")
            with Vertical(id="home-main"):
                yield Input(placeholder="Search cards (/)", id="home-search")
                yield Static("", id="home-empty")
                yield CardTable(id="home-cards")
                yield Static("", id="home-preview")
        with VerticalScroll(id="home-problems"):
            yield Static("", id="home-problems-text", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one("#home-cards", CardTable)
        table.loading = self.grill.library is None
        table.focus()
        self.refresh_all()
        self._just_filled = True

    def on_screen_resume(self) -> None:
        """Back from practice, stats or settings: what they changed shows. (The resume that
        comes when home is first shown follows its mount, which has just filled it.)"""
        if self._just_filled:
            self._just_filled = False
            return
        self.refresh_all()

    def refresh_all(self) -> None:
        """Re-read library and history: after loading, after practice, after settings change."""
        app = self.grill
        if app.library is None:
            self.query_one("#home-due", Static).update("Loading packs…")
        else:
            table = self.query_one("#home-cards", CardTable)
            if table.loading:
                table.loading = False
                table.focus()
            cards = app.library.cards
            self.today = app.todays_queue(app.library)
            self.flags = app.card_flags()
            self.due_dates = app.due_dates([loaded.id for loaded in cards])
            self._fill_packs()
            self._fill_tags(all_tags(cards))
            self._fill_due()
            self._fill_problems()
            self._fill_cards()
        error = self.query_one("#home-history-error", Static)
        error.update(
            f"History unavailable, nothing will be recorded: {app.history_error}"
            if app.history_error
            else ""
        )
        error.display = bool(app.history_error)

    def _fill_packs(self) -> None:
        packs = self.query_one("#home-packs", OptionList)
        highlighted = packs.highlighted
        in_a_queue = {c for queue in self.today.per_pack.values() for c in queue}
        summaries = pack_summaries(self.library, due=in_a_queue, seen=self.due_dates.keys())
        packs.clear_options()
        total = sum(s.cards for s in summaries)
        packs.add_option(
            Option(Content.assemble("All packs  ", (count(total, "card"), "dim")), id=ALL_PACKS)
        )
        for s in summaries:
            today = self.today.counts_of(s.name)
            # Anki's deck list: New, Learn, Due, label first; short enough for the side's 24
            # columns beside the list's scrollbar.
            counts = (
                f"{count(s.cards, 'card')} · {s.seen} seen\n"
                f"new {today.new}  learn {today.learning}  due {today.reviews}"
            )
            packs.add_option(Option(Content.assemble(s.title, "\n", (counts, "dim")), id=s.name))
        packs.highlighted = highlighted if highlighted is not None else 0

    def _fill_tags(self, tags: list[str]) -> None:
        select = self.query_one("#home-tag", Select)
        current = select.value
        select.set_options([(tag, tag) for tag in tags])
        if current in tags:
            select.value = current

    def _fill_due(self) -> None:
        pack = self.card_filter.pack
        where = "" if pack is None else " in this pack"
        queue = self.queue()  # once: it orders every card (10,000 in 25 ms)
        text = Content.assemble(
            (f"Due today{where}: {len(queue)}", "bold"),
            "\n",
            day_counts(self.today.counts_of(pack)),
        )
        note = "d starts the queue" if queue else self._why_nothing_new()
        if note:
            text += Content.styled(f"\n{note}", "dim")
        self.query_one("#home-due", Static).update(text)

    def _why_nothing_new(self) -> str:
        """Why the chosen pack offers no new card today, when it still has cards never seen."""
        pack = self.card_filter.pack
        unseen = [
            c for c in self.library.cards if pack in (None, c.pack) and c.id not in self.due_dates
        ]
        if not unseen or self.today.counts_of(pack).new:
            return ""
        settings = self.grill.settings
        if self.today.new_left == 0:
            return f"Today's new cards are done ({settings.new_per_day} a day; o changes it)"
        return f"This pack's new cards are done for today ({settings.new_per_pack} a day; o changes it)"

    def queue(self) -> list[LoadedCard]:
        """Today's queue, kept to the pack chosen on the left."""
        cards = [c for c in self.library.cards if self.card_filter.pack in (None, c.pack)]
        return order_by_queue(cards, self.due)

    @property
    def library(self) -> Library:
        """The loaded library; only called once it has loaded."""
        library = self.grill.library
        assert library is not None, "packs are still loading"
        return library

    def _fill_problems(self) -> None:
        problems = self.library.problems
        box = self.query_one("#home-problems", VerticalScroll)
        box.display = bool(problems)
        heading = f"{count(len(problems), 'problem')} loading packs; these cards are skipped (grill lint explains):"
        self.query_one("#home-problems-text", Static).update(
            "\n".join([heading, *(f"{p.path}:{p.line}: {p.message}" for p in problems)])
        )

    def _fill_cards(self) -> None:
        selected = self.selected_card  # kept selected when it still matches
        self.shown = filter_cards(
            self.library.cards, self.card_filter, due=set(self.due), seen=self.due_dates.keys()
        )
        kept = None if selected is None else selected.id
        cursor = next((n for n, loaded in enumerate(self.shown) if loaded.id == kept), 0)
        self.query_one("#home-cards", CardTable).show(len(self.shown), self._row, cursor)
        empty = self.query_one("#home-empty", Static)
        empty.display = not self.shown
        empty.update(
            "No card matches the search and filters: c clears them."
            if self.library.cards
            else "No cards are loaded."
        )
        self._fill_preview()

    def _row(self, row: int) -> CardRow:
        card = self.shown[row].summary
        return CardRow(card.question, card.level, self._status(card.id, self.grill.now()))

    def _status(self, card_id: str, now: datetime) -> str:
        flags = self.flags.get(card_id)
        if flags is not None and flags.suspended:
            return "suspended"
        if flags is not None and flags.hides(now):
            return "buried"
        return due_status(self.due_dates.get(card_id), now)

    @on(CardTable.RowHighlighted, "#home-cards")
    def _fill_preview(self) -> None:
        """The selected card's whole question, which the table cuts to its column."""
        preview = self.query_one("#home-preview", Static)
        selected = self.selected_card
        preview.display = selected is not None
        if selected is not None:
            card = selected.summary
            preview.update(
                card_text(card.question)
                + Content.styled(
                    f"\n{card.level} · {card.importance}"
                    + (" · code task" if card.code_task else ""),
                    "dim",
                )
            )

    @property
    def selected_card(self) -> LoadedCard | None:
        row = self.query_one("#home-cards", CardTable).cursor_row
        return self.shown[row] if row < len(self.shown) else None

    @on(Input.Changed, "#home-search")
    def _search(self, event: Input.Changed) -> None:
        self._apply(text=event.value)

    @on(Input.Submitted, "#home-search")
    def _search_done(self) -> None:
        self.action_focus_cards()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else event.value
        field = {"home-level": "level", "home-tag": "tag", "home-status": "status"}[
            event.select.id or ""
        ]
        self._apply(**{field: value})

    @on(OptionList.OptionHighlighted, "#home-packs")
    def _pack_chosen(self, event: OptionList.OptionHighlighted) -> None:
        pack = event.option.id
        self._apply(pack=None if pack == ALL_PACKS else pack)

    def _apply(self, **changes) -> None:
        new_filter = replace(self.card_filter, **changes)
        if new_filter != self.card_filter:
            self.card_filter = new_filter
            if self.grill.library is not None:
                self._fill_cards()
                self._fill_due()

    def action_clear_filters(self) -> None:
        self.query_one("#home-search", Input).value = ""
        self.query_one("#home-level", Select).clear()
        self.query_one("#home-tag", Select).clear()
        self.query_one("#home-status", Select).value = "all"
        self.query_one("#home-packs", OptionList).highlighted = 0
        self._apply(**vars(CardFilter()))
        self.action_focus_cards()

    @on(CardTable.RowSelected, "#home-cards")
    def action_practise_selected(self) -> None:
        """Practise the listed cards, starting with the selected one."""
        selected = self.selected_card
        if selected is None:
            self.notify(
                "No card selected: loosen the filter or wait for packs to load.", severity="warning"
            )
            return
        start = self.shown.index(selected)
        self.grill.practise(self.shown[start:])

    def action_practise_due(self) -> None:
        if self.grill.library is None:
            return
        queue = self.queue()
        if not queue:
            where = "" if self.card_filter.pack is None else " in this pack"
            why = self._why_nothing_new()
            self.notify(
                f"Nothing is due today{where}{f': {why[0].lower()}{why[1:]}' if why else ''}. "
                "Pick a card and press p to practise anyway."
            )
            return
        self.grill.practise(queue)

    def action_suspend(self) -> None:
        selected = self.selected_card
        if selected is None:
            return
        card_id = selected.id
        suspended = not (card_id in self.flags and self.flags[card_id].suspended)
        problem = self.grill.set_suspended(card_id, suspended)
        self._after_flag_change(
            problem,
            f"Suspended {card_id}: in no queue until x brings it back."
            if suspended
            else f"{card_id} is back in the queues.",
        )

    def action_bury(self) -> None:
        selected = self.selected_card
        if selected is None:
            return
        card_id = selected.id
        flags = self.flags.get(card_id)
        bury = not (flags is not None and flags.hides(self.grill.now()) and not flags.suspended)
        problem = self.grill.bury(card_id, until_tomorrow=bury)
        self._after_flag_change(
            problem,
            f"Buried {card_id} until tomorrow." if bury else f"{card_id} is back in the queues.",
        )

    def _after_flag_change(self, problem: str | None, done: str) -> None:
        if problem:
            self.notify(problem, severity="warning", markup=False)
            return
        self.notify(done, timeout=3, markup=False)
        self.refresh_all()

    def action_undo(self) -> None:
        why_not = self.grill.undo_last_rating()
        if why_not:
            self.notify(why_not, markup=False)

    def action_focus_search(self) -> None:
        self.query_one("#home-search", Input).focus()

    def action_focus_cards(self) -> None:
        self.query_one("#home-cards", CardTable).focus()

    def action_focus_packs(self) -> None:
        self.query_one("#home-packs", OptionList).focus()

    def action_mock(self) -> None:
        """A five-question mock at your tier, drawn from the pack chosen on the left (or all)."""
        if self.grill.library is None:
            return
        self.grill.start_mock(
            [c for c in self.library.cards if self.card_filter.pack in (None, c.pack)]
        )

    def action_stats(self) -> None:
        self.grill.open_stats()

    def action_settings(self) -> None:
        self.grill.open_settings()


def day_counts(counts: DayCounts) -> str:
    """`2 reviews · 1 learning · 5 new`: what a queue holds today, in words. Learning shows once
    there is some, and then no new cards go without saying, so the line fits the side's 28
    columns in all but the fullest days."""
    parts = [count(counts.reviews, "review")]
    if counts.learning:
        parts.append(f"{counts.learning} learning")
    if counts.new or not counts.learning:
        parts.append(f"{counts.new} new")
    return " · ".join(parts)
