"""The headless rules behind the screens: filters, reveal order, phase times, rating, settings, wording."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from ui_fakes import FakeClock

from app.practice.catalog import CardFilter, all_tags, filter_cards, order_by_queue, pack_summaries
from app.practice.review import PhaseTimer, SelfGrade, build_attempt, pretick, reveal_plan, suggest
from app.progress.history import History
from app.ui.settings import Settings
from app.wording import comes_back, count, due_status, interval
from checkers.verdict import Verdict


def ids(cards) -> list[str]:
    return [loaded.card.id for loaded in cards]


def test_filter_combines_pack_level_tag_status_and_every_search_word(library):
    cards = library.cards
    everything = filter_cards(cards, CardFilter(), due=set(), seen=set())
    assert ids(everything) == ids(cards)
    assert ids(filter_cards(cards, CardFilter(level="junior"), due=set(), seen=set())) == [
        "running-loss"
    ]
    assert ids(filter_cards(cards, CardFilter(tag="inference"), due=set(), seen=set())) == [
        "no-grad"
    ]
    assert ids(filter_cards(cards, CardFilter(status="due"), due={"retain-graph"}, seen=set())) == [
        "retain-graph"
    ]
    assert "no-grad" not in ids(
        filter_cards(cards, CardFilter(status="new"), due=set(), seen={"no-grad"})
    )
    ahead = CardFilter(status="later")
    assert ids(filter_cards(cards, ahead, due={"no-grad"}, seen={"no-grad", "retain-graph"})) == [
        "retain-graph"
    ], "practised and not due today: the cards to study ahead"
    assert ids(filter_cards(cards, CardFilter(text="RUNNING total"), due=set(), seen=set())) == [
        "running-loss"
    ]
    assert filter_cards(cards, CardFilter(text="running inference"), due=set(), seen=set()) == []
    assert filter_cards(cards, CardFilter(pack="other"), due=set(), seen=set()) == []


def test_pack_summaries_count_cards_seen_and_due(library):
    [summary] = pack_summaries(library, due={"no-grad", "running-loss"}, seen={"no-grad"})
    assert (summary.name, summary.cards, summary.seen, summary.due) == ("demo", 3, 1, 2)
    assert all_tags(library.cards) == ["autograd", "inference", "memory"]


def test_queue_order_is_kept_and_unknown_ids_dropped(library):
    queue = order_by_queue(library.cards, ["running-loss", "gone", "no-grad"])
    assert ids(queue) == ["running-loss", "no-grad"]


def test_reveal_plan_ends_with_follow_ups_in_pairs_then_red_flags(library):
    plan = reveal_plan(library.card("running-loss").card)
    kinds = [(step.kind, step.index) for step in plan]
    assert kinds[:6] == [
        ("key_points", 0),
        ("basic", 0),
        ("solid", 0),
        ("tier", 0),
        ("deep_dive", 0),
        ("examples", 0),
    ]
    assert kinds[6:] == [
        ("follow_up_question", 0),
        ("follow_up_answer", 0),
        ("follow_up_question", 1),
        ("follow_up_answer", 1),
        ("red_flags", 0),
    ]
    assert {step.phase for step in plan[6:10]} == {"follow_ups"}


def test_phase_timer_adds_up_returning_phases():
    clock = FakeClock()
    timer = PhaseTimer(clock)
    clock.advance(10)
    timer.switch("review")
    clock.advance(5)
    timer.switch("answer")
    clock.advance(2.25)
    assert timer.seconds() == {"answer": 12.2, "review": 5.0}


def test_pretick_finds_signal_phrases_in_any_case(library):
    card = library.card("running-loss").card
    points, flags = pretick(card, "The GRAPH stays alive; call Detach on it.")
    assert (points, flags) == ({0, 2}, set())
    assert pretick(card, "the Garbage Collector cleans it up")[1] == {0}


ALL_POINTS = frozenset({0, 1, 2})
NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [(None, "again"), ("clean", "easy"), ("leak", "hard"), ("wrong", "hard"), ("timeout", "again")],
)
def test_a_code_task_is_rated_half_on_the_key_points_and_half_on_the_code(
    library, verdict, expected
):
    """As in the mock: the code half counts only when clean; a fix never run suggests Again."""
    card = library.card("running-loss").card
    result = None if verdict is None else Verdict(verdict=verdict, device="cpu")
    assert suggest(card, ALL_POINTS, frozenset(), result).rating == expected


def test_a_clean_fix_with_nothing_typed_earns_the_code_half(library):
    card = library.card("running-loss").card
    suggestion = suggest(card, frozenset(), frozenset(), Verdict(verdict="clean", device="cpu"))
    assert (suggestion.score, suggestion.rating, suggestion.code) == (0.5, "hard", "clean")


def test_a_card_without_code_is_rated_on_its_key_points(library):
    card = library.card("no-grad").card
    assert suggest(card, frozenset({0, 1}), frozenset(), None).rating == "hard"
    assert suggest(card, frozenset({0, 1, 2}), frozenset(), None).rating == "easy"
    assert suggest(card, frozenset({0, 1, 2}), frozenset({0}), None).rating == "again"
    assert suggest(card, frozenset({0, 1, 2}), frozenset(), None).cap == "easy"


def test_the_chosen_rating_is_recorded_but_a_leak_still_caps_it(library):
    card = library.card("running-loss").card
    leak = Verdict(verdict="leak", device="cpu")
    assert suggest(card, ALL_POINTS, frozenset(), leak).cap == "hard"
    attempt = build_attempt(
        card,
        SelfGrade(ALL_POINTS, frozenset(), "easy"),
        level="junior",
        phase_seconds={},
        answer="",
        verdict=leak,
        code="x",
        started_at=NOW,
    )
    assert attempt.rating == "hard" and attempt.code is not None and attempt.code.verdict == "leak"


def test_attempt_lists_points_hit_and_missed_by_text(library):
    card = library.card("no-grad").card
    attempt = build_attempt(
        card,
        SelfGrade(frozenset({1}), frozenset(), "good"),
        level="junior",
        phase_seconds={"answer": 3.0},
        answer="memory",
        verdict=None,
        code="",
        started_at=NOW,
    )
    assert attempt.rating == "good" and attempt.started_at == NOW
    assert attempt.key_points_hit == ("no_grad saves memory and time during evaluation",)
    assert len(attempt.key_points_missed) == 2
    assert attempt.code is None and attempt.mode == "practice"


def test_counted_nouns_agree_with_their_number():
    assert [count(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert count(1, "query", "queries") == "1 query" and count(3, "query", "queries") == "3 queries"


def test_when_a_card_comes_back_reads_as_a_person_says_it():
    assert comes_back(NOW + timedelta(minutes=10), NOW) == "in 10 min"
    assert comes_back(NOW + timedelta(days=1), NOW) == "tomorrow"
    assert comes_back(NOW + timedelta(days=4), NOW) == "in 4 days"
    assert comes_back(NOW + timedelta(days=30), NOW) == "in 4 weeks"
    assert [
        interval(NOW + step, NOW)
        for step in (
            timedelta(seconds=20),
            timedelta(minutes=10),
            timedelta(days=4),
            timedelta(days=21),
            timedelta(days=90),
        )
    ] == ["1m", "10m", "4d", "3w", "3mo"]
    assert due_status(None, NOW) == "new"
    assert due_status(NOW - timedelta(days=2), NOW) == "due"
    assert due_status(NOW + timedelta(days=4), NOW) == "in 4 days"
    # a learning step: in today's queue, but not due for another ten minutes
    assert due_status(NOW + timedelta(minutes=10), NOW) == "in 10 min"
    assert due_status(NOW, NOW) == "due"


def test_settings_round_trip_through_the_history_and_ignore_bad_values(history: History):
    assert Settings.load(history) == Settings(welcomed=True)
    Settings(level="principal", device="cpu", new_per_day=3, theme="light").save(history)
    assert Settings.load(history) == Settings(
        level="principal", device="cpu", new_per_day=3, theme="light"
    )
    history.set_setting("level", "wizard")
    history.set_setting("new_per_day", "lots")
    loaded = Settings.load(history)
    assert (loaded.level, loaded.new_per_day, loaded.device) == ("middle", 10, "cpu")
    Settings(desired_retention=0.95).save(history)
    assert (
        Settings.load(history).desired_retention == 0.95 == history.scheduling().desired_retention
    )
    history.set_setting("desired_retention", 2)
    assert Settings.load(history).desired_retention == 0.9 == history.scheduling().desired_retention


def test_the_level_stored_by_its_former_name_is_read_and_saved_under_the_new_one(
    history: History,
):
    history.set_setting("tier", "senior")
    loaded = Settings.load(history)
    assert loaded.level == "senior"
    loaded.save(history)
    assert history.get_setting("level") == "senior"
    history.set_setting("tier", "junior")
    assert Settings.load(history).level == "senior", "the new name wins once it is stored"


def test_settings_reject_values_with_a_message_naming_the_field():
    with pytest.raises(ValueError, match="new cards per day"):
        replace(Settings(), new_per_day=-1)
    with pytest.raises(ValueError, match="device must be one of auto, cpu, cuda"):
        Settings(device="tpu")


def test_the_per_pack_limit_of_new_cards_is_a_setting_of_its_own(history: History):
    Settings(new_per_pack=4).save(history)
    assert Settings.load(history).new_per_pack == 4
    history.set_setting("new_per_pack", 900)
    assert Settings.load(history).new_per_pack == 10, "out of range: the default"
    with pytest.raises(ValueError, match="new cards per day per pack"):
        replace(Settings(), new_per_pack=-1)
