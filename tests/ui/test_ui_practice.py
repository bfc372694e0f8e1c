"""Practising a card by keys: clock, progressive reveal, tier switch, follow-ups, self-grade, record."""

from __future__ import annotations

from pilot_wait import drained, until, until_screen
from textual.app import App, ComposeResult
from textual.widgets import SelectionList, Static
from ui_fakes import SIZE, FakeClock

from app.practice.drafts import Drafts
from app.ui.dialogs.confirm import LeaveCardDialog
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.clock import AnswerClock
from app.ui.widgets.reveal import RevealSection


def practise(app, card_ids: list[str]) -> None:
    queue = [app.library.card(card_id) for card_id in card_ids]
    app.practise(queue)


def revealed_kinds(screen: PracticeScreen) -> list[str]:
    return [f"{s.step.kind}:{s.step.index}" for s in screen.query(RevealSection)]


async def test_clock_runs_until_the_first_reveal(make_app, clock):
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        clock.advance(25)
        answer_clock = screen.query_one(AnswerClock)
        assert answer_clock.elapsed == 25
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.revealed == 1)
        clock.advance(60)
        assert answer_clock.elapsed == 25
        assert not answer_clock.running
        assert answer_clock.has_class("-over-basic")


async def test_reveal_goes_step_by_step_with_follow_ups_one_at_a_time(make_app):
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+n", "ctrl+n")
        await until(pilot, lambda: revealed_kinds(screen) == ["key_points:0", "basic:0"])
        await pilot.press(*["ctrl+n"] * 5)
        await until(pilot, lambda: revealed_kinds(screen)[-1] == "follow_up_question:0")
        assert "What does detach() return?" in str(
            screen.query(RevealSection).last().query(Static).last().render()
        )
        await pilot.press("ctrl+n")
        await until(pilot, lambda: revealed_kinds(screen)[-1] == "follow_up_answer:0")
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await until(
            pilot,
            lambda: (
                revealed_kinds(screen)[-3:]
                == ["follow_up_question:1", "follow_up_answer:1", "red_flags:0"]
            ),
        )
        await pilot.press("ctrl+n")
        await until_screen(pilot, SelfGradeDialog)


async def test_level_comes_from_settings_and_switches_per_card(make_app, history):
    history.set_setting("level", "senior")
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*["ctrl+n"] * 4)
        tier_text = await until(pilot, lambda: screen.query_one("#tier-text", Static))
        assert str(tier_text.render()) == "Compare no_grad with inference_mode and their limits."
        await pilot.press("ctrl+t")
        await until(pilot, lambda: screen.level == "principal")
        assert str(tier_text.render()) == "Set conventions so evaluation code cannot forget it."
        assert app.settings.level == "senior"


async def test_self_grade_preticks_from_the_answer_and_records_the_attempt(
    make_app, history, clock
):
    app = make_app(practising=["no-grad", "retain-graph"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*"It builds a graph and wastes memory")
        await until(pilot, lambda: screen.answer_text == "It builds a graph and wastes memory")
        clock.advance(30)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.revealed == 1)
        clock.advance(12)
        await pilot.press("ctrl+g")
        dialog = await until_screen(pilot, SelfGradeDialog)
        points = dialog.query_one("#self-grade-points", SelectionList)
        assert sorted(points.selected) == [0, 1]
        assert "Suggested: Hard" in str(dialog.query_one("#self-grade-rating").render())
        points.select(2)
        await until(
            pilot, lambda: "Suggested: Easy" in str(dialog.query_one("#self-grade-rating").render())
        )
        await pilot.press("ctrl+g")
        await until(
            pilot, lambda: isinstance(app.screen, PracticeScreen) and app.screen is not screen
        )
        attempt = history.attempts("no-grad")[0]
        assert attempt.rating == "easy"
        assert attempt.phase_seconds == {"answer": 30.0, "review": 12.0}
        assert attempt.answer_text == "It builds a graph and wastes memory"
        assert attempt.key_points_missed == ()
        assert isinstance(app.screen, PracticeScreen)
        assert app.screen.card.id == "retain-graph"


async def test_a_red_flag_said_rates_again(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        practise(app, ["running-loss"])
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*"the garbage collector frees it")
        await until(pilot, lambda: screen.answer_text == "the garbage collector frees it")
        await pilot.press("ctrl+g")
        flags = (await until_screen(pilot, SelfGradeDialog)).query_one(
            "#self-grade-flags", SelectionList
        )
        assert flags.selected == [0]
        await pilot.press("ctrl+g")
        await until_screen(pilot, HomeScreen)
        assert history.attempts("running-loss")[0].rating == "again"
        assert history.attempts("running-loss")[0].red_flags_said == (
            "Saying the garbage collector will clean it up eventually",
        )


async def test_escape_in_self_grade_returns_to_the_card_without_recording(make_app, history):
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)
        await pilot.press("escape")
        assert await until_screen(pilot, PracticeScreen) is screen
        assert history.attempts() == []


async def test_finishing_the_queue_returns_home_with_progress_updated(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        practise(app, ["no-grad"])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)
        await pilot.press("ctrl+g")
        await until_screen(pilot, HomeScreen)
        assert len(history.attempts()) == 1
        assert "no-grad" in app.screen.due_dates  # seen: it has a due date


