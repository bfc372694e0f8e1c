"""Pilot tests of whole candidate-mode mocks with a fake clock: nothing here waits for real time."""

import re
from pathlib import Path

import pytest
from mock_helpers import SIZE, app_for, text_of
from pilot_wait import drained, until, until_screen

from app.mock.report import render_markdown
from app.mock.session import MockSession
from app.ui.dialogs.confirm import ConfirmDialog
from app.ui.screens.mock import MockScreen
from app.ui.screens.mock_report import MockReportScreen
from app.ui.screens.mock_review import MockReviewScreen


async def test_a_candidate_mock_from_first_question_to_recorded_report(
    cards, clock, history, tmp_path
):
    session = MockSession(
        [cards["no-grad-eval"], cards["loss-accumulation"]], level="junior", clock=clock
    )
    report_file = tmp_path / "out" / "mock.md"
    app, runner = app_for(session, history, clock, MockScreen, report_path=report_file)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        await until(pilot, lambda: screen.shown)
        assert "Question 1 of 2" in text_of(app, "#mock-step")
        assert text_of(app, "#mock-countdown") == "⏱ 01:00"

        screen.answer.insert("no_grad means no graph is recorded, so it saves memory")
        clock.advance(25)
        await screen.tick_clock()
        assert text_of(app, "#mock-countdown") == "⏱ 00:35"
        await pilot.press("ctrl+n")
        await until(pilot, lambda: "follow-up 1" in text_of(app, "#mock-step"))
        await until(pilot, lambda: "inference_mode" in text_of(app, "#mock-prompt"))
        assert screen.query_one("#mock-progress").percentage == pytest.approx(1 / 6)
        assert "inference_mode" in text_of(app, "#mock-prompt")
        assert screen.answer.text == ""

        # The follow-up's budget runs out: the candidate is told, then moved on after the grace.
        screen.answer.insert("it is stricter")
        clock.advance(60)
        await screen.tick_clock()
        await until(pilot, lambda: screen.query_one("#mock-notice").display)
        assert "Time is up" in text_of(app, "#mock-notice")
        assert "follow-up 1" in text_of(app, "#mock-step")
        clock.advance(10)
        await screen.tick_clock()
        await until(pilot, lambda: "follow-up 2" in text_of(app, "#mock-step"))
        assert not screen.query_one("#mock-notice").display
        await pilot.press("ctrl+n")

        # Question 2: answer, then the code task run through the (fake) code runner, then one follow-up.
        await until(pilot, lambda: screen.shown is session.current)
        assert "Question 2 of 2" in text_of(app, "#mock-step")
        screen.answer.insert("I would call torch.cuda.empty_cache() each step")
        clock.advance(30)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.shown is session.current)
        assert "code task" in text_of(app, "#mock-step")
        panel = screen.query_one("#mock-code")
        panel.editor.load_text(
            panel.editor.text.replace("total = total + loss", "total += loss.item()")
        )
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.result is not None)  # the worker's result is a message
        assert panel.verdict.verdict == "clean"
        clock.advance(100)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: "Why might you prefer detach()" in text_of(app, "#mock-prompt"))
        await pilot.press("ctrl+n")

        # Review: pre-marks from the typed answers, confirmed by the candidate.
        review = await until_screen(pilot, MockReviewScreen)
        first = review.query_one("#review-points-0").selected
        assert set(first) == {0, 1}
        assert review.query_one("#review-flags-1").selected == [0]
        await pilot.press("ctrl+s")
        report = await until_screen(pilot, MockReportScreen)

    # no-grad-eval: 2 of 3 key points = 67%; loss-accumulation: a red flag said = 0%.
    assert [round(q.score, 2) for q in report.report.score.questions] == [0.67, 0.0]
    assert [r.seconds for r in session.records] == [25, 70, 0, 30, 100, 0]
    recorded = history.attempts()
    assert {a.card_id for a in recorded} == {"no-grad-eval", "loss-accumulation"}
    assert {a.session_id for a in recorded} == {session.session_id}
    assert {a.mode for a in recorded} == {"mock"}
    by_card = {a.card_id: a for a in recorded}
    assert by_card["loss-accumulation"].code.verdict == "clean"
    assert by_card["loss-accumulation"].rating == "again"
    assert "**Overall score: 33%**" in report_file.read_text()
    assert runner.graded and ".item()" in runner.graded[-1]


