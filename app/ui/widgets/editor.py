"""The editors grill shows (a typed answer, a code task's code): Textual's TextArea, with the
cost of a keystroke kept bounded however much is typed.

Where the cost is: Textual's, not grill's handlers. Each keystroke re-wraps the whole line it
lands on and divides it into its wrapped sections several times over (`wrap_range`,
`location_to_offset`, `record_cursor_width`), so a soft-wrapped line costs a keystroke in
proportion to its length: 100 KB typed without a newline (a terminal without bracketed paste,
or someone who never presses enter) costs the square of its length, a minute here. The code
editor re-parses and re-highlights the whole text with tree-sitter on every keystroke, so its
cost grows with all of the code.

Opening one costs less than Textual's own: Textual compiles the language's highlight query for
every document it makes, twice for each code editor and a tenth of a second each time; a
query depends only on the language and its text, so it is compiled once per process.

It also works around two faults that an editor grill shows would otherwise meet: undoing the
paste of many lines raises ValueError in Textual 8.2 (`_cursor_where_it_survives`), and each
keystroke in highlighted code kept a copy of all of the code (py-tree-sitter 0.26 with Textual's
incremental parse, `_ParsedFromBytes`).

So a prose editor never holds a line longer than `MAX_LINE_CHARS`: text that would make one is
broken at the line's last space before the limit (or at the limit, in a word that long), as
it is typed or pasted, the cursor staying where it was in the text. Soft wrap shows a line
broken there as it showed it before. A code editor highlights its text only while it is at
most `HIGHLIGHT_LIMIT_CHARS` long (a code task's starter is a few KB); past that it is plain
text, and highlighted again once back under the limit.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from textual.document._document import Document
from textual.document._edit import Edit, EditResult
from textual.document._syntax_aware_document import SyntaxAwareDocument
from textual.widgets import TextArea
from textual.widgets.text_area import Selection
from tree_sitter import Language, Query

MAX_LINE_CHARS = 1_000
"""The longest line a prose editor holds: a keystroke on it costs about a millisecond."""
HIGHLIGHT_LIMIT_CHARS = 10_000
"""The most code highlighted as typed: about 250 lines, ten times a code task's starter."""


class _ParsedFromBytes(SyntaxAwareDocument):
    """Textual's highlighted document, parsed from its bytes after each edit. Textual hands
    tree-sitter a read callback and the old tree; py-tree-sitter 0.26 then keeps every chunk the
    callback returned, so each keystroke kept a copy of the whole code (about 150 KB a key at
    10 KB of code). Parsed whole from bytes, nothing is kept, and 10,000 characters parse in
    about a millisecond."""

    def replace_range(self, start: tuple[int, int], end: tuple[int, int], text: str) -> EditResult:
        result = Document.replace_range(self, start, end, text)
        assert self._parser is not None  # made with the document
        self._syntax_tree = self._parser.parse(self.text.encode("utf-8"))
        return result


@functools.cache
def _compiled_query(language: Language, source: str) -> Query:
    """A highlight query, compiled once: tree-sitter only reads it (through a `QueryCursor`)."""
    return Query(language, source)


def _prepare_query_once(document: SyntaxAwareDocument, source: str) -> Query:
    return _compiled_query(document.language, source)


SyntaxAwareDocument.prepare_query = _prepare_query_once  # type: ignore[method-assign,assignment]


def fill(text: str, limit: int = MAX_LINE_CHARS) -> tuple[str, list[int]]:
    """`text` with every line longer than `limit` broken at its last space before the limit
    (the space becomes the newline), or at the limit where a word runs past it; and the
    offsets in `text` before which a newline was inserted (where no space was replaced)."""
    if all(len(line) <= limit for line in text.split("\n")):
        return text, []
    out: list[str] = []
    inserted: list[int] = []
    offset = 0
    for line in text.split("\n"):
        start = 0
        while len(line) - start > limit:
            cut = line.rfind(" ", start + 1, start + limit + 1)
            if cut > start:
                out.append(line[start:cut])
                start = cut + 1  # the space is the break
            else:
                out.append(line[start : start + limit])
                start += limit
                inserted.append(offset + start)
        out.append(line[start:])
        offset += len(line) + 1
    return "\n".join(out), inserted


