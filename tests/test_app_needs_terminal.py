"""The app without a terminal on standard input and output refuses in one line, exit 2:
it could neither read a key nor draw (`grill </dev/null` spun forever, `grill <&-` printed
Textual's traceback and exited 0)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def terminal():
    """The far end of a pseudo-terminal, as standard output or input."""
    leader, follower = pty.openpty()
    yield follower
    os.close(leader)
    os.close(follower)


def closed(fd: int):
    def close() -> None:
        os.close(fd)

    return close


CASES = {
    "stdin /dev/null": (["practice"], "input", {"stdin": subprocess.DEVNULL}),
    "stdin closed": ([], "input", {"preexec_fn": closed(0)}),
    "stdout a pipe": (["mock", "--questions", "1"], "output", {"stdout": subprocess.PIPE}),
    "task open, stdin a file": (["task", "open", "running-loss"], "input", {"stdin": "file"}),
}


@pytest.mark.parametrize("case", CASES)
def test_the_app_without_a_terminal_refuses_in_one_line_with_status_2(case, terminal, tmp_path):
    argv, missing, streams = CASES[case]
    streams = {"stdin": terminal, "stdout": terminal, **streams}
    if streams["stdin"] == "file":
        (tmp_path / "keys").write_text("q")
        streams["stdin"] = (tmp_path / "keys").open()
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        env={
            **os.environ,
            "GRILL_HOME": str(tmp_path / "home"),
            "GRILL_PACKS": str(ROOT / "tests" / "ui" / "fixtures" / "packs"),
        },
        stderr=subprocess.PIPE,
        text=True,
        timeout=bound(3),  # a refusal before Textual loads
        **streams,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("grill: the app needs a terminal")
    assert f"standard {missing} is not one" in lines[0]
