"""A row another program changed so that grill cannot read it is named by its id and left out;
every other row still counts, and no command prints a traceback."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta

import pytest
from progress_factories import T0, attempt

from app.cli import main
from app.progress.history import History


@pytest.fixture
def edited_history(home):
    """Three attempts, then two rows edited by hand in another SQLite tool."""
    with History.open() as history:
        for n, card in enumerate(("a1", "a2", "a3")):
            history.record(attempt(card, at=T0 + timedelta(hours=n), id=f"row-{card}"))
    connection = sqlite3.connect(home / "history.db")
    connection.execute("UPDATE attempts SET started_at = 'yesterday' WHERE id = 'row-a1'")
    connection.execute("UPDATE attempts SET phase_seconds = '{oops' WHERE id = 'row-a2'")
    connection.commit()
    connection.close()


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if "note: left out attempt" in line]


def test_stats_leaves_out_a_row_whose_time_it_cannot_read_and_names_it(edited_history, capsys):
    assert main(["stats", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["attempts"] == 2
    assert notes(captured.err) == [
        "grill stats: note: left out attempt 'row-a1', which grill cannot read: started_at 'yesterday' is not "
        "a time (another program may have changed it)"
    ]


def test_export_leaves_out_each_row_it_cannot_read_and_names_it(edited_history, tmp_path, capsys):
    out = tmp_path / "backup.json"
    assert main(["export", "--format", "json", "-o", str(out)]) == 0
    assert [a["id"] for a in json.loads(out.read_text())["attempts"]] == ["row-a3"]
    left_out = sorted(notes(capsys.readouterr().err))
    assert len(left_out) == 2
    assert "'row-a1', which grill cannot read: started_at 'yesterday' is not a time" in left_out[0]
    assert (
        "'row-a2', which grill cannot read: phase_seconds is not JSON grill can read ('{oops')"
        in left_out[1]
    )


def test_export_as_markdown_reports_like_stats(edited_history, capsys):
    assert main(["export", "--format", "md"]) == 0
    captured = capsys.readouterr()
    assert "2 attempts on 3 cards" in captured.out
    assert len(notes(captured.err)) == 1


def test_import_replays_a_card_around_its_unreadable_row(edited_history, tmp_path, capsys):
    export = tmp_path / "more.json"
    export.write_text(
        json.dumps(
            {
                "format": "grill-history",
                "version": 1,
                "attempts": [
                    {
                        "id": "new-a1",
                        "card_id": "a1",
                        "mode": "practice",
                        "rating": "again",
                        "tier": "middle",
                        "phase_seconds": {"answer": 12.0},
                        "started_at": "2026-03-05T10:00:00.000000+00:00",
                    }
                ],
            }
        )
    )
    assert main(["import", str(export)]) == 0
    captured = capsys.readouterr()
    assert "Imported 1 new attempts" in captured.out
    assert len(notes(captured.err)) == 1 and "'row-a1'" in captured.err
    with History.open() as history:
        assert history.progress("a1").reps == 1  # the readable attempt alone


def test_a_row_whose_bytes_are_not_utf8_is_shown_marked_in_stats_and_left_out_of_export(
    home, tmp_path, capsys
):
    """Damage inside a row's text, which SQLite's page checks cannot see, costs that row alone."""
    with History.open() as history:
        history.record(attempt("a1", key_points_missed=("detach",), id="row-1"))
        history.record(attempt("a2", at=T0 + timedelta(hours=1), id="row-2"))
    connection = sqlite3.connect(home / "history.db")
    connection.execute(
        "UPDATE attempts SET answer_text = CAST(x'fffe41' AS TEXT) WHERE id = 'row-1'"
    )
    connection.execute("UPDATE misses SET text = CAST(x'64ff74' AS TEXT)")
    connection.commit()
    connection.close()
    assert main(["stats"]) == 0
    assert "1. d\ufffdt (a1, 1×)" in capsys.readouterr().out
    out = tmp_path / "backup.json"
    assert main(["export", "--format", "json", "-o", str(out)]) == 0
    assert [a["id"] for a in json.loads(out.read_text())["attempts"]] == ["row-2"]
    assert "answer_text holds bytes that are not UTF-8 text" in capsys.readouterr().err


def test_answer_times_another_program_wrote_out_of_range_never_make_the_json_invalid(home, capsys):
    with History.open() as history:
        history.record(attempt("a1", phase_seconds={"answer": 30.0}))
        history.record(attempt("a2", phase_seconds={"answer": 50.0}))
    connection = sqlite3.connect(home / "history.db")
    connection.execute("UPDATE attempts SET answer_seconds = 1e308 WHERE card_id = 'a1'")
    connection.execute(
        "INSERT INTO attempts SELECT 'copy', card_id, mode, rating, tier, started_at, phase_seconds, "
        "key_points_hit, key_points_missed, red_flags_said, answer_text, code, session_id, 1e308, 1, "
        "solution_viewed "
        "FROM attempts WHERE card_id = 'a1'"
    )
    connection.commit()
    connection.close()
    assert main(["stats", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out, parse_constant=pytest.fail)
    assert figures["answer_time"]["answers"] == 1 and figures["answer_time"]["mean_seconds"] == 50.0


def test_a_time_stored_as_bytes_is_named_and_left_out_of_export(home, tmp_path, capsys):
    """Another program may store a blob where grill writes text: it is not a time either."""
    with History.open() as history:
        history.record(attempt("a1", id="row-1"))
        history.record(attempt("a2", at=T0 + timedelta(hours=1), id="row-2"))
    connection = sqlite3.connect(home / "history.db")
    connection.execute("UPDATE attempts SET started_at = x'01' WHERE id = 'row-1'")
    connection.commit()
    connection.close()
    out = tmp_path / "backup.json"
    assert main(["export", "--format", "json", "-o", str(out)]) == 0
    assert [a["id"] for a in json.loads(out.read_text())["attempts"]] == ["row-2"]
    assert "'row-1', which grill cannot read: started_at b'\\x01' is not a time" in (
        capsys.readouterr().err
    )
