"""What no command line may do: let an exception of grill's own reach the user, take
a number that is not finite or out of range, or send the sandbox a snippet over its cap.

None of these starts a sandbox worker: each is settled before one would start.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

from app.cli import main
from checkers import api
from checkers.api import MAX_SNIPPET_BYTES, UsageError, grade_source
from checkers.sandbox import Sandbox, isolation, protocol

ROOT = Path(__file__).resolve().parents[1]
CLEAN = ROOT / "tests" / "grader" / "corpus" / "clean_item_total.py"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(folder))
    monkeypatch.delenv("GRILL_PACKS", raising=False)
    monkeypatch.delenv("GRILL_TRACEBACK", raising=False)
    return folder


@pytest.fixture
def no_worker(monkeypatch):
    """Each case is settled before a worker would start (its torch import alone takes seconds)."""

    def start(self):
        raise AssertionError("a worker was started for a command line that cannot run")

    monkeypatch.setattr(Sandbox, "start", start)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- numbers --------------------------------------------------------------------------------

CHECK_NUMBERS = [
    ("--seconds", "nan", "a number of seconds from 0.1 to 3,600"),
    ("--seconds", "inf", "a number of seconds from 0.1 to 3,600"),
    ("--seconds=", "-inf", "a number of seconds from 0.1 to 3,600"),
    ("--seconds", "1e309", "a number of seconds from 0.1 to 3,600"),
    ("--seconds", "-0", "at least 0.1"),
    ("--seconds", "0.01", "at least 0.1"),
    ("--seconds", "86400", "at most 3,600"),
    ("--seconds", "ten", "a number of seconds from 0.1 to 3,600"),
    ("--steps", str(10**30), "at most 100,000"),
    ("--steps", "10**30", "a whole number from 1 to 100,000"),
    ("--steps", "0", "at least 1"),
    ("--steps", "-5", "at least 1"),
    ("--steps", "2.5", "a whole number from 1 to 100,000"),
    ("--steps", "9" * 5000, "a whole number from 1 to 100,000"),
]


@pytest.mark.parametrize(("option", "value", "said"), CHECK_NUMBERS)
def test_grill_check_refuses_every_number_out_of_range_with_the_range(
    capsys, no_worker, option, value, said
):
    given = [option + value] if option.endswith("=") else [option, value]
    status, out, err = run(capsys, "check", "--device", "cpu", *given, str(CLEAN))
    assert (status, out) == (2, "")
    assert option.rstrip("=") in err and said in err
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(
    "options", [{"seconds": float("nan")}, {"seconds": float("inf")}, {"steps": 10**30}]
)
def test_the_grading_api_refuses_them_too_before_anything_starts(no_worker, options):
    with pytest.raises(UsageError, match="must be"):
        grade_source("x = 1\n", device="cpu", **options)


MOCK_NUMBERS = [
    ("--minutes", "nan", "a number of minutes above 0 and at most 1,440"),
    ("--minutes", "inf", "a number of minutes above 0 and at most 1,440"),
    ("--minutes", "1e309", "a number of minutes above 0 and at most 1,440"),
    ("--minutes", "0", "a positive number of minutes"),
    ("--minutes", "100000", "at most 1,440"),
    ("--questions", str(10**30), "at most 100"),
    ("--questions", "-3", "at least 1"),
    ("--questions", "1e3", "a whole number from 1 to 100"),
    ("--seed", str(10**30), "at most 9,223,372,036,854,775,807"),
    ("--seed", "-1", "at least 0"),
]


@pytest.mark.parametrize(("option", "value", "said"), MOCK_NUMBERS)
def test_grill_mock_refuses_every_number_out_of_range_with_the_range(capsys, option, value, said):
    status, out, err = run(capsys, "mock", option, value)
    assert (status, out) == (2, "")
    assert said in err
    assert "Traceback" not in err


# -- snippets over the sandbox's cap --------------------------------------------------------


def test_a_snippet_file_over_the_cap_is_a_usage_error_naming_it(capsys, no_worker, tmp_path):
    path = tmp_path / "huge.py"
    path.write_text("# " + "x" * MAX_SNIPPET_BYTES + "\n")
    status, out, err = run(capsys, "check", "--device", "cpu", str(path))
    assert (status, out) == (2, "")
    assert err == (
        f"grill check: error: {path}: it is {MAX_SNIPPET_BYTES + 3:,} bytes; grill reads a "
        f"snippet from a plain file of at most {MAX_SNIPPET_BYTES:,} bytes\n"
    )


@pytest.mark.parametrize(
    "source",
    ["x" * (MAX_SNIPPET_BYTES + 1), "é" * (MAX_SNIPPET_BYTES // 2 + 1), "\ud800" * 400_000],
)
def test_the_api_refuses_a_source_over_the_cap_before_anything_is_sent(no_worker, source):
    with pytest.raises(UsageError, match=f"at most {MAX_SNIPPET_BYTES:,} bytes"):
        grade_source(source, device="cpu")


def test_a_snippet_at_the_cap_fits_the_job_message_however_json_escapes_it():
    """JSON writes a control character as six bytes: the worst a snippet can be."""
    worst = "\x01" * MAX_SNIPPET_BYTES
    assert api.checked_source(worst) is worst
    request = {
        "op": "run",
        "job": api.GRADE_JOB,
        "payload": {"source": worst, "filename": "x" * 4096, "compare": ["y" * 80] * 100},
        "readable": ["/" + "z" * 4000] * 16,
    }
    assert len(json.dumps(request).encode()) < protocol.MAX_CONTROL_BYTES


def test_the_protocol_sends_nothing_over_its_cap():
    import socket

    ours, theirs = socket.socketpair()
    with ours, theirs:
        with pytest.raises(protocol.MessageTooLarge, match="nothing was sent"):
            protocol.send(ours, {"source": "x" * protocol.MAX_CONTROL_BYTES})
        theirs.setblocking(False)
        with pytest.raises(BlockingIOError):
            theirs.recv(1)


# -- no exception of grill's own reaches the user -------------------------------------------


def test_check_without_a_gpu_for_device_cuda_is_one_plain_line_and_exit_4(
    capsys, monkeypatch, tmp_path
):
    monkeypatch.setattr(isolation, "host_has_cuda_devices", lambda: False)
    status, out, err = run(capsys, "check", "--device", "cuda", str(CLEAN))
    assert (status, out) == (4, "")
    assert err == (
        "grill check: No CUDA device is available on this machine (no NVIDIA GPU was found), "
        "so nothing ran. Grade on the CPU instead (--device cpu or auto).\n"
    )
    status, out, err = run(capsys, "check", "--json", "--device", "cuda", str(CLEAN), str(CLEAN))
    assert status == 4
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["error"]["kind"] for line in lines] == ["device", "device"]
    assert [line["file"] for line in lines] == [str(CLEAN)] * 2
    assert not list(tmp_path.glob("grill-sandbox-*"))


@pytest.mark.skipif(isolation.host_has_cuda_devices(), reason="this machine has a GPU")
def test_check_without_a_gpu_in_a_fresh_process_prints_no_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", "--device", "cuda", str(CLEAN)],
        cwd=ROOT,
        env={**os.environ, "GRILL_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=bound(3),  # refused before a worker starts
    )
    assert done.returncode == 4
    assert done.stderr.startswith("grill check: No CUDA device is available")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


FAULTS = {
    "check": ("checkers.api.grade_source", ["check", "--device", "cpu", str(CLEAN)]),
    "stats": ("app.commands.stats.compute_stats", ["stats"]),
    "export": ("app.commands.export.write_export", ["export", "--format", "json"]),
    "export md": ("app.commands.export.markdown_report", ["export"]),
    "import": ("app.commands.import_.import_file", ["import", "x.json"]),
    "lint": ("app.commands.lint.lint_search_path", ["lint"]),
    "new": ("app.commands.new.write_card_skeleton", ["new", "somewhere", "some-card"]),
    "mock": ("app.commands.mock.build_session", ["mock"]),
    "practice": ("app.ui.terminal.run_in_terminal", ["practice"]),
}


@pytest.mark.parametrize("command", FAULTS)
@pytest.mark.parametrize(
    "error",
    [RuntimeError("a bug"), KeyError("missing"), OSError(errno.ENOSPC, "No space left on device")],
    ids=["bug", "key", "disk full"],
)
def test_an_exception_escaping_any_command_is_one_line_and_exit_4(
    capsys, monkeypatch, no_worker, command, error
):
    target, argv = FAULTS[command]
    module, _, name = target.rpartition(".")
    __import__(module)

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(sys.modules[module], name, fail)
    if command == "check":
        monkeypatch.setattr(Sandbox, "start", lambda self: self)
        monkeypatch.setattr(Sandbox, "close", lambda self: None)
    status, _, err = run(capsys, *argv)
    assert status == 4
    assert "Traceback" not in err
    line = err.splitlines()[-1]
    assert line.startswith(f"grill {argv[0]}: ")
    if isinstance(error, OSError):
        assert "No space left on device" in line and "bug" not in line
    else:
        assert re.search(rf"internal error( while grading \S+)? \({type(error).__name__}: ", line)
        assert "bug in grill" in line


def test_grill_traceback_shows_where_it_happened(capsys, monkeypatch):
    monkeypatch.setenv("GRILL_TRACEBACK", "1")

    def fail(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("app.commands.stats.compute_stats", fail)
    status, _, err = run(capsys, "stats")
    assert status == 4 and "Traceback" in err and "RuntimeError: a bug" in err


def test_standard_output_on_a_full_device_is_one_line_not_an_ignored_exception(tmp_path):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "stats"],
            cwd=ROOT,
            env={**os.environ, "GRILL_HOME": str(tmp_path)},
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=bound(3),
        )
    assert done.returncode == 4, done.stderr
    assert done.stderr == ("grill stats: No space left on device; the command stopped there\n"), (
        done.stderr
    )
