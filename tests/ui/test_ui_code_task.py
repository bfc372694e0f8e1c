"""The code task view: run in a worker, cancel, results, jumps to lines, reset, the solution once
earned or asked for."""

from __future__ import annotations

import functools
from datetime import timedelta

import pytest
from pilot_wait import drained, until, until_screen
from textual.widgets import OptionList, Static
from ui_fakes import NOW, SIZE

from app.practice.solution import pending_view, record_view
from app.practice.tasks import fix_attempt
from app.ui.dialogs.confirm import GiveUpDialog
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.dialogs.solution import SolutionDialog
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.bar_chart import BarChart
from app.ui.widgets.code_task import CodeTaskPanel
from app.ui.widgets.verdict_panel import VerdictPanel
from checkers.verdict import Retained, Verdict

LEAK = Verdict(
    verdict="leak",
    device="cpu",
    steps=60,
    pattern="monotonic",
    growth_bytes_per_step=2048.0,
    samples=tuple(2048.0 * step for step in range(60)),
    retained=(
        Retained(path="running", grad_fn="AddBackward0", graph_nodes=180, saved_bytes=4096, line=7),
    ),
    message="Memory grows every step: `running` keeps each step's graph.",
    hint="Keep a float: `running += loss.item()`.",
    output="step 0\n",
)
CLEAN = Verdict(
    verdict="clean",
    device="cpu",
    steps=60,
    pattern="flat",
    growth_bytes_per_step=83.0,
    samples=tuple(83.0 * step for step in range(60)),
    message="No graph outlives its step.",
)
REFUSED = Verdict.not_graded(
    "refused", "cpu", "line 3: 'torch.os' is not available in the sandbox", line=3
)
TIMEOUT = Verdict.not_graded("timeout", "cpu", "The run took longer than 30 s.")


@pytest.fixture
def make_app(make_app):
    """The app opened on the code task's card: what is tested here is that screen."""
    return functools.partial(make_app, practising=["running-loss"])


async def open_code_task(app, pilot) -> CodeTaskPanel:
    screen = await until_screen(pilot, PracticeScreen)
    panel = await until(pilot, lambda: screen.query_one(CodeTaskPanel))
    await pilot.press("ctrl+o")
    await until(pilot, lambda: app.focused is panel.editor)
    return panel


async def finish_runs(app, pilot) -> None:
    """Every run asked for has finished, and its result (or its failure) is on screen."""
    await app.workers.wait_for_complete()
    await until(pilot, lambda: not app.screen.query_one(CodeTaskPanel).running)
    await drained(pilot)


async def run_once(app, pilot) -> None:
    """Press ctrl+r and wait for that run's result: each run counts once it has finished."""
    panel = app.screen.query_one(CodeTaskPanel)
    before = panel.completed_runs, panel.run_number
    await pilot.press("ctrl+r")
    await until(pilot, lambda: panel.run_number > before[1])
    await until(
        pilot,
        lambda: (
            not panel.running
            and (panel.completed_runs > before[0] or panel.query_one("#code-status").display)
        ),
    )


def text(widget) -> str:
    return str(widget.render())


async def test_opening_the_task_warms_the_sandbox_with_the_settings_device(
    make_app, runner, history
):
    history.set_setting("device", "cpu")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await finish_runs(app, pilot)
        assert runner.warmed == ["cpu"]
        assert panel.editor.text == app.library.card("running-loss").card.code_task.starter
        assert panel.editor.show_line_numbers and panel.editor.language == "python"


async def test_a_leak_shows_verdict_curve_retained_hint_and_output(make_app, runner):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        result = panel.query_one(VerdictPanel)
        assert result.display and result.has_class("-failed")
        assert text(result.query_one("#verdict-headline")).startswith(
            "LEAK · monotonic · +2.0 KB/step"
        )
        assert result.query_one(BarChart).values == list(LEAK.samples)
        entry = str(result.query_one("#verdict-retained", OptionList).get_option_at_index(0).prompt)
        assert entry.startswith("running (line 7)") and "180 nodes" in entry
        assert "Keep a float" in text(result.query_one("#verdict-hint"))
        assert "step 0" in text(result.query_one("#verdict-output"))
        assert runner.sources == [panel.editor.text]