async def test_the_session_limit_ends_the_mock_and_the_report_exports_on_a_key(
    cards, clock, history, tmp_path
):
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock, minutes=1
    )
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        clock.advance(59)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: session.index == 1)
        clock.advance(1)
        await screen.tick_clock()
        await until(pilot, lambda: "interview's time is up" in text_of(app, "#mock-notice"))
        clock.advance(10)
        await screen.tick_clock()
        review = await until_screen(pilot, MockReviewScreen)
        assert not review.query("#review-points-1")
        await pilot.press("ctrl+s")
        await until_screen(pilot, MockReportScreen)
        await pilot.press("x")
        written = await until(
            pilot, lambda: re.search(r"Report written to (.+)\.$", text_of(app, "#report-status"))
        )
        exported = Path(written.group(1)) if written else None
    assert exported is not None and exported.parent == tmp_path / "home" / "reports"
    text = exported.read_text()
    assert "| `retain-graph-error` | 0% | not reached |" in text
    assert [a.card_id for a in history.attempts()] == ["no-grad-eval"]


async def test_every_footer_key_fits_at_80_columns_on_a_code_step(cards, clock, history):
    """The code step shows the most keys; at 80x24 none may be cut off."""
    from textual.widgets._footer import FooterKey

    session = MockSession([cards["loss-accumulation"]], level="junior", clock=clock)
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, MockScreen)
        await pilot.press("ctrl+n")
        await until(
            pilot, lambda: session.current.kind == "code" and app.screen.query("#mock-code")
        )
        keys = await until(
            pilot,
            lambda: (
                "ctrl+r" in {key.key for key in app.screen.query(FooterKey)}
                and list(app.screen.query(FooterKey))
            ),
        )
        assert {key.key for key in keys} >= {"ctrl+n", "ctrl+r", "escape", "ctrl+l", "f8"}
        palette_left = app.screen.query_one("FooterKey.-command-palette").region.x
        assert all(
            key.region.right <= palette_left
            for key in keys
            if not key.has_class("-command-palette")
        )


async def test_a_report_path_that_looks_like_markup_is_named_verbatim(
    cards, clock, history, tmp_path
):
    """The report's status line quotes the path (and the OS error) as written, never as markup."""
    folder = tmp_path / "[/b] [bold]x"
    session = MockSession([cards["no-grad-eval"]], level="junior", clock=clock)
    app, _ = app_for(session, history, clock, MockScreen, report_path=folder / "mock.md")
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, MockScreen)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await until_screen(pilot, MockReviewScreen)
        await pilot.press("ctrl+s")
        await until_screen(pilot, MockReportScreen)
        await until(
            pilot,
            lambda: f"Report written to {folder / 'mock.md'}." in text_of(app, "#report-status"),
        )
        assert (folder / "mock.md").exists()
        folder.joinpath("mock.md").unlink()
        folder.rmdir()
        folder.write_text("a file where the folder was")
        await pilot.press("x")
        status = await until(
            pilot,
            lambda: (
                "Could not write" in text_of(app, "#report-status")
                and text_of(app, "#report-status")
            ),
        )
        assert str(folder) in status


async def test_the_report_says_what_was_recorded_without_covering_it_in_toasts(
    cards, clock, history
):
    """The report's status line says what was recorded; no 'Rated ... and recorded' toasts cover
    its Score and Time columns."""
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock
    )
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        for _ in session.steps:
            await until(pilot, lambda: screen.shown is session.current)
            screen.answer.insert("an answer")  # a question moved past empty is skipped instead
            await pilot.press("ctrl+n")
        await until_screen(pilot, MockReviewScreen)
        await pilot.press("ctrl+s")
        await until_screen(pilot, MockReportScreen)
        await drained(pilot)
        assert list(app._notifications) == []
        assert text_of(app, "#report-status").startswith("2 answers recorded in your history.")


