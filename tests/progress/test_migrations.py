"""Every earlier schema version opens, migrates to the current one and keeps its data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from progress_factories import T0, attempt

from app.progress import schema
from app.progress.history import History

FIXTURES = Path(__file__).parent / "fixtures"


def build(path: Path, version: int) -> Path:
    """A database exactly as schema `version` left it (0: a file grill never wrote to)."""
    connection = sqlite3.connect(path)
    if version:
        connection.executescript((FIXTURES / f"history_v{version}.sql").read_text())
    connection.close()
    return path


def test_there_is_a_fixture_for_every_earlier_version():
    missing = [
        v for v in range(1, schema.SCHEMA_VERSION) if not (FIXTURES / f"history_v{v}.sql").is_file()
    ]
    assert missing == [], "keep the SQL of each shipped schema version as a fixture"


@pytest.mark.parametrize("version", range(schema.SCHEMA_VERSION))
def test_each_earlier_version_migrates_to_the_current_one(tmp_path, version):
    path = build(tmp_path / "history.db", version)
    with History.open(path) as history:
        assert schema.schema_version(history.connection) == schema.SCHEMA_VERSION
        assert (
            history.connection.execute("PRAGMA application_id").fetchone()[0]
            == schema.APPLICATION_ID
        )


def test_v1_attempts_settings_and_schedules_survive_the_migration(tmp_path):
    with History.open(build(tmp_path / "history.db", 1)) as history:
        attempts = history.attempts()
        assert [a.id for a in attempts] == ["a1", "a3", "a2"]
        assert attempts[2].code.retained_paths == ("losses[4]",)
        assert attempts[2].session_id == "mock-1"
        assert history.get_setting("tier") == "senior"
        assert history.progress("autograd-basics").lapses == 1


def test_v2_backfills_answer_time_review_flags_and_misses_from_v1_json(tmp_path):
    with History.open(build(tmp_path / "history.db", 1)) as history:
        rows = history.connection.execute(
            "SELECT id, answer_seconds, is_review FROM attempts ORDER BY id"
        ).fetchall()
        misses = history.connection.execute(
            "SELECT attempt_id, kind, text FROM misses ORDER BY attempt_id, text"
        ).fetchall()
    assert rows == [("a1", 41.5, 0), ("a2", 70.0, 1), ("a3", None, 0)]
    assert misses == [
        ("a1", "key_point", "detach cuts it"),
        ("a1", "key_point", "retain_graph keeps it"),
        ("a2", "key_point", "detach cuts it"),
        ("a2", "red_flag", "item() leaks"),
    ]


def test_a_migrated_history_keeps_scheduling_new_attempts(tmp_path):
    with History.open(build(tmp_path / "history.db", 1)) as history:
        history.record(attempt("mixed-precision", rating="good", at=T0.replace(day=20)))
        assert history.progress("mixed-precision").reps == 2


def test_a_failing_step_rolls_back_whole_and_leaves_the_earlier_version(tmp_path, monkeypatch):
    path = build(tmp_path / "history.db", 1)
    broken = (
        schema.MIGRATIONS[0],
        "CREATE TABLE half_done (x);\nINSERT INTO no_such_table VALUES (1);",
    )
    monkeypatch.setattr(schema, "MIGRATIONS", broken)
    connection = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        schema.migrate(connection)
    assert schema.schema_version(connection) == 1
    assert (
        connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'half_done'"
        ).fetchone()[0]
        == 0
    )
    connection.close()


def test_statements_splits_a_script_and_refuses_an_unterminated_one():
    assert schema.statements("CREATE TABLE a (x);\n-- note\nINSERT INTO a VALUES (';');\n") == [
        "CREATE TABLE a (x);",
        "-- note\nINSERT INTO a VALUES (';');",
    ]
    with pytest.raises(ValueError, match="unterminated"):
        schema.statements("CREATE TABLE a (x)")


def test_v4_keeps_v3_attempts_and_flags_with_no_solution_seen(tmp_path):
    with History.open(build(tmp_path / "history.db", 3)) as history:
        attempts = history.attempts()
        assert [a.id for a in attempts] == ["a1", "a3", "a2"]
        assert [a.solution_viewed for a in attempts] == [None, None, None]
        assert history.card_flags()["mixed-precision"].suspended
        history.record(attempt("mixed-precision", at=T0.replace(day=20), solution_viewed="asked"))
        assert history.attempts("mixed-precision")[-1].solution_viewed == "asked"
