"""Two versions of a code task as a coloured unified diff: yours against the solution, or the
starter against the solution for an interviewer who needs to know what the fix is."""

from __future__ import annotations

import difflib

from textual.content import Content

DIFF_STYLES = {"-": "$text-error", "+": "$text-success", "@": "$text-muted"}


def code_diff(before: str, after: str, *, names: tuple[str, str], same: str) -> Content:
    """A unified diff from `before` to `after` with two lines of context; `same` when they agree."""
    lines = list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), *names, lineterm="", n=2)
    )
    if not lines:
        return Content(same)
    return Content("\n").join(Content.styled(line, DIFF_STYLES.get(line[:1], "")) for line in lines)
