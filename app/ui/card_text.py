"""Card prose for the screen: verbatim text with its `code` spans shown as code.

Cards write identifiers in backticks (`total += loss`) in every prose field, but only the
deep dive is Markdown. Everything else is shown as written, never parsed as markup, except
that a backtick span loses its backticks and takes the code style the deep dive uses.
"""

from __future__ import annotations

import re

from textual.content import Content

CODE_STYLE = "$text-warning on $warning 10%"

# A run of backticks opens a span that the next run of the same length closes (CommonMark).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def card_text(text: str) -> Content:
    """`text` verbatim, with each backtick span styled as code and its backticks dropped."""
    parts: list[str | tuple[str, str]] = []
    end = 0
    for match in _CODE_SPAN.finditer(text):
        code = match.group(2)
        if code.strip(" ") and code.startswith(" ") and code.endswith(" "):
            code = code[1:-1]  # "`` `x` ``" shows `x`
        parts += [text[end : match.start()], (code, CODE_STYLE)]
        end = match.end()
    parts.append(text[end:])
    return Content.assemble(*parts)


def card_bullets(items: list[str]) -> Content:
    """One `• item` line per item, each through `card_text`."""
    return Content("\n").join(Content("• ") + card_text(item) for item in items)
