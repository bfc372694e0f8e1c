"""One revealed part of a card's answer: a titled section built from a `RevealStep`."""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Markdown, Static

from app.practice.review import RevealStep
from app.ui.card_text import card_bullets, card_text
from questions.levels import Level
from questions.model import Card


class RevealSection(Vertical):
    """A section of the reveal; the tier section re-renders when the level changes."""

    DEFAULT_CSS = """
    RevealSection { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $primary; }
    RevealSection > .reveal-title { text-style: bold; color: $accent; }
    RevealSection.-red-flags { border-left: thick $error; }
    RevealSection.-red-flags > .reveal-title { color: $error; }
    RevealSection Markdown { margin: 0; padding: 0; }
    RevealSection .reveal-example { margin: 1 0 0 0; }
    RevealSection .reveal-example-note { margin: 1 0 0 0; color: $text-muted; text-style: italic; }
    """

    def __init__(self, card: Card, step: RevealStep, level: Level) -> None:
        classes = "-red-flags" if step.kind == "red_flags" else ""
        super().__init__(id=f"reveal-{step.kind.replace('_', '-')}-{step.index}", classes=classes)
        self.card, self.step, self.level = card, step, level

    def compose(self) -> ComposeResult:
        card, step = self.card, self.step
        if step.kind == "key_points":
            yield Label("Key points", classes="reveal-title")
            yield Static(card_bullets([p.point for p in card.key_points]))
        elif step.kind in ("basic", "solid"):
            answer = card.basic if step.kind == "basic" else card.solid
            yield Label(
                f"{step.kind.capitalize()} answer (~{answer.seconds} s)", classes="reveal-title"
            )
            yield Static(card_text(answer.text))
        elif step.kind == "tier":
            yield Label(tier_title(self.level), classes="reveal-title", id="tier-title")
            yield Static(card_text(getattr(card.tiers, self.level)), id="tier-text")
        elif step.kind == "deep_dive":
            yield Label("Deep dive", classes="reveal-title")
            yield Markdown(card.deep_dive)
        elif step.kind == "examples":
            yield Label("Examples", classes="reveal-title")
            for example in card.examples:
                yield Static(
                    Syntax(
                        example.code.rstrip(), example.language, theme="ansi_dark", word_wrap=True
                    ),
                    classes="reveal-example",
                )
                yield Static(card_text(example.note), classes="reveal-example-note")
        elif step.kind == "follow_up_question":
            total = len(card.follow_ups)
            yield Label(f"Follow-up {step.index + 1} of {total}", classes="reveal-title")
            yield Static(card_text(card.follow_ups[step.index].question))
        elif step.kind == "follow_up_answer":
            yield Label(f"Answer to follow-up {step.index + 1}", classes="reveal-title")
            yield Static(card_text(card.follow_ups[step.index].answer))
        elif step.kind == "red_flags":
            yield Label("Red flags: never say", classes="reveal-title")
            yield Static(card_bullets([f.flag for f in card.red_flags]))

    def show_level(self, level: Level) -> None:
        self.level = level
        self.query_one("#tier-title", Label).update(tier_title(level))
        self.query_one("#tier-text", Static).update(card_text(getattr(self.card.tiers, level)))


def tier_title(level: Level) -> str:
    return f"Tier answer: {level}  (ctrl+t switches)"
