"""Self-grade: tick the key points you made and the red flags you said, then rate yourself.

grill suggests a rating from the ticks and the code run (the mock's rule), but the rating is
yours: 1-4 pick Again, Hard, Good or Easy as in Anki, each with when the card comes back.
"""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, SelectionList, Static

from app.practice.review import SelfGrade, Suggestion, suggest
from app.progress.rating import NOT_RUN, RATINGS, Rating, SolutionViewed
from app.ui.base import GrillDialog
from app.ui.card_text import card_text
from app.ui.widgets.tick_list import TickList
from app.wording import interval
from checkers.verdict import Verdict
from questions.model import Card

RATING_KEYS = {rating: str(n) for n, rating in enumerate(RATINGS, 1)}
CODE_BASIS = {
    NOT_RUN: "no run of the code as it stands: the code half earns nothing",
    "clean": "code clean (half the question)",
}


def explain(
    suggestion: Suggestion, *, key_points_hit: int, key_points: int, red_flag_said: bool
) -> str:
    """The suggested rating and what it rests on, as the dialog shows it (markup)."""
    basis = ["a red flag said" if red_flag_said else f"{key_points_hit} of {key_points} key points"]
    if suggestion.code is not None:
        basis.append(
            CODE_BASIS.get(suggestion.code, f"code {suggestion.code}: the code half earns nothing")
        )
    text = (
        f"Suggested: [b]{suggestion.rating.capitalize()}[/b] "
        f"({round(suggestion.score * 100)}%: {'; '.join(basis)})"
    )
    if suggestion.cap != "easy":
        text += f"\n{cap_reason(suggestion)}"
    return text


def cap_reason(suggestion: Suggestion) -> str:
    """Why the recorded rating cannot go above the suggestion's cap."""
    if suggestion.solution_viewed == "asked":
        return "You saw the solution before solving the task: this attempt is recorded as Again."
    if suggestion.solution_viewed == "copied":
        return "This code is the solution you viewed: this attempt is recorded as Again."
    return f"The code's verdict caps what is recorded at {suggestion.cap.capitalize()}."


class SelfGradeDialog(GrillDialog[SelfGrade | None]):
    """Returns the confirmed SelfGrade with the chosen rating, or None to go back to the card."""

    HELP = (
        "Say what your answer covered: the key points you made and any red flag you said "
        "(space ticks, tab moves between the lists). grill suggests a rating from them and "
        "from your code's last run; pick the rating yourself with 1-4, as in Anki."
    )
    BINDINGS = [
        Binding(
            "1",
            "rate('again')",
            "Again",
            tooltip="Record Again: you did not know it; it comes back soon.",
        ),
        Binding("2", "rate('hard')", "Hard", tooltip="Record Hard: you got there with effort."),
        Binding("3", "rate('good')", "Good", tooltip="Record Good: you knew it."),
        Binding("4", "rate('easy')", "Easy", tooltip="Record Easy: you knew it at once, in full."),
        Binding(
            "ctrl+g",
            "rate_suggested",
            "Take suggestion",
            priority=True,
            tooltip="Record the rating grill suggests.",
        ),
        Binding("escape", "back", "Back", tooltip="Back to the card; nothing is recorded."),
    ]

    def __init__(
        self,
        card: Card,
        *,
        key_points_hit: frozenset[int],
        red_flags_said: frozenset[int],
        verdict: Verdict | None,
        next_due: dict[Rating, datetime] | None,
        now: datetime,
        solution_viewed: SolutionViewed | None = None,
    ) -> None:
        """`key_points_hit` and `red_flags_said` come pre-ticked; `next_due`: when the card comes
        back after each rating (None without a history)."""
        super().__init__()
        self.card, self.verdict, self.solution_viewed = card, verdict, solution_viewed
        self._pre_ticked_hit, self._pre_ticked_said = key_points_hit, red_flags_said
        self.next_due, self.now = next_due, now
        self.suggestion = suggest(card, key_points_hit, red_flags_said, verdict, solution_viewed)
        """For the ticks as they stand: worked out again only when a tick changes."""

    def compose(self) -> ComposeResult:
        with Vertical(id="self-grade", classes="dialog"):
            yield Label("Self-grade: space ticks, tab moves between lists", classes="dialog-title")
            with Vertical(id="self-grade-lists"):
                yield Label(
                    "Key points you made (pre-ticked from your typed answer)",
                    classes="self-grade-heading",
                )
                yield TickList(
                    *[
                        (card_text(p.point), i, i in self._pre_ticked_hit)
                        for i, p in enumerate(self.card.key_points)
                    ],
                    compact=True,
                    id="self-grade-points",
                )
                yield Label("Red flags you said", classes="self-grade-heading")
                yield TickList(
                    *[
                        (card_text(f.flag), i, i in self._pre_ticked_said)
                        for i, f in enumerate(self.card.red_flags)
                    ],
                    compact=True,
                    id="self-grade-flags",
                )
            yield Static("", id="self-grade-rating")
            with Horizontal(id="self-grade-buttons"):
                for rating in RATINGS:
                    yield Button(
                        f"{RATING_KEYS[rating]} {rating.capitalize()}{self._when(rating)}",
                        compact=True,
                        id=f"self-grade-{rating}",
                    )
            yield Static(
                "1-4 record a rating · ctrl+g takes the suggestion · esc back",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.query_one("#self-grade-points", TickList).focus()
        self._show_suggestion()

    def _when(self, rating: Rating) -> str:
        return f" · {interval(self.next_due[rating], self.now)}" if self.next_due else ""

    def _ticked(self, selector: str) -> frozenset[int]:
        return frozenset(self.query_one(selector, SelectionList).selected)

    @on(SelectionList.SelectedChanged)
    def _ticks_changed(self) -> None:
        self.suggestion = suggest(
            self.card,
            self._ticked("#self-grade-points"),
            self._ticked("#self-grade-flags"),
            self.verdict,
            self.solution_viewed,
        )
        self._show_suggestion()

    def _show_suggestion(self) -> None:
        suggestion = self.suggestion
        self.query_one("#self-grade-rating", Static).update(
            explain(
                suggestion,
                key_points_hit=len(self._ticked("#self-grade-points")),
                key_points=len(self.card.key_points),
                red_flag_said=bool(self._ticked("#self-grade-flags")),
            )
        )
        for rating in RATINGS:
            button = self.query_one(f"#self-grade-{rating}", Button)
            button.variant = "primary" if rating == suggestion.rating else "default"
            button.disabled = RATINGS.index(rating) > RATINGS.index(suggestion.cap)

    def action_rate(self, rating: Rating) -> None:
        cap = self.suggestion.cap
        if RATINGS.index(rating) > RATINGS.index(cap):
            self.notify(cap_reason(self.suggestion), severity="warning")
            return
        self.dismiss(
            SelfGrade(self._ticked("#self-grade-points"), self._ticked("#self-grade-flags"), rating)
        )

    def action_rate_suggested(self) -> None:
        self.action_rate(self.suggestion.rating)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.action_rate(next(r for r in RATINGS if event.button.id == f"self-grade-{r}"))

    def action_back(self) -> None:
        self.dismiss(None)