async def test_ending_early_asks_first_and_the_report_says_the_candidate_ended_it(
    cards, clock, history
):
    """ctrl+e (end of line in editors) does not end the mock at once, nor blame the clock."""
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock
    )
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        await pilot.press(*"no graph", "home", "ctrl+e")
        await until(pilot, lambda: screen.answer.cursor_location == (0, 8))
        assert session.state == "running", "ctrl+e is the editor's"
        await pilot.press("f8")
        await until_screen(pilot, ConfirmDialog)
        await pilot.press("escape")
        await until_screen(pilot, MockScreen)
        assert session.state == "running"
        await pilot.press("f8")
        await until_screen(pilot, ConfirmDialog)
        await pilot.press("enter")
        await until(pilot, lambda: session.state == "finished")
        assert session.ended_early
        await until_screen(pilot, MockReviewScreen)
        await pilot.press("ctrl+s")
        text = render_markdown((await until_screen(pilot, MockReportScreen)).report)
    assert "You ended the interview before the last question" in text
    assert "Not reached: you ended the interview before it." in text
    assert "time ran out" not in text


async def test_the_whole_sessions_clock_sits_beside_the_steps(cards, clock, history):
    limited = MockSession([cards["no-grad-eval"]], level="junior", clock=clock, minutes=15)
    app, _ = app_for(limited, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        clock.advance(70)
        await screen.tick_clock()
        assert text_of(app, "#mock-session-clock") == "interview 13:50 left of 15:00"
    open_ended = MockSession([cards["no-grad-eval"]], level="junior", clock=clock)
    app, _ = app_for(open_ended, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        clock.advance(70)
        await screen.tick_clock()
        assert text_of(app, "#mock-session-clock") == "interview 1:10 of 3:00"


async def test_the_clock_ticking_while_a_code_panel_is_built_or_removed_reads_no_half_panel(
    cards, clock, history, monkeypatch
):
    """The clock ticks on its own timer, so it may run while the code step's panel is still
    being composed or taken down; it must then leave the panel alone, not crash the app."""
    from app.ui.widgets.code_task import CodeTaskPanel

    session = MockSession([cards["loss-accumulation"]], level="junior", clock=clock)
    app, _ = app_for(session, history, clock, MockScreen)
    composing = CodeTaskPanel.compose

    def compose_with_a_tick(panel):
        panel.screen.sync_step()  # what tick_clock does first, before the panel has children
        yield from composing(panel)

    monkeypatch.setattr(CodeTaskPanel, "compose", compose_with_a_tick)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        while session.current.kind != "code":
            await pilot.press("ctrl+n")
            await drained(pilot)
        await until(pilot, lambda: "code task" in text_of(app, "#mock-step"))
        panel = await until(pilot, lambda: screen._code_panel())
        panel.editor.load_text("print('my fix')\n")
        screen.sync_step()  # once mounted, the panel is read as before
        assert session.current_record.text == "print('my fix')\n"


async def test_f8_a_second_into_a_question_skips_it_and_records_nothing_for_it(
    cards, clock, history
):
    """The scenario: f8 one second after the question appeared made the card due."""
    session = MockSession(
        [cards["no-grad-eval"], cards["retain-graph-error"]], level="junior", clock=clock
    )
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        await until(pilot, lambda: screen.shown)
        clock.advance(1)
        await pilot.press("f8")
        await until_screen(pilot, ConfirmDialog)
        await pilot.press("enter")
        await until_screen(pilot, MockReviewScreen)
        await pilot.press("ctrl+s")
        report = await until_screen(pilot, MockReportScreen)
        status = await until(pilot, lambda: text_of(app, "#report-status"))
    assert report.report.score.questions[0].skipped
    assert status.startswith(
        "0 answers recorded in your history (1 question skipped, not recorded)."
    )
    assert history.attempts() == [] and history.progress("no-grad-eval") is None


async def test_a_solution_asked_for_before_the_mock_caps_its_recorded_attempt(
    cards, clock, history
):
    """The mock shows no solution, but one asked for before it (`grill task solution
    --give-up`) is recorded by the task's mock attempt, capped at Again, as in practice."""
    from datetime import UTC, datetime

    from app.mock.report import build_report
    from app.mock.score import Judgement
    from app.practice.solution import pending_view, record_view
    from checkers.verdict import Verdict

    record_view(history, "loss-accumulation", asked=True, at=datetime(2026, 1, 1, tzinfo=UTC))
    session = MockSession([cards["loss-accumulation"]], level="junior", clock=clock)
    session.start()
    while session.state != "finished":
        clock.advance(10)
        if session.current.kind == "code":
            session.set_verdict(Verdict(verdict="clean", device="cpu", message="clean"))
        session.submit("my own fix" if session.current.kind == "code" else "said")
    report = build_report(session, [Judgement(frozenset({0, 1, 2}))])
    app, _ = app_for(report, history, clock, MockReportScreen)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, MockReportScreen)
        recorded = await until(pilot, lambda: history.attempts("loss-accumulation"))
    assert [(a.rating, a.solution_viewed) for a in recorded] == [("again", "asked")]
    assert pending_view(history, "loss-accumulation") is None


async def test_keys_typed_before_the_review_was_drawn_never_untick_it(cards, clock, history):
    """The rest of an answer typed as the mock ended (spaces, enter) lands on the review's tick
    list only if the candidate saw the review: keys typed before it was drawn are dropped, and
    the next key, typed after, acts."""
    from textual import events

    session = MockSession([cards["no-grad-eval"]], level="junior", clock=clock)
    session.start()
    while session.current is not None:
        clock.advance(20)
        session.submit("no_grad means no graph is recorded, so it saves memory")
    app, _ = app_for(session, history, clock, MockReviewScreen)
    async with app.run_test(size=SIZE) as pilot:
        review = await until_screen(pilot, MockReviewScreen)
        await until(pilot, lambda: review.shown_at is not None)
        points_list = review.query_one("#review-points-0")
        confirmed = set(points_list.selected)
        points_list.highlighted = min(confirmed)
        for key, character in [("space", " "), ("down", None), ("space", " ")]:
            typed_before = events.Key(key, character)
            typed_before.time = review.shown_at - 0.5
            typed_before.set_sender(app)
            app._driver.send_message(typed_before)  # as the terminal's driver sends a key
        await drained(pilot)
        assert set(points_list.selected) == confirmed
        await pilot.press("space")
        assert set(points_list.selected) == confirmed - {min(confirmed)}


@pytest.mark.parametrize("columns", [80, 100])
async def test_the_report_table_keeps_each_card_id_on_its_row(cards, clock, history, columns):
    """The report's table sizes its columns by their content: at 80 and 100 columns every card
    id, even one of 40 characters, and its score share one line (Textual's Markdown table gave
    each column the same width and wrapped the ids; a number before the id pushed a long one
    onto a line of its own, cut short)."""
    from dataclasses import replace

    from textual.geometry import Region

    from app.mock.report import build_report
    from app.mock.score import Judgement

    names = ["no-grad-eval", "retain-graph-error", "loss-accumulation"]
    long_id = "what-autograd-keeps-and-when-it-frees-it"
    session = MockSession(
        [cards[n] for n in names[:2]]
        + [replace(cards[names[2]], card=cards[names[2]].card.model_copy(update={"id": long_id}))],
        level="junior",
        clock=clock,
    )
    names[2] = long_id
    report = build_report(session, [Judgement() for _ in names])
    app, _ = app_for(session, history, clock, MockReviewScreen)
    async with app.run_test(size=(columns, 30)) as pilot:
        await until_screen(pilot, MockReviewScreen)
        app.switch_screen(MockReportScreen(report))
        screen = await until_screen(pilot, MockReportScreen)
        block = screen.query_one("#report-markdown")
        await until(pilot, lambda: block.content_region.width > 0)
        strips = block.render_lines(Region(0, 0, block.size.width, block.size.height))
        lines = [strip.text for strip in strips]
    for name in names:
        row = next(line for line in lines if name in line)
        assert "%" in row, row


async def test_a_tick_that_changes_no_time_shown_updates_nothing(
    cards, clock, history, monkeypatch
):
    """The bar is refreshed four times a second, and each update lays out the whole screen."""
    from textual.widgets import Static

    session = MockSession([cards["no-grad-eval"]], level="junior", clock=clock)
    app, _ = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        await until(pilot, lambda: screen.shown)
        updated: list[str] = []
        real = Static.update
        monkeypatch.setattr(
            Static, "update", lambda self, *a, **k: updated.append(self.id) or real(self, *a, **k)
        )
        await screen.tick_clock()
        assert updated == []
        clock.advance(1)
        await screen.tick_clock()
        assert "mock-countdown" in updated and text_of(app, "#mock-countdown") == "⏱ 00:59"