async def test_a_finished_run_shows_its_verdict_first_and_the_prompt_last(make_app, runner):
    """The side holds the newest result first and the task's prompt (then what is checked)
    last, so a run's verdict
    is at the top without a scroll computed while the layout settles (which can land rows too
    far down on a busy machine)."""
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_code_task(app, pilot)
        side = panel.query_one("#code-side")
        side.scroll_end(animate=False)
        await run_once(app, pilot)
        await run_once(app, pilot)
        assert side.scroll_y == 0
        children = [child for child in side.children if child.display]
        assert isinstance(children[0], VerdictPanel)
        assert [child.id for child in children[-2:]] == ["code-prompt", "code-contract"]


async def test_what_is_checked_shows_before_the_first_run(make_app, runner):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        said = text(panel.query_one("#code-contract"))
        assert said.startswith("Checked when you run it, against the reference solution:")
        assert "• leaves model as the reference solution does" in said, "backticks become style"
        assert "• trains as the reference solution does" in said


async def test_messages_and_hints_show_code_spans_without_backticks(make_app, runner):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        message, hint = (
            text(panel.query_one(selector)) for selector in ("#verdict-message", "#verdict-hint")
        )
        assert message == "Memory grows every step: running keeps each step's graph."
        assert hint == "Keep a float: running += loss.item()."


def chart_rows(chart: BarChart) -> list[str]:
    return str(chart.render()).splitlines()


async def test_the_memory_chart_has_a_scale_and_a_clean_run_draws_flat(make_app, runner):
    """+83 B/step is noise: it must not fill the chart the way a leak does."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        runner.verdict = CLEAN
        await run_once(app, pilot)
        chart = panel.query_one(BarChart)
        clean_rows = chart_rows(chart)
        assert clean_rows[0].strip().startswith("64.0 KB │") and clean_rows[3].strip().startswith(
            "0 B │"
        )
        assert clean_rows[-1].strip().startswith("step 1") and clean_rows[-1].endswith("step 60")
        assert set("".join(row.split("│")[1] for row in clean_rows[:3])) <= {" "}, (
            "only the bottom row has ink"
        )
        runner.verdict = LEAK
        await run_once(app, pilot)
        leak_rows = chart_rows(chart)
        assert "118.0 KB" in leak_rows[0] and "█" in leak_rows[0]


async def test_selecting_a_retained_object_moves_the_cursor_to_its_line(make_app, runner):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        panel.query_one("#verdict-retained", OptionList).focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.focused is panel.editor)
        assert panel.editor.cursor_location == (6, 0)


async def test_a_refusal_shows_its_message_and_offers_its_line_without_moving_the_cursor(
    make_app, runner
):
    """The cursor stays where the candidate left it; enter on the offered line goes there."""
    runner.verdict = REFUSED
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        panel.editor.move_cursor((5, 4))
        await run_once(app, pilot)
        result = panel.query_one(VerdictPanel)
        assert result.has_class("-not-graded")
        assert text(result.query_one("#verdict-headline")) == "REFUSED (line 3) on cpu"
        assert "'torch.os' is not available" in text(result.query_one("#verdict-message"))
        assert panel.editor.cursor_location == (5, 4) and panel.editor.selected_text == ""
        assert app.focused is panel.editor
        where = result.query_one("#verdict-where", OptionList)
        assert where.display and "line 3" in str(where.get_option_at_index(0).prompt)
        where.focus()
        await until(pilot, lambda: app.focused is where)
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is panel.editor)
        assert panel.editor.selected_text == "running = 0"


async def test_cancel_stops_the_run_at_once_and_drops_its_result(make_app, runner):
    runner.block, runner.verdict = True, LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.running and panel.has_class("-running"))
        await pilot.press("ctrl+o", "ctrl+o")
        await until(pilot, lambda: app.focused is panel.editor)
        assert panel.running
        await pilot.press("escape")
        await until(pilot, lambda: runner.cancels == 1)
        assert not panel.running and not panel.has_class("-running")
        assert isinstance(app.screen, PracticeScreen)
        await finish_runs(app, pilot)
        assert panel.verdict is None
        assert not panel.query_one(VerdictPanel).display
        assert "Cancelled" in text(panel.query_one("#code-status"))


async def test_a_cancelled_run_leaves_no_earlier_verdict_under_it(make_app, runner):
    """'Cancelled' never stands above the verdict of older code, as if that verdict were this run's."""
    runner.verdict = CLEAN
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        assert panel.verdict == CLEAN
        panel.editor.insert("while True:\n    pass\n", (0, 0))
        runner.block = True
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.running)
        await pilot.press("escape")
        await finish_runs(app, pilot)
        assert "Cancelled" in text(panel.query_one("#code-status"))
        assert not panel.query_one(VerdictPanel).display
        assert panel.verdict is None


