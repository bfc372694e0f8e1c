"""Pilot test of an interviewer-mode mock: the script, the ticks, and the score they give."""

from mock_helpers import SIZE, app_for, text_of
from pilot_wait import until, until_screen

from app.mock.session import MockSession
from app.ui.dialogs.confirm import ConfirmDialog
from app.ui.screens.mock_interviewer import MockInterviewerScreen
from app.ui.screens.mock_report import MockReportScreen


async def test_an_interviewer_mock_scores_the_ticks(cards, clock, history):
    session = MockSession(
        [cards["retain-graph-error"], cards["no-grad-eval"]],
        level="senior",
        role="interviewer",
        clock=clock,
    )
    app, _ = app_for(session, history, clock, MockInterviewerScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockInterviewerScreen)
        await until(pilot, lambda: screen.shown)
        card = cards["retain-graph-error"].card
        assert card.question in text_of(app, "#interviewer-question")
        assert text_of(app, "#interviewer-expected") == card.tiers.senior
        assert text_of(app, "#mock-countdown") == "⏱ 01:15"  # solid 50 s, spoken: x 1.5
        points = screen.query_one("#interviewer-points")
        points.select(0)
        points.select(1)
        points.select(3)
        await pilot.press("ctrl+n")
        await until(
            pilot, lambda: f"Ask: {card.follow_ups[0].question}" in text_of(app, "#interviewer-ask")
        )
        await pilot.press("ctrl+n")
        await until(
            pilot, lambda: f"Ask: {card.follow_ups[1].question}" in text_of(app, "#interviewer-ask")
        )
        await pilot.press("ctrl+n")

        await until(pilot, lambda: session.index == 3 and screen.shown is session.current)
        assert cards["no-grad-eval"].card.question in text_of(app, "#interviewer-question")
        assert screen.query_one("#interviewer-points").selected == []
        screen.query_one("#interviewer-flags").select(0)
        clock.advance(200)
        await screen.tick_clock()
        clock.advance(10)
        await screen.tick_clock()
        await until(pilot, lambda: screen.shown is session.current)
        await pilot.press("f8")
        await until_screen(pilot, ConfirmDialog)
        await pilot.press("enter")
        scores = (await until_screen(pilot, MockReportScreen)).report.score.questions
    assert [q.score for q in scores] == [0.75, 0.0]
    assert scores[1].red_flags_said == (cards["no-grad-eval"].card.red_flags[0].flag,)
    assert session.records[3].timed_out


async def test_on_the_code_step_the_interviewer_sees_what_to_watch_for(cards, clock, history):
    """The card's hints and the fix itself, starter against solution."""
    session = MockSession(
        [cards["loss-accumulation"]], level="junior", role="interviewer", clock=clock
    )
    app, _ = app_for(session, history, clock, MockInterviewerScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockInterviewerScreen)
        await until(pilot, lambda: screen.shown)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.shown is session.current)
        assert session.current.kind == "code"
        watch = app.screen.query_one("#interviewer-watch")
        text = "\n".join(str(part.render()) for part in watch.query("Static"))
        task = cards["loss-accumulation"].card.code_task
        assert all(hint in text for hint in task.hints)
        assert "-    total = total + loss" in text and "+    total += loss.item()" in text
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.shown is session.current and session.index == 2)
        assert not app.screen.query("#interviewer-watch"), "gone once the code step is over"
