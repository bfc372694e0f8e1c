"""The session state machine, driven by a fake clock: budgets, time-outs, order, the overall limit."""

import pytest

from app.mock.session import Budgets, MockSession, mmss, spoken_seconds
from checkers.verdict import Verdict


def session_of(cards, names, clock, **kwargs):
    return MockSession([cards[n] for n in names], clock=clock, **kwargs)


def test_budgets_come_from_the_card_for_the_level(cards, clock):
    card = cards["no-grad-eval"].card
    assert spoken_seconds(card, "junior") == spoken_seconds(card, "middle") == card.basic.seconds
    assert spoken_seconds(card, "senior") == spoken_seconds(card, "principal") == card.solid.seconds
    typed = session_of(cards, ["no-grad-eval"], clock, level="senior")
    spoken = session_of(cards, ["no-grad-eval"], clock, level="senior", role="interviewer")
    assert typed.steps[0].budget == card.solid.seconds * 3
    assert spoken.steps[0].budget == card.solid.seconds * 1.5


def test_steps_are_answer_then_code_then_follow_ups_in_card_order(cards, clock):
    session = session_of(cards, ["loss-accumulation", "retain-graph-error"], clock, level="middle")
    plan = [(s.question, s.kind, s.follow_up) for s in session.steps]
    assert plan == [
        (0, "answer", None),
        (0, "code", None),
        (0, "follow_up", 0),
        (1, "answer", None),
        (1, "follow_up", 0),
        (1, "follow_up", 1),
    ]
    assert session.steps[1].budget == Budgets().code_seconds
    retain = cards["retain-graph-error"].card
    assert [s.prompt for s in session.steps[4:]] == [f.question for f in retain.follow_ups[:2]]


def test_the_countdown_runs_on_the_clock(cards, clock):
    session = session_of(cards, ["no-grad-eval"], clock, level="junior")
    session.start()
    assert session.remaining() == 60
    clock.advance(45.5)
    assert session.remaining() == pytest.approx(14.5)
    assert mmss(session.remaining()) == "00:15"
    assert session.tick() is None


def test_a_budget_that_runs_out_warns_then_moves_on_after_the_grace(cards, clock):
    session = session_of(cards, ["no-grad-eval"], clock, level="junior")
    session.start()
    session.set_draft("no_grad means no graph recorded")
    clock.advance(60)
    assert session.tick() == "timed_out"
    assert session.state == "overtime" and session.current.kind == "answer"
    clock.advance(5)
    assert session.tick() is None
    clock.advance(5)
    assert session.tick() == "moved_on"
    assert session.current.kind == "follow_up"
    first = session.records[0]
    assert first.timed_out and first.seconds == 70
    assert first.text == "no_grad means no graph recorded"


def test_submitting_in_time_records_the_time_used(cards, clock):
    session = session_of(cards, ["no-grad-eval"], clock, level="junior")
    session.start()
    clock.advance(12)
    assert session.submit("answer") == "moved_on"
    clock.advance(8)
    session.submit("first follow-up")
    clock.advance(3)
    assert session.submit("second follow-up") == "finished"
    assert [(r.seconds, r.timed_out, r.text) for r in session.records] == [
        (12, False, "answer"),
        (8, False, "first follow-up"),
        (3, False, "second follow-up"),
    ]
    assert session.state == "finished" and session.progress == 1.0


def test_progress_counts_steps_done(cards, clock):
    session = session_of(cards, ["no-grad-eval", "retain-graph-error"], clock, level="junior")
    session.start()
    assert session.progress == 0
    session.submit("")
    session.submit("")
    assert session.progress == pytest.approx(2 / 6)


def test_the_overall_limit_ends_the_session_and_leaves_the_rest_unreached(cards, clock):
    session = session_of(
        cards, ["no-grad-eval", "retain-graph-error"], clock, level="junior", minutes=1.5
    )
    session.start()
    clock.advance(50)
    session.submit("first")
    clock.advance(40)
    assert session.remaining() == 0
    assert session.tick() == "timed_out"
    clock.advance(10)
    assert session.tick() == "finished"
    assert session.session_overrun
    runs = session.runs()
    assert runs[0].reached and not runs[1].reached
    assert [r.reached for r in session.records] == [True, True, False, False, False, False]


def test_a_code_step_keeps_the_last_verdict(cards, clock):
    session = session_of(cards, ["loss-accumulation"], clock, level="junior")
    session.start()
    with pytest.raises(RuntimeError, match="code task"):
        session.set_verdict(Verdict(verdict="leak", device="cpu"))
    session.submit("explanation")
    session.set_verdict(Verdict(verdict="leak", device="cpu"))
    session.set_verdict(Verdict(verdict="clean", device="cpu"))
    session.submit("fixed code")
    assert session.runs()[0].code.verdict.verdict == "clean"
    assert session.runs()[0].code.text == "fixed code"


def test_quitting_early_keeps_what_was_done(cards, clock):
    session = session_of(cards, ["no-grad-eval", "retain-graph-error"], clock, level="junior")
    session.start()
    clock.advance(20)
    session.finish_early()
    assert session.state == "finished"
    assert session.records[0].seconds == 20 and session.records[0].reached
    assert not session.runs()[1].reached


def test_bad_settings_are_refused(cards, clock):
    with pytest.raises(ValueError, match="at least one question"):
        MockSession([], level="junior", clock=clock)
    with pytest.raises(ValueError, match="--minutes must be positive"):
        session_of(cards, ["no-grad-eval"], clock, level="junior", minutes=0)


def test_mmss_formats_countdowns():
    assert mmss(0) == "00:00"
    assert mmss(59.2) == "01:00"
    assert mmss(125) == "02:05"
    assert mmss(-3.5) == "-00:04"
