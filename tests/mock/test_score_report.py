"""Scores, the Markdown report and the attempts sent to the history."""

from datetime import UTC, datetime

import pytest

from app.mock.record import attempts
from app.mock.report import build_report, render_markdown
from app.mock.score import Judgement, score_session
from app.mock.session import MockSession
from app.practice.solution import SolutionView
from checkers.verdict import Verdict

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def finished(cards, clock, names, verdict=None, minutes=None):
    """A session where every step is answered in 10 s, except as `minutes` cuts it short."""
    session = MockSession([cards[n] for n in names], level="junior", clock=clock, minutes=minutes)
    session.start()
    while session.state != "finished":
        clock.advance(10)
        if session.current.kind == "code" and verdict:
            session.set_verdict(Verdict(verdict=verdict, device="cpu", message=f"graded {verdict}"))
        if session.tick() == "timed_out":
            clock.advance(10)
            session.tick()
        else:
            session.submit(f"said in step {session.index}")
    return session


def test_key_points_share_is_the_score(cards, clock):
    session = finished(cards, clock, ["retain-graph-error"])
    score = score_session(session.runs(), [Judgement(key_points_hit=frozenset({0, 1, 3}))])
    question = score.questions[0]
    assert question.score == pytest.approx(0.75)
    assert question.rating == "good"
    assert question.key_points_missed == (cards["retain-graph-error"].card.key_points[2].point,)


def test_a_red_flag_zeroes_the_question(cards, clock):
    session = finished(cards, clock, ["retain-graph-error"])
    score = score_session(session.runs(), [Judgement(frozenset({0, 1, 2, 3}), frozenset({0}))])
    assert score.questions[0].score == 0 and score.questions[0].rating == "again"
    assert score.questions[0].red_flags_said == (
        cards["retain-graph-error"].card.red_flags[0].flag,
    )


@pytest.mark.parametrize(
    ("verdict", "expected_score", "expected_rating"),
    [
        ("clean", 1.0, "easy"),
        ("leak", 0.5, "hard"),
        ("error", 0.5, "again"),
        (None, 0.5, "again"),
    ],
)
def test_the_code_verdict_counts_for_half_of_a_code_question(
    cards, clock, verdict, expected_score, expected_rating
):
    session = finished(cards, clock, ["loss-accumulation"], verdict=verdict)
    score = score_session(session.runs(), [Judgement(key_points_hit=frozenset({0, 1, 2}))])
    question = score.questions[0]
    assert question.verdict == (verdict or "not run")
    assert question.score == expected_score
    assert question.rating == expected_rating


def test_overall_is_the_mean_and_unreached_questions_count_as_zero(cards, clock):
    session = finished(cards, clock, ["no-grad-eval", "retain-graph-error"], minutes=0.5)
    runs = session.runs()
    assert runs[0].reached and not runs[1].reached
    score = score_session(
        runs, [Judgement(frozenset({0, 1, 2})), Judgement(frozenset({0, 1, 2, 3}))]
    )
    assert [q.score for q in score.questions] == [1.0, 0.0]
    assert score.overall == 0.5


def test_the_report_totals_and_sections(cards, clock):
    session = finished(cards, clock, ["no-grad-eval", "loss-accumulation"], verdict="leak")
    report = build_report(
        session, [Judgement(frozenset({0, 2})), Judgement(frozenset({0, 1, 2}), frozenset({0}))]
    )
    text = render_markdown(report)
    assert report.seconds == 10 * len(session.steps)
    assert "**Overall score: 33%**" in text
    assert f"time used {len(session.steps) * 10 // 60}:{len(session.steps) * 10 % 60:02d}" in text
    assert "| `no-grad-eval` | 67% | 0:30 / 3:00 | - | - |" in text
    assert "| `loss-accumulation` | 0% | 0:30 / 8:00 | 1 | leak |" in text
    assert "- [ ] Without a graph, activations are not saved" in text
    assert "Red flags said:\n- Calling torch.cuda.empty_cache() fixes the growth" in text
    assert "Follow-up: *How does inference_mode differ from no_grad?* (0:10 of 1:00)" in text
    assert "Code verdict: **leak**: graded leak" in text
    study = text.split("## What to study next")[1]
    assert study.index("`loss-accumulation` (0%)") < study.index("`no-grad-eval` (67%)")
    assert "missed: Without a graph, activations are not saved" in study


