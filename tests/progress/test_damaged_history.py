"""Every command against every kind of damaged history: a file grill refuses stays byte for byte
as it was, whichever command met it; the one change grill makes is the recovery it documents
(rolling back the journal of a write a crash interrupted)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from damaged_history import (
    V1_ATTEMPTS,
    damage_one_page,
    hot_journal,
    index_out_of_step,
    real_history,
    sha256,
    truncate,
    with_version,
)
from progress_factories import attempt

from app.cli import main
from app.progress.history import History, HistoryError

REFUSED = {
    "a damaged page": (lambda path: damage_one_page(path, seed=5), "not a readable grill history"),
    "another damaged page": (
        lambda path: damage_one_page(path, seed=11),
        "not a readable grill history",
    ),
    "truncated": (truncate, "not a readable grill history"),
    "a future version": (with_version(99), "written by a newer grill"),
    "a negative version": (with_version(-1), "schema version -1 is not one grill ever wrote"),
}


def commands(folder: Path) -> dict[str, list[str]]:
    """Each command that opens the history, with what it needs to get that far (files in `folder`)."""
    export = folder / "other-machine.json"
    export.write_text(
        json.dumps(
            {
                "format": "grill-history",
                "version": 1,
                "attempts": [
                    {
                        "id": "from-elsewhere",
                        "card_id": "card-1",
                        "mode": "practice",
                        "rating": "good",
                        "tier": "middle",
                        "phase_seconds": {"answer": 20.0},
                        "started_at": "2026-03-01T10:00:00.000000+00:00",
                    }
                ],
            }
        )
    )
    return {
        "stats": ["stats"],
        "stats --json": ["stats", "--json"],
        "export md": ["export", "--format", "md"],
        "export json": ["export", "--format", "json", "-o", str(folder / "backup.json")],
        "import": ["import", str(export)],
        "mock": ["mock", "--questions", "1"],
    }


def files_beside(history: Path) -> dict[str, str]:
    """The history and any journal beside it. A read-only look at a file in WAL mode may add an
    empty `-wal` and its `-shm` index (SQLite's, holding no data), so those are not compared."""
    return {
        p.name: sha256(p)
        for p in history.parent.iterdir()
        if p.name.startswith(history.name) and not p.name.endswith(("-wal", "-shm"))
    }


@pytest.mark.parametrize(
    "command", ["stats", "stats --json", "export md", "export json", "import", "mock"]
)
@pytest.mark.parametrize("damage", REFUSED)
def test_every_command_refuses_the_damaged_file_and_leaves_it_byte_for_byte(
    home, tmp_path, capsys, monkeypatch, damage, command
):
    monkeypatch.setattr(
        "app.ui.app.GrillApp.run",
        lambda app: pytest.fail("mock opened the app on a refused history"),
    )
    home.mkdir()
    make, expected = REFUSED[damage]
    path = make(home / "history.db")
    before = files_beside(path)
    argv = commands(tmp_path)[command]
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"Cannot use the history file {path}: " in err and expected in err
    assert "Traceback" not in err
    assert files_beside(path) == before


@pytest.mark.parametrize("command", ["stats", "stats --json", "export md", "export json", "import"])
def test_every_command_recovers_a_migration_a_crash_interrupted(home, tmp_path, capsys, command):
    """SQLite rolls a hot journal back on any open that may write; grill lets it, as
    docs/progress.md says."""
    home.mkdir()
    path = hot_journal(home / "history.db")
    argv = commands(tmp_path)[command]
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    assert not Path(f"{path}-journal").exists()
    with History.open() as history:
        stored = {a.id for a in history.attempts()}
        assert history.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert {f"v1-{n}" for n in range(V1_ATTEMPTS)} | {"a1", "a2", "a3"} <= stored


def test_the_journal_is_rolled_back_before_the_file_is_judged(home):
    """Read-only, the file is half-migrated and SQLite refuses to read it; after the rollback it is v1 again."""
    home.mkdir()
    path = hot_journal(home / "history.db")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True).execute(
            "PRAGMA user_version"
        ).fetchone()
    with History.open() as history:
        assert (
            history.connection.execute("SELECT count(*) FROM attempts").fetchone()[0]
            == V1_ATTEMPTS + 3
        )


@pytest.mark.parametrize("command", ["stats", "export md", "export json", "import"])
def test_a_history_the_user_cannot_read_is_refused_untouched(tmp_path, unprivileged, command):
    home = tmp_path / "home"
    home.mkdir()
    path = real_history(home / "history.db")
    path.chmod(0o000)
    before = files_beside(path)
    done = unprivileged.grill(
        *commands(tmp_path)[command], env={"GRILL_HOME": str(home), "GRILL_PACKS": ""}
    )
    assert done.returncode == 1
    assert f"Cannot use the history file {path}: it cannot be opened" in done.stderr
    assert "Traceback" not in done.stderr
    assert files_beside(path) == before


WRITES = {
    "import": lambda history, export: main(["import", str(export)]),
    "record": lambda history, export: history.record(attempt("card-1")),
    "a setting": lambda history, export: history.set_setting("tier", "senior"),
}


@pytest.mark.parametrize("write", WRITES)
def test_a_write_is_refused_when_an_index_no_longer_matches_its_rows(home, tmp_path, capsys, write):
    """quick_check passes such a file and only some queries fail on it, so before its first write
    a command runs the full integrity_check: nothing is written into a file another may refuse."""
    home.mkdir()
    path = index_out_of_step(home / "history.db")
    before = files_beside(path)
    export = Path(commands(tmp_path)["import"][1])
    with History.open() as history:
        if write == "import":
            assert WRITES[write](history, export) == 1
            assert "not a readable grill history" in capsys.readouterr().err
        else:
            with pytest.raises(HistoryError, match="not a readable grill history"):
                WRITES[write](history, export)
    assert files_beside(path) == before