async def test_a_verdict_is_marked_as_an_earlier_versions_once_the_code_changes(make_app, runner):
    runner.verdict = CLEAN
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        result = panel.query_one(VerdictPanel)
        panel.editor.insert("# my fix\n", (0, 0))
        await run_once(app, pilot)
        assert not result.has_class("-stale") and panel.verdict == CLEAN
        await pilot.press("ctrl+l", "y")  # the reset asks first: the code goes
        await until(pilot, lambda: result.has_class("-stale"))
        assert panel.verdict is None
        assert result.query_one("#verdict-stale").display
        panel.editor.load_text(runner.sources[-1])
        await until(pilot, lambda: not result.has_class("-stale"))
        assert panel.verdict == CLEAN, "undoing the change restores it"


async def test_a_verdict_for_changed_code_does_not_count_in_the_self_grade(make_app, runner):
    runner.verdict = CLEAN
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        panel.editor.insert("# later edit\n", (0, 0))
        await pilot.press("ctrl+g")
        dialog = await until_screen(pilot, SelfGradeDialog)
        assert dialog.suggestion.code == "not run"
        assert "no run of the code as it stands" in text(dialog.query_one("#self-grade-rating"))


async def test_a_grader_failure_is_shown_whole_without_a_class_name(make_app, runner):
    """The grader's whole message, not cut at 100 columns nor behind 'SandboxError:'."""
    runner.failure = "CUDA was requested, but this machine has no NVIDIA GPU device"
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        status = panel.query_one("#code-status", Static)
        await until(pilot, lambda: status.size.height >= 2)
        assert text(status) == (
            "Not graded, and nothing ran: CUDA was requested, but this machine has no "
            "NVIDIA GPU device"
        )
        assert "Error" not in text(status)
        assert status.size.height >= 2 and status.size.width <= 80, "wrapped, not cut"
        assert not panel.running


async def test_the_solution_before_any_fix_asks_first_and_esc_keeps_it_closed(
    make_app, runner, history
):
    """ctrl+s on the starter, even after running it unchanged, asks rather than showing it."""
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        await pilot.press("ctrl+s")
        dialog = await until_screen(pilot, GiveUpDialog)
        said = " ".join(text(static) for static in dialog.query("#confirm Static"))
        assert "records this attempt as Again" in said
        await pilot.press("enter")
        await drained(pilot)
        assert app.screen is dialog, "enter, meant for the editor, gives nothing up"
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        assert app.focused is panel.editor
        assert pending_view(history, "running-loss") is None


async def test_asking_for_the_solution_caps_the_attempt_at_again(make_app, runner, history):
    runner.verdict = CLEAN
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_code_task(app, pilot)
        await pilot.press("ctrl+s")
        await until_screen(pilot, GiveUpDialog)
        await pilot.press("y")
        dialog = await until_screen(pilot, SolutionDialog)
        assert "recorded as Again" in text(dialog.query_one("#solution-cap"))
        assert pending_view(history, "running-loss").asked, "kept, should the card be left"
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        await run_once(app, pilot)
        await pilot.press("ctrl+g")
        grade = await until_screen(pilot, SelfGradeDialog)
        grade.query_one("#self-grade-points").select_all()
        await until(
            pilot,
            lambda: "before solving the task" in text(grade.query_one("#self-grade-rating")),
        )
        assert grade.query_one("#self-grade-hard").disabled
        await pilot.press("1")
        attempt = (await until(pilot, lambda: history.attempts("running-loss")))[0]
        assert (attempt.rating, attempt.solution_viewed) == ("again", "asked")


async def test_a_fix_of_your_own_opens_it_and_pasting_it_back_records_again(
    make_app, runner, history, library
):
    solution = library.card("running-loss").card.code_task.solution
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        panel.editor.insert("x = 1\n", (0, 0))
        await run_once(app, pilot)
        await pilot.press("ctrl+s")
        dialog = await until_screen(pilot, SolutionDialog)
        assert "Graded next, this solution" in text(dialog.query_one("#solution-cap"))
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        panel.editor.load_text("# pasted\n" + solution.replace("running = 0.0", "running=0.0"))
        runner.verdict = CLEAN
        await run_once(app, pilot)
        await pilot.press("ctrl+g")
        await until_screen(pilot, SelfGradeDialog)
        await pilot.press("1")
        attempt = (await until(pilot, lambda: history.attempts("running-loss")))[0]
        assert (attempt.rating, attempt.solution_viewed) == ("again", "copied")