async def test_escape_leaves_practice(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        practise(app, ["no-grad"])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("escape")
        await until_screen(pilot, HomeScreen)


MARKUP_LIKE = "losses[17] keeps [/b] the [bold]graph[/bold] in cache['h'][3]"


async def test_card_text_that_looks_like_markup_is_shown_verbatim(make_app, library, runner):
    from checkers.verdict import Retained, Verdict
    from questions.library import LoadedCard
    from questions.model import FollowUp, KeyPoint, RedFlag

    original = library.card("running-loss")
    card = original.card.model_copy(
        update={
            "question": MARKUP_LIKE,
            "key_points": [KeyPoint(point=MARKUP_LIKE)] * 3,
            "red_flags": [RedFlag(flag=MARKUP_LIKE)],
            "follow_ups": [FollowUp(question=MARKUP_LIKE, answer=MARKUP_LIKE)],
            "code_task": original.card.code_task.model_copy(
                update={"prompt": MARKUP_LIKE, "hints": [MARKUP_LIKE]}
            ),
        }
    )
    runner.verdict = Verdict(
        verdict="leak",
        device="cpu",
        message=MARKUP_LIKE,
        hint=MARKUP_LIKE,
        retained=(Retained(path="losses[17]", grad_fn="[/b]", graph_nodes=1, saved_bytes=1),),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([LoadedCard(card, original.path, original.pack)])
        screen = await until_screen(pilot, PracticeScreen)
        assert str(screen.query_one("#practice-question", Static).render()) == MARKUP_LIKE
        await pilot.press(*["ctrl+n"] * len(screen.plan))
        await until(pilot, lambda: screen.revealed == len(screen.plan))
        await pilot.press("ctrl+r")
        await until(pilot, lambda: screen.code_panel.completed_runs == 1)
        assert str(screen.query_one("#verdict-message", Static).render()) == MARKUP_LIKE
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)


async def test_typing_goes_into_the_answer_as_soon_as_a_card_opens(make_app):
    """With or without a code task (whose tabs mount later), the answer box has the focus."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for card_id in ("running-loss", "no-grad"):
            practise(app, [card_id])
            screen = await until_screen(pilot, PracticeScreen)
            await pilot.press("h", "i")
            await until(pilot, lambda screen=screen: screen.answer_text == "hi")
            app.pop_screen()
            await until_screen(pilot, HomeScreen)


async def test_escape_with_a_typed_answer_asks_before_leaving(make_app):
    """esc also cancels runs: one press too many must not throw away an answer."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        practise(app, ["no-grad"])
        await until_screen(pilot, PracticeScreen)
        await pilot.press(*"my answer", "escape")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        assert isinstance(app.screen, PracticeScreen) and app.screen.answer_text == "my answer"
        await pilot.press("escape")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press("enter")
        await until_screen(pilot, HomeScreen)


async def test_escape_with_edited_code_asks_in_a_dialog_that_keys_typed_after_do_not_pass(
    make_app, tmp_path
):
    """The question is a dialog, not a corner notice: the keys typed next go to it, not into
    the code, and no letter leaves (a `y` typed on is not a yes). Where the code cannot be kept
    as a draft (tests/ui/test_ui_drafts.py has it kept)."""
    app = make_app()
    (tmp_path / "a-file").write_text("")
    app.drafts = Drafts(tmp_path / "a-file" / "drafts")
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        practise(app, ["running-loss"])
        screen = await until_screen(pilot, PracticeScreen)
        await until(pilot, lambda: screen.code_panel)
        await pilot.press("ctrl+o")
        editor = screen.code_panel.editor
        await until(pilot, lambda: app.focused is editor)
        await pilot.press("x", "escape")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press(*"yes")
        await drained(pilot)
        assert isinstance(app.screen, LeaveCardDialog), "letters neither leave nor type"
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        assert editor.text.startswith("x") and "yes" not in editor.text
        await pilot.press("y", "escape")
        await until_screen(pilot, LeaveCardDialog)
        assert isinstance(app.screen, LeaveCardDialog), "typing since the warning asks again"
        await pilot.press("enter")
        await until_screen(pilot, HomeScreen)


async def test_escape_after_a_run_with_the_code_unchanged_leaves_at_once(make_app, runner):
    """Nothing would be lost: no question."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        practise(app, ["running-loss"])
        screen = await until_screen(pilot, PracticeScreen)
        panel = await until(pilot, lambda: screen.code_panel)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.completed_runs == 1)
        await pilot.press("escape")
        await until_screen(pilot, HomeScreen)


async def test_the_answer_clock_holds_while_the_code_task_is_open(make_app, clock):
    """It times the answer, as its budgets do, not the minutes spent on the code."""
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        answer_clock = screen.query_one(AnswerClock)
        panel = await until(pilot, lambda: screen.code_panel)
        clock.advance(10)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: app.focused is panel.editor)
        assert not answer_clock.running
        clock.advance(300)
        assert answer_clock.elapsed == 10
        await pilot.press("ctrl+o")
        await until(pilot, lambda: answer_clock.running)
        clock.advance(5)
        assert answer_clock.elapsed == 15
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.revealed == 1)
        assert answer_clock.elapsed == 15 and not answer_clock.running


class ClockOnly(App[None]):
    def __init__(self, clock: AnswerClock) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield self.clock


async def test_a_clock_tick_draws_only_a_change_and_lays_out_only_a_wider_time(monkeypatch):
    """It ticks twice a second: each tick drew the clock again and laid out the whole screen."""
    time = FakeClock()
    clock = AnswerClock(time, basic=2000, solid=5000)  # its colour stays the same throughout
    app = ClockOnly(clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await drained(pilot)
        layouts: list[bool] = []
        real = clock.refresh
        monkeypatch.setattr(
            clock,
            "refresh",
            lambda *a, **k: layouts.append(k.get("layout", False)) or real(*a, **k),
        )
        clock._tick()
        assert layouts == [], "nothing shown changed"
        time.advance(5)
        clock._tick()
        assert layouts == [False] and "0:05 ·" in str(clock.render())
        time.advance(600)
        clock._tick()
        assert layouts == [False, True] and "10:05 ·" in str(clock.render())
