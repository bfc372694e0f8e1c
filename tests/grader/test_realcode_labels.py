"""The real-code corpus is complete and documented: every file of `realcode/` and
`realcode/unusual/` has a label in `realcode/labels.json` and every label a file; a leak names
the line of its holder and why; every script modeled on a public repository says so in its
header, marks what was adapted with `# grill-corpus:` and is listed in `realcode/SOURCES.md`.
(Grading them is `test_realcode.py`.)
"""

import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "realcode"
LABELS = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))
SCRIPTS = sorted(HERE.glob("*.py"))
UNUSUAL = sorted((HERE / "unusual").glob("*.py"))


def name(path: Path) -> str:
    return path.relative_to(HERE).as_posix()


def test_every_file_has_a_label_and_every_label_a_file():
    assert sorted(LABELS) == sorted(name(path) for path in SCRIPTS + UNUSUAL)
    assert len(SCRIPTS) >= 60


@pytest.mark.parametrize("entry", sorted(LABELS))
def test_a_label_is_clean_or_a_leak_with_its_line_and_why(entry):
    label = LABELS[entry]
    assert label["label"] in ("clean", "leak")
    if label["label"] == "leak":
        lines = (HERE / entry).read_text(encoding="utf-8").splitlines()
        assert label["holder"] in lines[label["line"] - 1], (entry, label)
        assert label["why"]
    if entry.startswith("unusual/"):
        assert label["label"] == "clean"


@pytest.mark.parametrize("path", SCRIPTS, ids=[path.name for path in SCRIPTS])
def test_a_script_names_its_source_and_marks_its_adaptations(path):
    text = path.read_text(encoding="utf-8")
    assert "Modeled on " in text[:1500]
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    assert f"`{path.name}`" in sources


def test_the_scripts_come_from_at_least_ten_repositories():
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    repositories = {
        line.split("|")[2].strip()
        for line in sources.splitlines()
        if line.startswith("| `") and line.count("|") > 3
    }
    assert len(repositories) >= 10, repositories
