"""`grill lint` under mutated copies of the shipped cards: whatever a file holds, lint exits 0, 1
or 2, raises nothing, places every problem at a file and line, and answers within seconds."""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import main
from app.paths import SHIPPED_PACKS

SHIPPED_CARDS = sorted(path for path in SHIPPED_PACKS.glob("*/*.yaml") if path.name != "pack.yaml")
NASTY_VALUES = [
    "",
    "null",
    "yes",
    "~",
    "-1",
    "1e400",
    "0x" + "f" * 40,
    "9" * 5000,
    "2024-13-45",
    "!!binary Zm9v",
    "!!python/object/apply:os.system [echo pwned]",
    "!custom {a: 1}",
    "!!set {a: null}",
    "!!omap [a: 1]",
    "&a [*a]",
    "*nowhere",
    "<<: 1",
    "[" * 60,
    "'unterminated",
    "{a: b",
    "|\n  x = (",
    ">-\n  folded",
    '"\\0"',
    '"\\ud800"',
    "\t- tabbed",
    "- [a, [b, [c]]]",
    "TODO",
    "x: y: z",
]
NASTY_CODE = [
    "x = " + "-" * 20_000 + "1",
    "x = " + "+".join(["1"] * 20_000),
    "return 1",
    "def f(:\n",
    "\tif x:\n  pass",
    "x = '''",
    "\x00",
]


@st.composite
def mutated_cards(draw) -> tuple[str, bytes]:
    """A shipped card's file name and its text after a few edits an author or a tool might make."""
    path = draw(st.sampled_from(SHIPPED_CARDS))
    lines = path.read_text().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        edit = draw(
            st.sampled_from(
                ["delete", "duplicate", "value", "indent", "insert", "code", "unknown fields"]
            )
        )
        if not lines:
            break
        if edit == "delete":
            del lines[at]
        elif edit == "duplicate":
            lines.insert(at, lines[at])
        elif edit == "value" and ":" in lines[at]:
            key = lines[at].split(":", 1)[0]
            lines[at] = f"{key}: {draw(st.sampled_from(NASTY_VALUES))}\n"
        elif edit == "indent":
            lines[at] = (
                (" " * draw(st.integers(-3, 3))) + lines[at].lstrip(" ")
                if draw(st.booleans())
                else lines[at][draw(st.integers(0, 4)) :]
            )
        elif edit == "insert":
            lines.insert(
                at, draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=30)) + "\n"
            )
        elif edit == "code":
            block = [
                n
                for n, line in enumerate(lines)
                if line.rstrip().endswith(("code: |", "starter: |", "solution: |"))
            ]
            if block:
                n = draw(st.sampled_from(block))
                indent = len(lines[n + 1]) - len(lines[n + 1].lstrip()) if n + 1 < len(lines) else 6
                lines.insert(
                    n + 1,
                    " " * indent
                    + draw(st.sampled_from(NASTY_CODE)).replace("\n", "\n" + " " * indent)
                    + "\n",
                )
        elif edit == "unknown fields":
            lines += [f"field_{n}: {n}\n" for n in range(draw(st.sampled_from([3, 300, 3000])))]
    data = "".join(lines).encode("utf-8", "surrogatepass")
    cut = draw(st.sampled_from([None, None, None, draw(st.integers(0, len(data)))]))
    if cut is not None:
        data = data[:cut]
    if draw(st.booleans()):
        data += draw(st.binary(max_size=8))
    return path.name, data


@pytest.fixture
def isolated_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)


@settings(
    max_examples=250,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(card=mutated_cards())
def test_lint_of_any_mutated_card_places_every_problem(isolated_home, tmp_path, capsys, card):
    name, data = card
    pack = Path(tempfile.mkdtemp(dir=tmp_path)) / "pack"
    pack.mkdir()
    shutil.copy(SHIPPED_CARDS[0].parent / "pack.yaml", pack / "pack.yaml")
    (pack / name).write_bytes(data)
    capsys.readouterr()

    status = main(["lint", "--json", str(pack)])

    out, err = capsys.readouterr()
    assert status in (0, 1, 2)
    assert "Traceback" not in err
    problems = json.loads(out, parse_constant=pytest.fail)
    assert (status == 1) == bool(problems)
    for problem in problems:
        assert Path(problem["path"]).name in (name, "pack.yaml") and problem["line"] >= 1, problem
