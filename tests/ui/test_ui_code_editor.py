"""The code editor obeys the keyboard: enter keeps the indentation (one more after a colon, one
less after return), backspace in the indentation goes back a level, long lines wrap, and below
140 columns the result sits under the editor, which keeps the terminal's width."""

from __future__ import annotations

from pilot_wait import until, until_screen
from test_ui_code_task import LEAK, open_code_task

from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.code_editor import indent_after, without_comment
from app.ui.widgets.code_task import CodeTaskPanel


def test_a_new_line_keeps_the_indentation_and_follows_blocks():
    assert indent_after("for step in range(3):") == "    "
    assert indent_after("    if x:  # a comment") == "        "
    assert indent_after('    text = "a: b"') == "    "
    assert indent_after("        x = 1") == "        "
    assert indent_after("        return total") == "    "
    assert indent_after("    pass") == ""
    assert indent_after("return") == ""
    assert without_comment("s = '#' # note") == "s = '#' "


async def test_enter_indents_and_backspace_dedents_in_the_editor(make_app):
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=(120, 36)) as pilot:
        panel = await open_code_task(app, pilot)
        editor = panel.editor
        editor.load_text("")
        await pilot.press(*"for step in range(3):", "enter", *"x = step", "enter")
        await until(pilot, lambda: editor.text == "for step in range(3):\n    x = step\n    ")
        await pilot.press("backspace", *"done = True")
        await until(pilot, lambda: editor.text.endswith("    x = step\ndone = True"))


async def test_at_100_columns_the_result_goes_under_an_editor_as_wide_as_the_terminal(
    make_app, runner
):
    """Beside the result at 100 columns the editor had 56 and cut long lines."""
    runner.verdict = LEAK
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        panel = await until(pilot, lambda: screen.query_one(CodeTaskPanel))
        await pilot.press("ctrl+o")
        editor = panel.editor
        await until(pilot, lambda: app.focused is editor and panel.has_class("-narrow"))
        long_line = "x = " + " + ".join(f"value_{n}" for n in range(12))
        editor.load_text(f"{long_line}\nprint(x)\n")
        await until(pilot, lambda: editor.size.width >= 95)
        side = panel.query_one("#code-side")
        await until(pilot, lambda: side.region.y >= editor.region.bottom)
        assert editor.soft_wrap
        assert editor.virtual_size.width <= editor.scrollable_content_region.width, (
            "long lines wrap instead of running off the edge"
        )
