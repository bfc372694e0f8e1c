"""Every file grill creates is written whole or not at all (`checkers/outputs.py`): a refused
write (a full disk; here the file-size limit, which fails a write the same way) leaves the
target as it was and nothing beside it, its error names the target, and what a killed write
left is removed by the next one."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

from app.cli import main
from checkers.outputs import sweep_partials, whole_file, write_whole

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"


def files_limited_to(size: int):
    """`preexec_fn`: no file grows past `size` bytes; a write past it fails (EFBIG), as one
    on a full disk fails (ENOSPC), instead of the signal ending the process."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def grill(*argv: str, home: Path, limit: int | None = None) -> subprocess.CompletedProcess:
    # Under the limit, Python would cache the modules it compiles cut at `limit` bytes (it
    # ignores a short write), and every later import of them fails: "marshal data too short".
    no_cache = {} if limit is None else {"PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        env={**os.environ, "GRILL_HOME": str(home), "GRILL_PACKS": str(FIXTURE_PACKS), **no_cache},
        capture_output=True,
        text=True,
        timeout=bound(5),  # some run without cached bytecode
        preexec_fn=None if limit is None else files_limited_to(limit),
    )


def test_task_start_on_a_full_disk_leaves_no_file_and_the_retry_writes_it_whole(tmp_path):
    folder = tmp_path / "work"
    refused = grill("task", "start", TASK, str(folder), home=tmp_path / "home", limit=100)
    starter = folder / f"{TASK}.py"
    assert refused.returncode != 0
    assert f"{starter} cannot be written" in refused.stderr
    assert list(folder.iterdir()) == [], "no starter, and no hidden file beside it"
    again = grill("task", "start", TASK, str(folder), home=tmp_path / "home")
    assert again.returncode == 0, again.stderr
    text = starter.read_text()
    assert "Wrote" in again.stdout and TASK in text and len(text) > 100 and text.endswith("\n")
    assert [p.name for p in folder.iterdir()] == [starter.name]


def test_an_export_refused_on_a_full_disk_keeps_the_previous_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "progress.json"
    target.write_text("the previous export\n")
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))

    def half_then_full(history, out, now):
        out.write('{"format": "grill-history", "attempts": [')
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("app.commands.export.write_export", half_then_full)
    assert main(["export", "--format", "json", "-o", str(target)]) == 1
    assert f"cannot write {target}: No space left on device" in capsys.readouterr().err
    assert target.read_text() == "the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "progress.json"]


def test_an_export_cleans_what_a_killed_export_left(tmp_path):
    target = tmp_path / "progress.json"
    dead = _a_dead_pid()
    left = [
        tmp_path / ".progress.json.partial",
        tmp_path / f".progress.json.{dead}-0badc0de.partial",
    ]
    for path in left:
        path.write_text('{"half')
    other = tmp_path / f".other.json.{dead}-0badc0de.partial"  # another file's: not touched
    other.write_text("x")
    done = grill("export", "--format", "json", "-o", str(target), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "home", "progress.json"]


def _a_dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_never_overwrite_fails_on_an_existing_file_and_leaves_it(tmp_path):
    target = tmp_path / "card.yaml"
    target.write_text("mine")
    with pytest.raises(FileExistsError) as raised:
        write_whole(target, "grill's", replace=False)
    assert raised.value.filename == str(target)
    assert target.read_text() == "mine" and list(tmp_path.iterdir()) == [target]


def test_a_write_that_fails_midway_leaves_the_target_as_it_was_and_nothing_beside(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("before")

    class Interrupted(Exception):
        pass

    with pytest.raises(Interrupted), whole_file(target) as file:
        file.write(b"half of it")
        raise Interrupted
    assert target.read_text() == "before" and list(tmp_path.iterdir()) == [target]


def test_a_live_writers_hidden_file_is_not_swept(tmp_path):
    target = tmp_path / "x.json"
    live = tmp_path / f".x.json.{os.getppid()}-00000000.partial"
    live.write_text("being written")
    assert sweep_partials(target) == []
    assert live.exists()
