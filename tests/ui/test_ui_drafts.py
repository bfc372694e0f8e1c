"""A code task's code kept between sessions: a draft per task in the data folder, restored when
the task opens, put back to the starter only after asking; a file worked on in the
candidate's own editor opened in the app; hints already seen through `grill task hint`."""

from __future__ import annotations

from pilot_wait import until, until_screen
from ui_fakes import SIZE

from app.practice.hints import hints_shown, record_hints_shown
from app.ui.dialogs.confirm import ConfirmDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.code_task import CodeTaskPanel
from checkers.verdict import Verdict

TASK = "running-loss"
LEAK = Verdict(verdict="leak", device="cpu", steps=60, message="`running` keeps graphs.")


async def open_task(app, pilot) -> CodeTaskPanel:
    """The task's code editor, on the practice screen the app opened on (or went to)."""
    screen = await until_screen(pilot, PracticeScreen)
    await until(pilot, lambda: screen.query(CodeTaskPanel))
    await pilot.press("ctrl+o")
    panel = screen.query_one(CodeTaskPanel)
    await until(pilot, lambda: app.focused is panel.editor)
    return panel


def starter(app) -> str:
    return app.library.card(TASK).card.code_task.starter


def status(panel: CodeTaskPanel) -> str:
    return str(panel.query_one("#code-status").render())


async def test_typed_code_is_kept_as_a_draft_and_restored_next_session(make_app, grill_home):
    draft = grill_home / "drafts" / f"{TASK}.py"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([app.library.card(TASK)])
        panel = await open_task(app, pilot)
        await pilot.press(*"# mine", "enter")
        await until(pilot, draft.exists)  # written shortly after the last keystroke
        assert draft.read_text() == "# mine\n" + starter(app)
        await pilot.press("#")
        await pilot.press("escape")  # leaving asks nothing: the code is kept, and saved now
        assert isinstance(app.screen, HomeScreen)
        assert draft.read_text() == "# mine\n#" + starter(app)
    app = make_app(practising=[TASK])
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_task(app, pilot)
        assert panel.editor.text == "# mine\n#" + starter(app)
        assert "is back" in status(panel) and "ctrl+l" in status(panel)


async def test_reset_asks_first_and_then_removes_the_draft(make_app, grill_home):
    draft = grill_home / "drafts" / f"{TASK}.py"
    draft.parent.mkdir(parents=True)
    draft.write_text("# kept\n")
    app = make_app(practising=[TASK])
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_task(app, pilot)
        assert panel.editor.text == "# kept\n"
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        assert panel.editor.text == "# kept\n" and draft.exists()
        await pilot.press("ctrl+l", "y")
        assert panel.editor.text == starter(app)
        assert not draft.exists(), "the starter is no draft"
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, PracticeScreen), "nothing to lose: no question"


async def test_a_draft_that_cannot_be_read_leaves_the_starter_and_says_so(make_app, grill_home):
    draft = grill_home / "drafts" / f"{TASK}.py"
    draft.parent.mkdir(parents=True)
    draft.write_bytes(b"\xff\xfe")
    app = make_app(practising=[TASK])
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_task(app, pilot)
        assert panel.editor.text == starter(app)
        assert "not UTF-8" in status(panel)


async def test_code_from_a_file_opens_in_the_editor_and_becomes_the_draft(
    make_app, grill_home, library
):
    draft = grill_home / "drafts" / f"{TASK}.py"
    code = "# worked on in vim\n" + library.card(TASK).card.code_task.starter
    app = make_app(then=lambda: PracticeScreen([library.card(TASK)], code=code, code_from="fix.py"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await until(pilot, lambda: screen.query(CodeTaskPanel))
        panel = screen.query_one(CodeTaskPanel)
        await until(pilot, lambda: app.focused is panel.editor)
        assert panel.editor.text == code
        assert "fix.py" in status(panel) and "not changed" in status(panel)
        assert draft.read_text() == code
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen), "the app is open under the task"


async def test_hints_seen_from_the_command_line_show_and_new_ones_are_remembered(
    make_app, runner, history
):
    runner.verdict = LEAK
    app = make_app(practising=[TASK])
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_task(app, pilot)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.completed_runs == 1)
        assert hints_shown(history, TASK) == 0, "a hint comes when asked for, not with a run"
        await pilot.press("f2")
        await until(pilot, lambda: panel.hints_shown == 1)
        assert hints_shown(history, TASK) == 1, "the hint asked for is remembered"
    record_hints_shown(history, TASK, 2)
    app = make_app(practising=[TASK])
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_task(app, pilot)
        hints = str(panel.query_one("#code-hints").render())
        assert "Card hint 1 of 2" in hints and "Card hint 2 of 2" in hints
