"""The code task view: run in a worker, cancel, results, jumps to lines, reset, solution after a run."""

from __future__ import annotations

from ui_fakes import SIZE
from textual.widgets import DataTable, Label, Sparkline

from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.code_task import CodeTaskPanel
from app.ui.widgets.verdict_panel import VerdictPanel
from checkers.verdict import Retained, Verdict

LEAK = Verdict(
    verdict="leak", device="cpu", steps=60, pattern="monotonic", growth_bytes_per_step=2048.0,
    samples=(1.0, 2.0, 3.0, 4.0),
    retained=(Retained(path="running", grad_fn="AddBackward0", graph_nodes=180, saved_bytes=4096, line=7),),
    message="Memory grows every step.", hint="Keep a float, not a tensor.", output="step 0\n",
)
REFUSED = Verdict.not_graded("refused", "cpu", "line 3: 'torch.os' is not available in the sandbox", line=3)


async def open_code_task(app, pilot) -> CodeTaskPanel:
    app.practise([app.library.card("running-loss")])
    await pilot.pause()
    await pilot.press("ctrl+o")
    await pilot.pause()
    return app.screen.query_one(CodeTaskPanel)


async def finish_runs(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_opening_the_task_warms_the_sandbox_with_the_settings_device(make_app, grader, history):
    history.set_setting("device", "cpu")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await finish_runs(app, pilot)
        assert grader.warmed == ["cpu"]
        assert panel.editor.text == app.library.card("running-loss").card.code_task.starter
        assert panel.editor.show_line_numbers and panel.editor.language == "python"


async def test_a_leak_shows_verdict_curve_retained_hint_and_output(make_app, grader):
    grader.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        result = panel.query_one(VerdictPanel)
        assert result.display and result.has_class("-leak")
        assert str(result.query_one("#verdict-headline", Label).render()).startswith("LEAK · monotonic · +2.0 KB/step")
        assert result.query_one(Sparkline).data == [1.0, 2.0, 3.0, 4.0]
        table = result.query_one("#verdict-retained", DataTable)
        assert str(table.get_row_at(0)[0]) == "running"
        assert "Keep a float" in str(result.query_one("#verdict-hint").render())
        assert "step 0" in str(result.query_one("#verdict-output").render())
        assert grader.sources == [panel.editor.text]


async def test_selecting_a_retained_object_moves_the_cursor_to_its_line(make_app, grader):
    grader.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        panel.query_one("#verdict-retained", DataTable).focus()
        await pilot.press("enter")
        assert panel.editor.cursor_location == (6, 0)
        assert app.focused is panel.editor


async def test_a_refusal_shows_its_message_and_selects_the_line(make_app, grader):
    grader.verdict = REFUSED
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        result = panel.query_one(VerdictPanel)
        assert result.has_class("-not-graded")
        assert str(result.query_one("#verdict-headline", Label).render()) == "REFUSED (line 3) on cpu"
        assert "'torch.os' is not available" in str(result.query_one("#verdict-message").render())
        assert panel.editor.selected_text == "running = 0"


async def test_cancel_stops_the_run_at_once_and_drops_its_result(make_app, grader):
    grader.block, grader.verdict = True, LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert panel.running and panel.has_class("-running")
        await pilot.press("ctrl+o", "ctrl+o")
        assert panel.running
        await pilot.press("escape")
        assert grader.cancels == 1
        assert not panel.running and not panel.has_class("-running")
        assert isinstance(app.screen, PracticeScreen)
        await finish_runs(app, pilot)
        assert panel.verdict is None
        assert not panel.query_one(VerdictPanel).display
        assert "Cancelled" in str(panel.query_one("#code-status", Label).render())


async def test_a_grader_failure_is_reported_without_a_traceback(make_app, grader):
    grader.failure = "CUDA was requested but this machine has none"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        status = str(panel.query_one("#code-status", Label).render())
        assert status == "Could not grade: RuntimeError: CUDA was requested but this machine has none"
        assert not panel.running


async def test_solution_only_after_a_run_and_reset_restores_the_starter(make_app, grader):
    grader.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        await pilot.press("ctrl+s")
        assert not panel.has_class("-solution")
        panel.editor.insert("# my change\n", (0, 0))
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        await pilot.press("ctrl+s")
        assert panel.has_class("-solution")
        assert panel.editor.text.startswith("# my change")
        await pilot.press("ctrl+l")
        assert panel.editor.text == app.library.card("running-loss").card.code_task.starter


async def test_a_leaking_verdict_caps_the_recorded_rating(make_app, grader, history):
    grader.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_code_task(app, pilot)
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        await pilot.press("ctrl+g")
        dialog = app.screen
        assert isinstance(dialog, SelfGradeDialog)
        dialog.query_one("#self-grade-points").select_all()
        await pilot.pause()
        assert "Rating: Hard" in str(dialog.query_one("#self-grade-rating").render())
        await pilot.press("ctrl+g")
        await pilot.pause()
        attempt = history.attempts("running-loss")[0]
        assert attempt.rating == "hard"
        assert attempt.code is not None and attempt.code.verdict == "leak"
        assert attempt.code.retained_paths == ("running",)
        assert "code" in attempt.phase_seconds


async def test_each_run_that_is_not_clean_offers_one_more_card_hint(make_app, grader, library):
    grader.verdict = LEAK
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_code_task(app, pilot)
        hints = panel.query_one("#code-hints")
        assert not hints.display
        first, second = library.card("running-loss").card.code_task.hints
        await pilot.press("ctrl+r")
        await finish_runs(app, pilot)
        assert str(hints.render()) == f"Card hint 1 of 2: {first}"
        for _ in range(2):
            await pilot.press("ctrl+r")
            await finish_runs(app, pilot)
        assert str(hints.render()) == f"Card hint 1 of 2: {first}\nCard hint 2 of 2: {second}"
