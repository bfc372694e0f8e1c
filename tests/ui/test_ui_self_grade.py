"""The self-grade dialog: ticks from the first key press, a suggested rating, and the user's own choice."""

from __future__ import annotations

from datetime import timedelta

from pilot_wait import until, until_screen
from textual.widgets import Button
from ui_fakes import NOW, SIZE

from app.progress.attempt import Attempt
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.wording import comes_back
from checkers.verdict import Verdict

CLEAN = Verdict(verdict="clean", device="cpu", steps=60, pattern="flat")


def rating_text(dialog) -> str:
    return str(dialog.query_one("#self-grade-rating").render())


async def open_dialog(app, pilot) -> SelfGradeDialog:
    """The self-grade of the practice screen the app opened on (or went to)."""
    await until_screen(pilot, PracticeScreen)
    await pilot.press("ctrl+g")
    return await until_screen(pilot, SelfGradeDialog)


async def test_space_ticks_a_key_point_as_soon_as_the_dialog_opens(make_app):
    """The key points' tick list has the focus on opening, so space ticks without a tab first."""
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        assert "0 of 3 key points" in rating_text(dialog)
        await pilot.press("space")
        await until(pilot, lambda: "1 of 3 key points" in rating_text(dialog))


async def test_keys_1_to_4_record_the_users_rating_whatever_the_suggestion(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([app.library.card("no-grad")])
        dialog = await open_dialog(app, pilot)
        assert "Suggested: Again" in rating_text(dialog)
        await pilot.press("3")
        await until_screen(pilot, HomeScreen)
        assert history.attempts("no-grad")[0].rating == "good"


async def test_each_rating_says_when_the_card_comes_back_and_recording_says_it_again(
    make_app, history
):
    history.record(
        Attempt(
            card_id="no-grad",
            mode="practice",
            rating="good",
            level="middle",
            phase_seconds={},
            started_at=NOW - timedelta(days=5),
        )
    )
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        labels = [
            str(dialog.query_one(f"#self-grade-{r}", Button).label)
            for r in ("again", "hard", "good", "easy")
        ]
        assert labels[0].startswith("1 Again · ") and labels[3].startswith("4 Easy · ")
        assert labels[3] != labels[2], "Easy pushes the card further than Good"
        await pilot.press("4")
        toast = await until(
            pilot,
            lambda: next(
                (n.message for n in app._notifications if n.message.startswith("Rated Easy")), None
            ),
        )
        assert toast == f"Rated Easy · back {comes_back(history.progress('no-grad').due, NOW)}."
        assert comes_back(history.progress("no-grad").due, NOW).endswith(("days", "weeks"))


async def test_a_clean_run_counts_as_half_the_question_and_the_dialog_says_so(make_app, runner):
    """A clean fix with nothing typed earns the code half, not "Again (0 of 5 key points)"."""
    runner.verdict = CLEAN
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=SIZE) as pilot:
        panel = (await until_screen(pilot, PracticeScreen)).code_panel
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.verdict == CLEAN)
        await pilot.press("ctrl+g")
        text = rating_text(await until_screen(pilot, SelfGradeDialog))
        assert "Suggested: Hard (50%: 0 of 3 key points; code clean (half the question))" in text


async def test_finishing_a_queue_counts_its_ratings_without_praise_for_agains(make_app):
    """Four Agains end in "4 cards rated: 4 Again.", with no "Well done" nor "card(s)"."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card(c) for c in ("no-grad", "retain-graph")])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)
        await pilot.press("1")
        await until(pilot, lambda: app.screen.card.id == "retain-graph")
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)
        await pilot.press("1")
        done = await until(
            pilot, lambda: [n for n in app._notifications if n.title == "Queue done"]
        )
        assert [n.message for n in done] == ["2 cards rated: 2 Again."]
        assert not any("Well done" in n.title or "(s)" in n.message for n in app._notifications)


async def test_at_100x30_both_lists_show_their_heading_and_items(make_app, library):
    """A long card: the red flags' heading no longer sits over a list cut off below it."""
    from questions.library import LoadedCard
    from questions.model import KeyPoint, RedFlag

    original = library.card("no-grad")
    long_text = "a key point long enough to wrap at this width " * 2
    card = original.card.model_copy(
        update={
            "key_points": [KeyPoint(point=f"{n}: {long_text}") for n in range(7)],
            "red_flags": [RedFlag(flag=f"flag {n}: {long_text}") for n in range(5)],
        }
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.practise([LoadedCard(card, original.path, original.pack)])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+g")
        dialog = await until_screen(pilot, SelfGradeDialog)
        frame = dialog.query_one("#self-grade").region
        points, flags = (dialog.query_one(s) for s in ("#self-grade-points", "#self-grade-flags"))
        await until(pilot, lambda: flags.region.height >= 2)
        headings = list(dialog.query(".self-grade-heading"))
        for heading, items in zip(headings, (points, flags), strict=True):
            assert frame.contains_region(heading.region) and frame.contains_region(items.region)
            assert items.region.y == heading.region.bottom, "the heading stands over its items"
        assert frame.contains_region(dialog.query_one("#self-grade-buttons").region)


async def test_the_notice_says_the_same_interval_as_the_button(make_app, history):
    """ "Hard · 6m" on the button was "back in 5 min" in the notice: the notice counted from a
    later moment, and the two rounded 5.5 minutes differently."""
    from datetime import timedelta

    from ui_fakes import NOW

    moments = iter([NOW + timedelta(seconds=s) for s in range(0, 600, 20)])
    app = make_app(now=lambda: next(moments), practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(app, pilot)
        button = str(dialog.query_one("#self-grade-hard", Button).label)
        minutes = button.rsplit("· ", 1)[1].removesuffix("m")
        await pilot.press("2")
        toast = await until(
            pilot,
            lambda: next(
                (n.message for n in app._notifications if n.message.startswith("Rated")), None
            ),
        )
        assert toast == f"Rated Hard · back in {minutes} min."
    assert history.attempts("no-grad")[0].rating == "hard"
