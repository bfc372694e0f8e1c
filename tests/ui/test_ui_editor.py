"""The editors' cost per keystroke stays bounded however much is typed.

Measured as work, not time: how many characters Textual re-wraps for each keystroke (it
re-wraps the whole line the cursor is on), and whether the code editor still re-parses and
re-highlights its whole text on each keystroke past the limit. Before the fix, typing without
a newline re-wrapped the whole growing line on every key.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pilot_wait import drained, until
from textual import events
from textual.app import App, ComposeResult
from ui_fakes import SIZE

from app.ui.widgets.editor import (
    HIGHLIGHT_LIMIT_CHARS,
    MAX_LINE_CHARS,
    BoundedTextArea,
    fill,
)

WORDS = "the loss keeps its graph alive so detach it before you store it "


class One(App[None]):
    def __init__(self, area: BoundedTextArea) -> None:
        super().__init__()
        self.area = area

    def compose(self) -> ComposeResult:
        yield self.area


def key(char: str) -> events.Key:
    return events.Key("space" if char == " " else char, char)


async def typed(app: One, pilot, text: str) -> None:
    """Each character as a key event, as a terminal without bracketed paste sends them."""
    for n, char in enumerate(text):
        app.post_message(key(char))
        if n % 200 == 199:
            await drained(pilot)
    await drained(pilot)


def wrapped_per_call(monkeypatch) -> list[int]:
    """The length of every line Textual's TextArea wraps, call by call."""
    import textual.document._wrapped_document as wrapped

    calls: list[int] = []
    real = wrapped.compute_wrap_offsets

    def counted(text, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(wrapped, "compute_wrap_offsets", counted)
    return calls


async def test_typing_without_a_newline_never_rewraps_more_than_a_bounded_line(monkeypatch):
    text = (WORDS * (3 * MAX_LINE_CHARS // len(WORDS) + 1))[: 3 * MAX_LINE_CHARS]
    app = One(BoundedTextArea(soft_wrap=True, fill_lines=True))
    async with app.run_test(size=(80, 24)) as pilot:
        app.area.focus()
        await drained(pilot)
        calls = wrapped_per_call(monkeypatch)
        await typed(app, pilot, text)
        assert max(calls) <= MAX_LINE_CHARS + 1, "a keystroke re-wraps one bounded line"
        assert app.area.text.replace("\n", " ") == text, "only spaces became line breaks"
        assert all(len(line) <= MAX_LINE_CHARS for line in app.area.document.lines)
        assert app.area.cursor_location == app.area.document.end


async def test_typing_in_the_middle_of_a_full_line_keeps_the_cursor_after_the_key():
    line = (WORDS * 40)[: MAX_LINE_CHARS - 1]
    app = One(BoundedTextArea(line, soft_wrap=True, fill_lines=True))
    async with app.run_test(size=(80, 24)) as pilot:
        app.area.focus()
        app.area.move_cursor((0, 10))
        await typed(app, pilot, "XYZ")
        text = app.area.text
        assert text.replace("\n", " ") == line[:10] + "XYZ" + line[10:]
        row, column = app.area.cursor_location
        offset = sum(len(part) + 1 for part in text.split("\n")[:row]) + column
        assert text[offset - 3 : offset] == "XYZ"


async def test_a_pasted_100KB_line_is_filled_in_one_edit_and_undone_in_one():
    pasted = (WORDS * 2000)[:100_000]
    app = One(BoundedTextArea(soft_wrap=True, fill_lines=True))
    async with app.run_test(size=(80, 24)) as pilot:
        app.area.focus()
        await drained(pilot)
        app.post_message(events.Paste(pasted))  # as the driver sends it
        await drained(pilot)
        assert app.area.text.replace("\n", " ") == pasted
        assert all(len(line) <= MAX_LINE_CHARS for line in app.area.document.lines)
        app.area.undo()
        assert app.area.text == ""


async def test_code_is_highlighted_only_within_the_limit_and_keeps_its_cursor():
    code = "x = 1\n" * (HIGHLIGHT_LIMIT_CHARS // 6 - 5)
    app = One(BoundedTextArea.code_editor(code, language="python"))
    async with app.run_test(size=(80, 24)) as pilot:
        area = app.area
        area.focus()
        await drained(pilot)
        assert area.language == "python"
        area.move_cursor(area.document.end)
        await typed(app, pilot, "y = 2\n" * 10)
        assert area.language is None, "past the limit, no re-parse on every keystroke"
        assert area.cursor_location == area.document.end
        for _ in range(60):
            area.action_delete_left()
        await drained(pilot)
        assert area.language == "python", "highlighted again once back under it"
        assert area.cursor_location == area.document.end


async def test_past_the_limit_a_keystroke_parses_nothing(monkeypatch):
    import textual.document._syntax_aware_document as syntax

    code = "x = 1\n" * (HIGHLIGHT_LIMIT_CHARS // 6 + 10)
    app = One(BoundedTextArea.code_editor(code, language="python"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.area.focus()
        await drained(pilot)
        parsed: list[int] = []
        real = syntax.SyntaxAwareDocument.replace_range
        monkeypatch.setattr(
            syntax.SyntaxAwareDocument,
            "replace_range",
            lambda self, *args: parsed.append(1) or real(self, *args),
        )
        await typed(app, pilot, "z = 3\n")
        assert parsed == []


@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=400), st.integers(3, 40))
def test_filling_breaks_only_long_lines_and_only_at_spaces_or_the_limit(text, limit):
    filled, inserted = fill(text, limit)
    assert all(len(line) <= limit for line in filled.split("\n"))
    assert fill(filled, limit) == (filled, [])
    undone = list(filled)
    for offset in sorted(inserted, reverse=True):
        position = offset + sum(1 for other in inserted if other < offset)
        assert undone[position] == "\n"
        del undone[position]
    assert "".join(undone).replace("\n", " ") == text.replace("\n", " ")


async def test_the_editors_grill_shows_are_the_bounded_ones(make_app):
    """The practice answer fills its lines; a code task's editor limits its highlighting;
    the mock's answer is the same widget as the practice one."""
    from textual.widgets import TabbedContent

    from app.ui.screens import mock

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([app.library.card("running-loss")])
        await until(pilot, lambda: app.screen.query("#practice-answer"))
        answer = app.screen.query_one("#practice-answer")
        assert isinstance(answer, BoundedTextArea) and answer.fill_lines
        app.screen.query_one("#practice-tabs", TabbedContent).active = "tab-code"
        await until(pilot, lambda: app.screen.query("#code-editor"))
        code = app.screen.query_one("#code-editor")
        assert isinstance(code, BoundedTextArea)
        assert code.highlight_limit == HIGHLIGHT_LIMIT_CHARS and not code.fill_lines
    body = list(mock.MockScreen.compose_body(None))  # type: ignore[arg-type]
    assert any(isinstance(w, BoundedTextArea) and w.fill_lines for w in body)


async def test_undoing_a_paste_of_many_lines_does_not_raise():
    """Textual 8.2's own TextArea raises ValueError here (it sizes the view before moving the
    cursor back); both of grill's editors survive it and end where they started."""
    for area in (
        BoundedTextArea(soft_wrap=True, fill_lines=True),
        BoundedTextArea.code_editor(language="python"),
    ):
        app = One(area)
        async with app.run_test(size=(80, 24)) as pilot:
            area.focus()
            await drained(pilot)
            app.post_message(events.Paste("line\n" * 100))
            await drained(pilot)
            assert area.document.line_count == 101
            area.undo()
            assert (area.text, area.cursor_location) == ("", (0, 0))
            area.redo()
            assert area.text == "line\n" * 100 and area.cursor_location == (100, 0)


async def test_typing_in_highlighted_code_keeps_no_copy_of_it_per_key():
    """py-tree-sitter 0.26 kept every chunk Textual's read callback returned on an incremental
    parse: each keystroke kept a copy of all the code (about 1.3 MB for these 20 keys, against
    about 120 KB without the fault). What is measured is the growth over 20 keys after the first
    few, all traced: the structures rebuilt on every key (the highlights of the whole text) are
    then counted once before and once after, so only what each key keeps adds up."""
    import gc
    import tracemalloc

    code = "x = 1\n" * 800
    app = One(BoundedTextArea.code_editor(code, language="python"))
    async with app.run_test(size=(80, 24)) as pilot:
        area = app.area
        area.focus()
        area.move_cursor(area.document.end)
        await drained(pilot)
        assert area.language == "python"
        tracemalloc.start()
        try:
            await typed(app, pilot, "w" * 5)
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            await typed(app, pilot, "y" * 20)
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert area.text.endswith("w" * 5 + "y" * 20)
        assert kept < 400_000, f"{kept:,} bytes kept by 20 keystrokes"


async def test_a_languages_highlight_query_is_compiled_once_for_every_editor():
    """Textual compiles it for each document it makes, a tenth of a second each time: every code
    editor after the first reuses the first one's."""
    first = BoundedTextArea.code_editor("x = 1\n", language="python")
    second = BoundedTextArea.code_editor("y = 2\n", language="python")
    app = One(second)
    async with app.run_test(size=(80, 24)) as pilot:
        second.load_text("z = 3\n")
        await drained(pilot)
        assert second._highlight_query is first._highlight_query is not None
        assert second.language == "python"
