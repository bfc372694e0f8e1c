"""Card prose shows `code` spans as code: backticks dropped, the span styled, the rest verbatim."""

from __future__ import annotations

from pilot_wait import until, until_screen
from textual.widgets import Static
from ui_fakes import SIZE

from app.ui.card_text import CODE_STYLE, card_text
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.tick_list import TickList
from questions.library import LoadedCard
from questions.model import FollowUp, KeyPoint, RedFlag


def code_spans(text: str) -> list[str]:
    content = card_text(text)
    return [content.plain[s.start : s.end] for s in content.spans if s.style == CODE_STYLE]


def test_a_backtick_span_loses_its_backticks_and_is_styled_as_code():
    assert (
        card_text("Write `total += loss.item()` instead.").plain
        == "Write total += loss.item() instead."
    )
    assert code_spans("`a` and `b`") == ["a", "b"]


def test_a_double_backtick_span_may_hold_a_backtick():
    assert code_spans("see `` `x` `` here") == ["`x`"]


def test_an_unmatched_backtick_stays_as_written():
    assert card_text("the ` key").plain == "the ` key"
    assert card_text("``x` is not closed").plain == "``x` is not closed"
    assert code_spans("``x` is not closed") == []


def test_markup_like_text_is_never_parsed():
    assert card_text("[b]x[/b] `[/b]`").plain == "[b]x[/b] [/b]"


CODE_POINT = "`total += loss` chains every step's graph."


async def test_key_points_answers_follow_ups_and_red_flags_show_no_backticks(make_app, library):
    original = library.card("running-loss")
    card = original.card.model_copy(
        update={
            "question": "Why does `total += loss` grow?",
            "key_points": [KeyPoint(point=CODE_POINT)] * 3,
            "basic": original.card.basic.model_copy(update={"text": "Use `loss.item()`."}),
            "red_flags": [RedFlag(flag="Says `gc.collect()` fixes it.")],
            "follow_ups": [
                FollowUp(question="And `detach()`?", answer="`detach()` keeps it on the device.")
            ],
        }
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([LoadedCard(card, original.path, original.pack)])
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*["ctrl+n"] * len(screen.plan))
        await until(pilot, lambda: screen.revealed == len(screen.plan))
        shown = "\n".join(str(static.render()) for static in screen.query(Static))
        assert "total += loss" in shown and "loss.item()" in shown and "gc.collect()" in shown
        assert "`" not in shown
        await pilot.press("ctrl+g")
        points = (await until_screen(pilot, SelfGradeDialog)).query_one(
            "#self-grade-points", TickList
        )
        assert (
            points.get_option_at_index(0).prompt.plain == "total += loss chains every step's graph."
        )
