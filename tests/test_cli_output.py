"""Whatever standard output is (an encoding without the report's characters, closed before
the start, a reader gone, a full device), a command records first, then prints, and ends with
its normal status; one mechanism for every command (`checkers/streams.py`)."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

from app.cli import main
from app.progress.history import History
from checkers.sandbox import Sandbox
from checkers.verdict import Verdict

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "GRILL_HOME": str(tmp_path / "home"),
        "GRILL_PACKS": str(FIXTURE_PACKS),
    }


def grill(*argv: str, env: dict[str, str], stdout_closed: bool = False, **kwargs):
    """`grill ARGV` as a shell runs it; `stdout_closed` as `grill ARGV >&-`."""
    command = [sys.executable, "-m", "app.cli", *argv]
    if stdout_closed:
        command = ["bash", "-c", 'exec "$@" >&-', "grill", *command]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=not stdout_closed, timeout=bound(3), **kwargs
    )


class FullDevice(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_graded_fix_is_recorded_before_its_verdict_is_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    monkeypatch.setattr(Sandbox, "start", lambda self: self)
    monkeypatch.setattr(Sandbox, "close", lambda self: None)
    monkeypatch.setattr(
        "checkers.api.grade_task",
        lambda *args, **kwargs: Verdict(verdict="leak", device="cpu", message="kept"),
    )
    fix = tmp_path / "fix.py"
    fix.write_text("x = 1\n")
    monkeypatch.setattr(sys, "stdout", FullDevice())
    assert main(["check", "--task", TASK, str(fix)]) == 4  # the print failed: a full disk
    with History.open() as history:
        assert [a.card_id for a in history.attempts()] == [TASK]


@pytest.mark.parametrize(
    "encoding",
    [
        {"PYTHONIOENCODING": "ascii"},
        {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},  # a non-UTF-8 locale
    ],
    ids=["PYTHONIOENCODING", "locale"],
)
def test_output_the_encoding_cannot_hold_is_replaced_not_an_error(env, encoding):
    env = {k: v for k, v in env.items() if not k.startswith(("LC_", "LANG", "PYTHONIO"))}
    done = grill("task", "list", env={**env, **encoding})
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert b"running-loss" in done.stdout and b"?" in done.stdout  # what the encoding lacks


@pytest.mark.parametrize(
    "argv", [["stats"], ["export"], ["task", "list"], ["stats", "--json"]], ids=" ".join
)
def test_a_command_with_stdout_closed_ends_with_its_normal_status(env, argv, tmp_path):
    done = grill(*argv, env=env, stdout_closed=True, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""


def test_a_closed_stdout_never_becomes_a_file_grill_opens(env, tmp_path):
    """The descriptor closed before the start is held on /dev/null: the history opened next
    does not take its number and receive the output."""
    assert grill("export", "--format", "json", env=env, stdout_closed=True).returncode == 0
    done = grill("export", "--format", "json", env=env)
    assert done.returncode == 0
    exported = json.loads(done.stdout)
    assert exported["attempts"] == []
    with History.open(Path(env["GRILL_HOME"]) / "history.db") as history:
        assert history.attempts() == []


def test_a_reader_gone_ends_the_command_with_its_own_status(env):
    """`grill task hint X | true`: the hint is recorded as shown, and the status is the
    command's, not an error's."""
    command = [sys.executable, "-m", "app.cli", "task", "hint", TASK]
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait()
    done = subprocess.run(
        command, cwd=ROOT, env=env, stdout=reader.stdin, stderr=subprocess.PIPE, timeout=bound(3)
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    second = grill("task", "hint", TASK, env=env)
    assert b"Hint 2 of 2" in second.stdout  # the first was recorded though never read