def test_attempts_are_recorded_per_reached_question(cards, clock):
    session = finished(
        cards, clock, ["loss-accumulation", "no-grad-eval"], verdict="clean", minutes=0.5
    )
    report = build_report(session, [Judgement(frozenset({0, 1})), Judgement()])
    recorded = attempts(report)
    assert [a.card_id for a in recorded] == ["loss-accumulation"]
    attempt = recorded[0]
    assert attempt.mode == "mock" and attempt.session_id == session.session_id
    assert attempt.rating == "good" and attempt.level == "junior", (
        "2 of 3 points and clean code: 83%"
    )
    # The 30 s limit struck during the follow-up, which then ran 10 s of grace.
    assert attempt.phase_seconds == {"answer": 10, "code": 10, "follow_ups": 20}
    assert attempt.code.verdict == "clean"
    assert attempt.key_points_missed == (cards["loss-accumulation"].card.key_points[2].point,)


def test_a_question_left_without_an_answer_is_skipped_not_failed(cards, clock):
    """f8 a second after a question appears: it scores 0, the report says it was skipped, and
    nothing is recorded for it, so a new card does not become due."""
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock
    )
    session.start()
    clock.advance(20)
    session.submit("no_grad records no graph")
    for _ in range(2):  # the first question's follow-ups, answered
        clock.advance(5)
        session.submit("stricter")
    clock.advance(1)
    session.finish_early()
    report = build_report(session, [Judgement(frozenset({0})), Judgement()])
    first, second = report.score.questions
    assert not first.skipped and second.skipped and second.reached
    assert second.score == 0 and report.score.overall == pytest.approx(first.score / 2)
    assert [a.card_id for a in attempts(report)] == ["no-grad-eval"]
    text = render_markdown(report)
    assert "| `retain-graph-error` | 0% | skipped |" in text
    assert "1 question left without an answer: skipped, scored 0 and not recorded" in text
    assert "Skipped: you moved on without answering it." in text


def test_a_question_whose_time_ran_out_with_nothing_typed_is_a_failed_recall(cards, clock):
    session = MockSession([cards["no-grad-eval"]], level="junior", clock=clock)
    session.start()
    clock.advance(10_000)
    assert session.tick() == "timed_out"
    clock.advance(10)
    session.tick()
    while session.state != "finished":
        session.submit("")
    report = build_report(session, [Judgement()])
    assert not report.score.questions[0].skipped
    assert [a.rating for a in attempts(report)] == ["again"]


def test_an_interviewer_ending_the_mock_on_a_question_with_nothing_ticked_skips_it(cards, clock):
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]],
        level="junior",
        role="interviewer",
        clock=clock,
    )
    session.start()
    session.submit()  # answered aloud, ticked below
    clock.advance(2)
    session.finish_early()  # ended during the follow-up: answered, not skipped
    report = build_report(session, [Judgement(), Judgement()])
    assert [q.skipped for q in report.score.questions] == [False, False]
    assert [a.card_id for a in attempts(report)] == ["no-grad-eval"]

    cut = MockSession([cards["no-grad-eval"]], level="junior", role="interviewer", clock=clock)
    cut.start()
    clock.advance(1)
    cut.finish_early()  # one second into the question
    assert build_report(cut, [Judgement()]).score.questions[0].skipped
    ticked = build_report(cut, [Judgement(frozenset({0}))])
    assert not ticked.score.questions[0].skipped, "a point heard is an answer"


def test_the_report_counts_time_against_the_interviews_planned_total(cards, clock):
    """As the interview's clock did ("of 35:00"), not against the steps reached ("of 9:00")."""
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock
    )
    session.start()
    clock.advance(30)
    session.submit("no graph")
    session.finish_early()
    report = build_report(session, [Judgement(), Judgement()])
    assert f"time used 0:30 of {clock_text(session.budget)} planned" in render_markdown(report)


def clock_text(seconds: float) -> str:
    from app.mock.report import clock

    return clock(seconds)


def test_a_solution_seen_before_the_mock_caps_the_question_as_in_practice(cards, clock):
    """The mock shows no solution, but one asked for before it (`grill task solution
    --give-up`) caps the task's attempt at Again, and one pasted back after it was earned too."""
    solution = cards["loss-accumulation"].card.code_task.solution
    for view, code, viewed in [
        (SolutionView(asked=True, at=T0), "my own fix", "asked"),
        (SolutionView(asked=False, at=T0), "# pasted\n" + solution, "copied"),
        (SolutionView(asked=False, at=T0), "my own fix", "earned"),
    ]:
        session = MockSession([cards["loss-accumulation"]], level="junior", clock=clock)
        session.start()
        while session.state != "finished":
            clock.advance(10)
            if session.current.kind == "code":
                session.set_verdict(Verdict(verdict="clean", device="cpu", message="clean"))
            session.submit(code if session.current.kind == "code" else "said")
        report = build_report(session, [Judgement(frozenset({0, 1, 2}))])
        assert attempts(report)[0].rating == "easy", "without the view: all points, clean"
        (attempt,) = attempts(report, {"loss-accumulation": view})
        assert attempt.solution_viewed == viewed
        assert attempt.rating == ("easy" if viewed == "earned" else "again")
