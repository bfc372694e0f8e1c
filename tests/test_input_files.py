"""Every file grill reads goes through one reader (`checkers.inputs`): what is not a plain file
of its size is refused at once, saying which file, what it is and the cap, whichever command
reads it. Each case runs the real command in a fresh process, under a memory limit and a
time-out, so a reader that waits on a pipe or reads /dev/zero fails here instead of hanging
the suite.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from pace import bound

from checkers.inputs import (
    SECONDS,
    STEPS,
    FileRefused,
    OutOfRange,
    Range,
    format_cap,
    opened_file,
    read_file,
)

ROOT = Path(__file__).resolve().parents[1]
GOOD_PACK = ROOT / "tests" / "fixtures" / "packs" / "good"
SPARSE_BYTES = 100 * 1024 * 1024
MEMORY_LIMIT = 3 << 30
"""Address space for each command: enough for Python and pydantic, far from what /dev/zero eats."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def grill(*args: str, home: Path) -> subprocess.CompletedProcess:
    """`grill ARGS` in a fresh process; a time-out is a reader that waited forever."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env={**os.environ, "GRILL_HOME": str(home), "GRILL_PACKS": ""},
        preexec_fn=_limit_memory,
        capture_output=True,
        text=True,
        timeout=bound(5),  # a 100 MB stream read in the slowest case
    )


def fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a named pipe (FIFO)"


def device(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "a character device"


def unix_socket(path: Path) -> str:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays
    return "a socket"


def folder(path: Path) -> str:
    path.mkdir()
    return "a folder"


def sparse(path: Path) -> str:
    with path.open("wb") as file:
        file.truncate(SPARSE_BYTES)
    return f"{SPARSE_BYTES:,} bytes"


KINDS: dict[str, Callable[[Path], str]] = {
    "fifo": fifo,
    "dev-zero": device,
    "socket": unix_socket,
    "folder": folder,
    "sparse-100MB": sparse,
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.mark.parametrize("kind", KINDS)
def test_grill_check_refuses_what_is_no_snippet_file_as_a_usage_error(tmp_path, home, kind):
    path = tmp_path / "snippet.py"
    what = KINDS[kind](path)
    done = grill("check", "--device", "cpu", str(path), home=home)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        f"grill check: error: {path}: it is {what}{'' if kind == 'sparse-100MB' else ', not a plain file'}; "
        "grill reads a snippet from a plain file of at most 1,000,000 bytes\n"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_card_that_is_no_plain_file_of_card_size_is_a_located_problem(tmp_path, home, kind):
    pack = tmp_path / "pack"
    pack.mkdir()
    for source in GOOD_PACK.iterdir():
        (pack / source.name).write_bytes(source.read_bytes())
    what = KINDS[kind](pack / "odd.yaml")
    done = grill("lint", str(pack), home=home)
    assert done.returncode == 1, done.stderr
    problem = next(line for line in done.stdout.splitlines() if "odd.yaml" in line)
    assert problem.startswith(f"{pack / 'odd.yaml'}:1:1: ")
    assert f"it is {what}" in problem
    assert "grill reads a card or manifest from a plain file of at most 1,000,000 bytes" in problem
    assert done.stdout.rstrip().endswith("cards loaded")


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "sparse-100MB"])
def test_grill_import_refuses_what_is_no_plain_file(tmp_path, home, kind):
    path = tmp_path / "export.json"
    what = KINDS[kind](path)
    done = grill("import", str(path), home=home)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"grill import: {path}: cannot be read (it is {what}, not a plain file; grill reads an "
        f"export from a plain file of at most {format_cap(16 << 30)})\n"
    )


def test_grill_import_refuses_a_sparse_file_over_its_cap_without_reading_it(tmp_path, home):
    path = tmp_path / "export.json"
    with path.open("wb") as file:
        file.truncate((16 << 30) + 1)
    done = grill("import", str(path), home=home)
    assert done.returncode == 1, done.stderr
    assert f"it is {(16 << 30) + 1:,} bytes; grill reads an export" in done.stderr


def test_grill_import_reads_a_sparse_100MB_file_as_a_stream_and_places_its_problem(tmp_path, home):
    path = tmp_path / "export.json"
    sparse(path)
    done = grill("import", str(path), home=home)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"grill import: {path}: line 1 column 1: not valid JSON (Expecting value)\n"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_grill_schema_refuses_a_schema_by_that_name_that_is_no_plain_file_of_schema_size(
    tmp_path, home, kind
):
    """`grill schema` reads a copy already there to see whether it is current: one that is a
    pipe, a device or a folder, or too large to be one, is refused unread and left in place."""
    pack = tmp_path / "pack"
    pack.mkdir()
    what = KINDS[kind](pack / "card.schema.json")
    done = grill("schema", str(pack), home=home)
    assert done.returncode == 1, done.stderr
    rest = "" if kind == "sparse-100MB" else ", not a plain file"
    assert done.stderr == (
        f"grill schema: {pack / 'card.schema.json'}: it is {what}{rest}; grill reads a schema "
        "from a plain file of at most 4,194,304 bytes (4 MiB): move it aside, and grill writes "
        "its own\n"
    )
    assert not (pack / "pack.schema.json").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_a_draft_that_is_no_plain_file_of_draft_size_is_refused_unread(tmp_path, home, kind):
    """The app restores a code task's draft from the data folder when the task opens; one that
    is a pipe, a device or a folder, or too large, is said and the starter opens instead."""
    drafts = home / "drafts"
    drafts.mkdir()
    what = KINDS[kind](drafts / "some-task.py")
    code = (
        "import sys\n"
        "from app.practice.drafts import DraftError, Drafts\n"
        "try:\n"
        "    Drafts().load('some-task')\n"
        "except DraftError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "GRILL_HOME": str(home)},
        preexec_fn=_limit_memory,
        capture_output=True,
        text=True,
        timeout=bound(3),
    )
    assert done.returncode == 0, done.stderr
    rest = "" if kind == "sparse-100MB" else ", not a plain file"
    assert done.stdout == (
        f"draft {drafts / 'some-task.py'}: it is {what}{rest}; grill reads a draft from a plain "
        "file of at most 1,048,576 bytes (1 MiB)\n"
    )


# -- the reader itself ----------------------------------------------------------------------


def test_a_file_at_the_cap_is_read_and_one_byte_more_is_refused_by_its_size(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_file(path, role="a test file", cap=100) == b"x" * 100
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileRefused) as refused:
        read_file(path, role="a test file", cap=100)
    assert str(refused.value) == (
        f"{path}: it is 101 bytes; grill reads a test file from a plain file of at most 100 bytes"
    )
    assert refused.value.too_large


def test_a_file_that_says_it_is_empty_but_goes_on_is_cut_at_the_cap():
    """/proc files report size 0 and still read; a file that grows while read is the same case."""
    with pytest.raises(FileRefused, match="it is over 16 bytes"):
        read_file("/proc/self/maps", role="a test file", cap=16)


def test_streamed_reads_stop_at_the_cap(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"y" * 64)
    with opened_file(path, role="a test file", cap=64) as file:
        assert file.read(60) == b"y" * 60
        assert file.read(60) == b"y" * 4
        assert file.read(60) == b""
    with pytest.raises(FileRefused), opened_file("/proc/self/maps", role="x", cap=8) as file:
        while file.read(4):
            pass


def test_what_cannot_be_opened_raises_the_systems_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_file(tmp_path / "nowhere", role="a test file", cap=10)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(OSError, match="symbolic links"):
        read_file(tmp_path / "loop", role="a test file", cap=10)


def test_a_refusal_names_round_caps_in_binary_units_too():
    assert format_cap(1_000_000) == "1,000,000 bytes"
    assert format_cap(64 << 20) == "67,108,864 bytes (64 MiB)"
    assert format_cap(16 << 30) == "17,179,869,184 bytes (16 GiB)"


# -- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf"), 1e309, 0, -1, 0.05, 3601, True, "60", None]
)
def test_a_budget_that_is_not_finite_or_in_range_is_refused_with_the_range(value):
    with pytest.raises(OutOfRange) as refused:
        SECONDS.check(value)
    assert "a number of seconds from 0.1 to 3,600" in str(refused.value)


@pytest.mark.parametrize("value", [0, -1, 100_001, 10**30, 2.5, float("nan"), False])
def test_steps_out_of_range_are_refused_with_the_range(value):
    with pytest.raises(OutOfRange, match=r"a whole number from 1 to 100,000"):
        STEPS.check(value)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e309", "abc", "", "0x10", "1" * 5000])
def test_text_that_writes_no_finite_number_is_refused_when_parsed(text):
    with pytest.raises(OutOfRange, match="must be a number of seconds from 0.1 to 3,600, not"):
        SECONDS.parse(text)


@pytest.mark.parametrize("text", ["10**30", "2.5", "1e3", "nan", "9" * 5000])
def test_a_whole_number_option_parses_only_whole_numbers(text):
    with pytest.raises(OutOfRange, match="must be a whole number from 1 to 100,000, not"):
        STEPS.parse_whole(text)


def test_values_in_range_pass_unchanged():
    assert SECONDS.check(0.1) == 0.1 and SECONDS.check(3600) == 3600
    assert STEPS.parse_whole(" 42 ") == 42
    limit = Range("the time limit", 0, 1440, unit="minutes", above_low=True)
    assert limit.check(0.5) == 0.5
    with pytest.raises(OutOfRange, match="the time limit must be a positive number of minutes"):
        limit.check(0)