async def test_a_solution_asked_for_from_the_command_line_caps_the_apps_attempt(
    make_app, runner, history
):
    """`grill task solution --give-up`, then the task in the app: its next attempt is Again."""
    record_view(history, "running-loss", asked=True, at=NOW - timedelta(minutes=5))
    runner.verdict = CLEAN
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        panel.editor.insert("seen = []\n", (0, 0))
        await run_once(app, pilot)
        await pilot.press("ctrl+s")  # earned now, but the ask before it still stands
        dialog = await until_screen(pilot, SolutionDialog)
        assert "this attempt is recorded as Again" in text(dialog.query_one("#solution-cap"))
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        await pilot.press("ctrl+g")
        grade = await until_screen(pilot, SelfGradeDialog)
        await until(
            pilot,
            lambda: "before solving the task" in text(grade.query_one("#self-grade-rating")),
        )
        await pilot.press("1")
        attempt = (await until(pilot, lambda: history.attempts("running-loss")))[0]
        assert (attempt.rating, attempt.solution_viewed) == ("again", "asked")
        assert pending_view(history, "running-loss") is None


async def test_a_task_solved_before_opens_the_solution_at_once(make_app, runner, history, library):
    card = library.card("running-loss")
    history.record(
        fix_attempt(
            card,
            CLEAN,
            card.card.code_task.solution,
            level="middle",
            started_at=NOW - timedelta(days=3),
        )
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_code_task(app, pilot)
        await pilot.press("ctrl+s")
        await until_screen(pilot, SolutionDialog)
        view = pending_view(history, "running-loss")
        assert view is not None and not view.asked


async def test_after_a_run_the_solution_shows_your_code_against_it(make_app, runner, library):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        panel.editor.insert("seen = []\n", (0, 0))
        await run_once(app, pilot)
        await pilot.press("ctrl+s")
        dialog = await until_screen(pilot, SolutionDialog)
        diff = text(dialog.query_one("#solution-diff")).splitlines()
        assert "-seen = []" in diff and "+    running += loss.item()" in diff
        assert dialog.query_one("#solution-code", Static).content.code == (
            library.card("running-loss").card.code_task.solution.rstrip()
        )
        await pilot.press("escape")
        await until_screen(pilot, PracticeScreen)
        assert app.screen.query_one(CodeTaskPanel).editor.text.startswith("seen = []")
        await pilot.press("ctrl+l", "y")
        starter = library.card("running-loss").card.code_task.starter
        await until(pilot, lambda: panel.editor.text == starter)


async def test_a_leaking_verdict_caps_the_recorded_rating(make_app, runner, history):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_code_task(app, pilot)
        await run_once(app, pilot)
        await pilot.press("ctrl+g")
        dialog = await until_screen(pilot, SelfGradeDialog)
        dialog.query_one("#self-grade-points").select_all()
        await until(
            pilot, lambda: "Suggested: Hard" in text(dialog.query_one("#self-grade-rating"))
        )
        assert dialog.query_one("#self-grade-easy").disabled
        await pilot.press("4")
        await drained(pilot)
        assert isinstance(app.screen, SelfGradeDialog), "a rating above the cap is refused"
        await pilot.press("2")
        attempt = (await until(pilot, lambda: history.attempts("running-loss")))[0]
        assert attempt.rating == "hard"
        assert attempt.code is not None and attempt.code.verdict == "leak"
        assert attempt.code.retained_paths == ("running",)
        assert "code" in attempt.phase_seconds


async def test_hints_come_one_at_a_time_on_f2_and_the_graders_after_the_cards(
    make_app, runner, library
):
    """A failed run no longer shows the grader's hint (which gives the fix away) above the
    card's first: each f2 shows the card's next hint, then the grader's for the last run."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        hints = panel.query_one("#code-hints")
        result = panel.query_one(VerdictPanel)
        first, second = library.card("running-loss").card.code_task.hints
        runner.verdict = LEAK
        await run_once(app, pilot)
        assert not hints.display and result.has_hint and not result.hint_shown
        assert "f6 scrolls this · f2 hint (2 left)" in text(result.query_one("#verdict-facts"))
        await pilot.press("f2")
        await until(pilot, lambda: text(hints) == f"Card hint 1 of 2: {first}")
        assert app.focused is panel.editor, "typing goes on in the editor"
        runner.verdict = TIMEOUT
        await run_once(app, pilot)
        assert text(hints) == f"Card hint 1 of 2: {first}", "a hint asked for stays"
        runner.verdict = LEAK
        await run_once(app, pilot)
        await pilot.press("f2")
        await until(
            pilot, lambda: text(hints) == f"Card hint 1 of 2: {first}\nCard hint 2 of 2: {second}"
        )
        assert not result.hint_shown
        assert "f2 the grader's hint" in text(result.query_one("#verdict-facts"))
        await pilot.press("f2")
        await until(pilot, lambda: result.hint_shown)
        await pilot.press("f2")
        notice = await until(
            pilot, lambda: [n.message for n in app._notifications if n.title == "No more hints"]
        )
        assert notice == ["Every hint is shown; ctrl+s shows the reference solution."]


async def test_the_graders_hint_opens_on_request_before_the_cards(make_app, runner):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        result = panel.query_one(VerdictPanel)
        result.query_one("#verdict-hint-box CollapsibleTitle").focus()
        await pilot.press("enter")
        await until(pilot, lambda: result.hint_shown)
        assert not panel.query_one("#code-hints").display


async def test_f6_moves_between_the_editor_and_the_result_and_tab_indents(make_app, runner):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        side = panel.query_one("#code-side")
        await pilot.press("f6")
        await until(pilot, lambda: app.focused is side)
        await pilot.press("f6")
        await until(pilot, lambda: app.focused is panel.editor)
        panel.editor.move_cursor((0, 0))
        await pilot.press("tab")
        await until(pilot, lambda: panel.editor.text.startswith("    import torch"))


async def test_the_result_names_the_runs_time_and_peak_memory(make_app, runner):
    from dataclasses import replace

    runner.verdict = replace(LEAK, extra={"timings": {"run": 1.234}, "peak_bytes": 3 * 1024**2})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await run_once(app, pilot)
        cost = panel.query_one("#verdict-facts")
        assert cost.display
        assert text(cost).startswith("Ran 1.23 s · peak memory +3.0 MB · f6 scrolls this")
        runner.verdict = replace(LEAK, extra={"timings": {"run": 12.5}})
        await run_once(app, pilot)
        assert text(cost).startswith("Ran 12.5 s · peak memory +118.0 KB · f6"), (
            "without a peak measured around torch calls, the highest step sample"
        )
        runner.verdict = REFUSED
        await run_once(app, pilot)
        assert not text(cost).startswith("Ran"), "nothing ran to measure"


async def test_cuda_without_a_gpu_is_said_once_in_the_apps_terms(make_app, runner, monkeypatch):
    """No `--device cpu or auto` (a flag of grill check) and no "nothing ran" twice: what to do
    in the app, once, whether the warm start or the run found it out."""
    from app.ui.code_runner import NO_CUDA, DeviceMissing

    def no_cuda(*args, **kwargs):
        raise DeviceMissing(NO_CUDA)

    monkeypatch.setattr(runner, "warm", no_cuda)
    monkeypatch.setattr(runner, "grade", no_cuda)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        status = panel.query_one("#code-status", Static)
        await until(pilot, lambda: text(status) == NO_CUDA)
        await run_once(app, pilot)
        shown = text(status)
        assert shown == f"Not graded. {NO_CUDA}"
        assert "Settings (o on home)" in shown and "--device" not in shown
        assert shown.count("cannot run") == 1 and "nothing ran" not in shown


def test_the_runner_turns_the_sandboxs_device_error_into_the_apps_words(monkeypatch, library):
    import pytest

    import checkers.api
    from app.ui.code_runner import NO_CUDA, DeviceMissing, SandboxRunner
    from checkers.sandbox import SandboxError

    class NoGpuSandbox:
        def start(self):
            raise SandboxError("No CUDA device ... (--device cpu or auto).", kind="device")

    monkeypatch.setattr(checkers.api, "grading_sandbox", lambda device: NoGpuSandbox())
    with pytest.raises(DeviceMissing, match="choose cpu for code tasks in Settings") as raised:
        SandboxRunner().warm("cuda")
    assert str(raised.value) == NO_CUDA
