"""Every relative link in README.md and docs/*.md leads somewhere: the file exists, and an anchor
names a heading of the page it points at (as GitHub makes anchors from headings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(text: str) -> str:
    """The page without its code blocks and code spans, where brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for match in HEADING.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return [m.group(1) for m in LINK.finditer(prose(page.read_text(encoding="utf-8")))]


def test_the_pages_exist_and_link_to_each_other():
    assert (ROOT / "docs").is_dir()
    readme_targets = {Path(t.partition("#")[0]).name for t in links(ROOT / "README.md")}
    unlinked = [p.name for p in PAGES[1:] if p.name not in readme_targets]
    assert unlinked == [], "every docs page is linked from the README"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in links(page):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading makes the anchor #{anchor}")
    assert broken == []


def test_the_slugs_are_githubs():
    assert slug("`grill lint [PATH...] [--json] [--run]`") == "grill-lint-path---json---run"
    assert slug("Dependencies, and why each is there") == "dependencies-and-why-each-is-there"
    assert slug("1. The capability model (`checkers/identity.py`)") == (
        "1-the-capability-model-checkersidentitypy"
    )
