"""`grill lint` under mutated copies of the shipped cards: whatever a file holds, lint exits 0, 1
or 2, raises nothing, places every problem at a file and line, and answers within seconds."""

from __future__ import annotations

import json
import os
import shutil
import socket
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


DEVICES = ["/dev/zero", "/dev/null", "/dev/urandom", "/dev/full"]
CAP = 1_000_000


def _special(kind: str, path: Path, size: int, device: str) -> None:
    """Put something that is not a card-sized plain file where a card (or the manifest) is."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to(device)
    elif kind == "socket":
        here = os.getcwd()
        os.chdir(path.parent)  # an AF_UNIX path is limited to about 100 bytes
        try:
            server = socket.socket(socket.AF_UNIX)
            server.bind(path.name)
            server.close()
        finally:
            os.chdir(here)
    elif kind == "folder":
        path.mkdir()
    elif kind == "sparse":
        with path.open("wb") as file:
            file.truncate(size)
    else:  # a plain file of about the cap (the sparse files cover the large sizes), a comment
        path.write_bytes(b"#" * (min(size, CAP + 1) - 1) + b"\n")


@settings(
    max_examples=60,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    kind=st.sampled_from(["fifo", "device", "socket", "folder", "sparse", "plain"]),
    size=st.sampled_from([CAP - 1, CAP, CAP + 1, 100 * 1024 * 1024, 3]),
    device=st.sampled_from(DEVICES),
    where=st.sampled_from(["card", "manifest"]),
)
def test_lint_refuses_what_is_no_card_sized_plain_file_at_once_saying_what_it_is(
    isolated_home, tmp_path, capsys, kind, size, device, where
):
    """A pipe, a socket, a folder, a device (linked to under a card's name) or a file over the
    cap, where a card or the manifest is, is one problem at 1:1 whose hint says what it is and
    the cap, and is never read: a FIFO with no writer or /dev/zero would not end
    within the deadline. A plain file up to the cap is read as a card."""
    pack = Path(tempfile.mkdtemp(dir=tmp_path)) / "pack"
    pack.mkdir()
    name = "pack.yaml" if where == "manifest" else SHIPPED_CARDS[0].name
    if where == "card":
        shutil.copy(SHIPPED_CARDS[0].parent / "pack.yaml", pack / "pack.yaml")
    _special(kind, pack / name, size, device)
    capsys.readouterr()

    status = main(["lint", "--json", str(pack)])

    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if where == "manifest" and kind == "folder":
        assert status == 2, err  # no pack.yaml file: no pack here at all
        return
    problems = json.loads(out)
    assert status == 1 and problems
    mine = [p for p in problems if Path(p["path"]).name == name]
    assert mine, problems
    shown = min(size, CAP + 1) if kind == "plain" else size
    if kind in ("plain", "sparse") and shown <= CAP:
        # read as a card: a comment only, or zeros (control characters), each a card's problem
        assert all("larger than" not in p["message"] for p in mine), mine
        assert all("not a plain file" not in p["hint"] for p in mine), mine
        return
    assert (mine[0]["line"], mine[0]["column"]) == (1, 1), problems
    what = {
        "fifo": "a named pipe (FIFO), not a plain file",
        "device": "a character device, not a plain file",
        "socket": "a socket, not a plain file",
        "folder": "a folder, not a plain file",
        "sparse": f"{shown:,} bytes;",
        "plain": f"{shown:,} bytes;",
    }[kind]
    assert f"it is {what}" in mine[0]["hint"], mine[0]
    assert "at most 1,000,000 bytes" in mine[0]["hint"], mine[0]