class BoundedTextArea(TextArea):
    """A TextArea whose keystrokes cost what the module docstring says: `fill_lines` for
    prose, `highlight_limit` for code (see `code_editor`)."""

    def __init__(
        self,
        *args: Any,
        fill_lines: bool = False,
        highlight_limit: int | None = None,
        **kwargs: Any,
    ) -> None:
        if fill_lines and args and isinstance(args[0], str):
            args = (fill(args[0])[0], *args[1:])
        super().__init__(*args, **kwargs)
        self.fill_lines = fill_lines
        self.highlight_limit = highlight_limit
        self._wanted_language = self.language

    @classmethod
    def code_editor(cls, *args: Any, **kwargs: Any) -> BoundedTextArea:
        """Textual's code editor, highlighting only up to `HIGHLIGHT_LIMIT_CHARS`."""
        limit = kwargs.pop("highlight_limit", HIGHLIGHT_LIMIT_CHARS)
        editor = super().code_editor(*args, **kwargs)
        assert isinstance(editor, BoundedTextArea)  # Textual builds it as `cls(...)`
        editor.highlight_limit = limit
        return editor

    def on_mount(self) -> None:  # Textual runs TextArea's own `_on_mount` too
        self._keep_highlighting_within_limit(mounted=True)

    def edit(self, edit: Edit) -> EditResult:
        cursor = None
        if self.fill_lines and edit.text:
            edit, cursor = self._filled(edit)
        result = super().edit(edit)
        if cursor is not None:
            self.selection = Selection.cursor(cursor)
        self._keep_highlighting_within_limit()
        return result

    def load_text(self, text: str) -> None:
        if self.fill_lines:
            text = fill(text)[0]
        super().load_text(text)
        self._keep_highlighting_within_limit()

    def _set_document(self, text: str, language: str | None) -> None:
        super()._set_document(text, language)
        if type(self.document) is SyntaxAwareDocument:
            self.document.__class__ = _ParsedFromBytes  # the same document, parsed leak-free

    def _undo_batch(self, edits: Sequence[Edit]) -> None:
        self._cursor_where_it_survives(edits)
        super()._undo_batch(edits)

    def _redo_batch(self, edits: Sequence[Edit]) -> None:
        self._cursor_where_it_survives(edits)
        super()._redo_batch(edits)

    def _cursor_where_it_survives(self, edits: Sequence[Edit]) -> None:
        """Textual sizes the view for an undone (or redone) batch before it moves the cursor
        back, so a cursor below the text that is left raises ValueError (undoing a paste of
        many lines, in Textual 8.2). Park it at the batch's top, which both texts hold; the
        batch then puts it where it belongs."""
        if edits:
            self.selection = Selection.cursor(min(edit.top for edit in edits))

    def _filled(self, edit: Edit) -> tuple[Edit, tuple[int, int] | None]:
        """The edit, widened to whole lines and with its lines filled when it would leave a
        line over the limit; and where the cursor goes then (after the text it inserted)."""
        document = self.document
        (top_row, top_column), (bottom_row, bottom_column) = edit.top, edit.bottom
        first, last = document.get_line(top_row), document.get_line(bottom_row)
        longest = max(map(len, edit.text.split("\n")))
        if (
            "\n" not in edit.text
            and top_column + longest + len(last) - bottom_column <= MAX_LINE_CHARS
        ):
            return edit, None  # a keystroke on a line under the limit: nothing to do
        prefix, suffix = first[:top_column], last[bottom_column:]
        combined = prefix + edit.text + suffix
        filled, inserted = fill(combined)
        if filled == combined:
            return edit, None
        after = len(prefix) + len(edit.text)
        after += sum(1 for at in inserted if at <= after)
        row = top_row + filled.count("\n", 0, after)
        column = after - (filled.rfind("\n", 0, after) + 1)
        widened = Edit(filled, (top_row, 0), (bottom_row, len(last)), False)
        return widened, (row, column)

    def _keep_highlighting_within_limit(self, mounted: bool = False) -> None:
        """Highlight code only while it is short enough to re-parse on every keystroke; the
        cursor, selection and scroll stay where they are when it switches."""
        if self.highlight_limit is None or not (mounted or self.is_mounted):
            return
        lines = self.document.lines
        size = len(lines) - 1 + sum(map(len, lines))
        wanted = self._wanted_language if size <= self.highlight_limit else None
        if wanted == self.language:
            return
        selection, scroll = self.selection, self.scroll_offset
        self.language = wanted  # rebuilds the document (and moves the cursor home)
        self.selection = selection
        self.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)
