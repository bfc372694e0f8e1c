"""`grill stats`, `grill export` and `grill import` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from progress_factories import attempt

from app.cli import main
from app.progress.history import History

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two_attempts(home):
    with History.open() as history:
        history.record(attempt("a1", key_points_missed=("detach",)))
        history.record(attempt("a2", "again"))


def test_stats_json_prints_the_figures(two_attempts, capsys):
    assert main(["stats", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["attempts"] == 2
    assert figures["missed_key_points"][0]["text"] == "detach"


def test_stats_prints_a_readable_report(two_attempts, capsys):
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "2 attempts on 2 cards" in out and "1. detach (a1, 1×)" in out


def test_stats_counts_one_of_a_kind_in_the_singular(home, capsys):
    with History.open() as history:
        history.record(attempt("a1"))
    assert main(["stats"]) == 0
    assert "1 attempt on 1 card, " in capsys.readouterr().out


def test_export_json_then_import_into_another_home(two_attempts, tmp_path, monkeypatch, capsys):
    exported = tmp_path / "history.json"
    assert main(["export", "--format", "json", "-o", str(exported)]) == 0
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "other-home"))
    assert main(["import", str(exported)]) == 0
    assert main(["import", str(exported)]) == 0
    out = capsys.readouterr().out
    assert "Imported 2 new attempts" in out and "Imported 0 new attempts" in out
    with History.open() as history:
        assert len(history.attempts()) == 2


def test_export_markdown_goes_to_standard_output(two_attempts, capsys):
    assert main(["export", "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# grill progress")


@pytest.mark.parametrize("name", ["history.db", "history.db-wal"])
def test_export_refuses_to_overwrite_the_history_it_reads(two_attempts, home, capsys, name):
    before = (home / "history.db").read_bytes()
    assert main(["export", "--format", "json", "-o", str(home / name)]) == 1
    assert "is the history itself" in capsys.readouterr().err
    assert (home / "history.db").read_bytes() == before
    with History.open() as history:
        assert len(history.attempts()) == 2


def test_a_failed_export_leaves_the_previous_one_whole(two_attempts, tmp_path, monkeypatch, capsys):
    """The new export is written beside the old and swapped in, so a full disk cannot truncate a backup."""
    previous = tmp_path / "backup.json"
    previous.write_text("the previous export\n")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", disk_full)
    assert main(["export", "--format", "json", "-o", str(previous)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert previous.read_text() == "the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_export_to_an_unwritable_place_is_a_clear_error(two_attempts, tmp_path, capsys):
    assert main(["export", "-o", str(tmp_path / "no-such-folder" / "report.md")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_import_of_a_malformed_file_exits_non_zero_and_names_the_place(
    two_attempts, tmp_path, capsys
):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"format": "grill-history", "version": 1, "attempts": [{"id": "z", "rating": "good"}]}'
    )
    assert main(["import", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}: attempts[0].card_id" in err
    with History.open() as history:
        assert len(history.attempts()) == 2


@pytest.mark.parametrize(
    "command",
    [
        ["stats"],
        ["stats", "--json"],
        ["export"],
        ["export", "--format", "json"],
        ["import", "whatever.json"],
    ],
)
def test_every_command_refuses_a_corrupt_history_without_a_traceback(home, command):
    home.mkdir()
    (home / "history.db").write_bytes(b"not sqlite at all" * 64)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *command], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "Cannot use the history file" in done.stderr and str(home / "history.db") in done.stderr
    assert "Traceback" not in done.stderr
