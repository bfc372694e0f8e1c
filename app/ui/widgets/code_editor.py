"""The code editor: Textual's TextArea with the keys a Python editor is expected to have.

Enter keeps the line's indentation, indents one level more after a line that opens a block
(`for ...:`), and one level less after one that ends its block (`return`, `pass`, `break`,
`continue`, `raise`); backspace in the indentation goes back one level. Long lines wrap rather
than being cut at the editor's edge. Tab indents, as in any code editor: the screens give
`f6` to move between the editor and the result beside or under it.
"""

from __future__ import annotations

import re

from textual import events

from app.ui.widgets.editor import BoundedTextArea

BLOCK_ENDS = re.compile(r"^\s*(return|pass|break|continue|raise)\b")


def without_comment(line: str) -> str:
    """The line up to a `#` that is not inside a string."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote and line[index - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def indent_after(line: str, indent_width: int = 4) -> str:
    """The indentation a new line gets after `line` (the text before the cursor)."""
    current = line[: len(line) - len(line.lstrip(" \t"))]
    if without_comment(line).rstrip().endswith(":"):
        return current + " " * indent_width
    if BLOCK_ENDS.match(line) and current:
        return current[: max(0, len(current) - indent_width)]
    return current


class CodeEditor(BoundedTextArea):
    """A TextArea for Python: auto-indent on enter, dedent on backspace, soft wrap; each
    keystroke's cost bounded as every grill editor's is (`BoundedTextArea`)."""

    async def _on_key(self, event: events.Key) -> None:
        if not self.read_only and event.key == "enter":
            event.stop()
            event.prevent_default()
            start, end = self.selection
            row, column = min(start, end)
            before = self.document.get_line(row)[:column]
            self.replace(
                "\n" + indent_after(before, self.indent_width),
                start,
                end,
                maintain_selection_offset=False,
            )
            return
        await super()._on_key(event)

    def action_delete_left(self) -> None:
        """In the indentation, back to the previous indent stop; elsewhere one character."""
        selection = self.selection
        row, column = selection.end
        before = self.document.get_line(row)[:column]
        if not self.read_only and selection.is_empty and column and not before.strip(" "):
            stop = (column - 1) // self.indent_width * self.indent_width
            self.replace("", (row, stop), (row, column), maintain_selection_offset=False)
            return
        super().action_delete_left()
