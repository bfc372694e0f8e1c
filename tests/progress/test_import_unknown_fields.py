"""An export with fields this grill does not know (a newer grill's) imports, and says which
fields it dropped, per attempt kind, and from how many attempts: they went silently."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from progress_factories import T0, attempt

from app.cli import main
from app.progress.attempt import CodeResult
from app.progress.history import History
from app.progress.transfer import export_document, import_file

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def an_export_with_new_fields(tmp_path):
    code = CodeResult("clean", None, 0.0, (), "x = 1")
    with History.open(tmp_path / "from.db") as history:
        for n in range(3):
            history.record(attempt("a1", at=T0 + timedelta(days=n), code=code if n == 0 else None))
        history.record(attempt("m1", at=T0, mode="mock", session_id="s1"))
        document = export_document(history, now=NOW)
    practice = [a for a in document["attempts"] if a["mode"] == "practice"]
    for item in practice:
        item["hint_level"] = 2
    practice[0]["code"]["gpu_seconds"] = 1.5
    mock = next(a for a in document["attempts"] if a["mode"] == "mock")
    mock["interviewer"] = "kind"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    return path


def test_import_counts_the_dropped_fields_per_attempt_kind(tmp_path):
    path = an_export_with_new_fields(tmp_path)
    with History.open(tmp_path / "to.db") as history:
        result = import_file(history, path)
        assert result.added == 4
        assert len(history.attempts()) == 4
    assert result.dropped == {
        "mock": {"interviewer": 1},
        "practice": {"code.gpu_seconds": 1, "hint_level": 3},
    }


def test_an_export_grill_wrote_itself_drops_nothing(tmp_path):
    with History.open(tmp_path / "from.db") as history:
        history.record(attempt("a1", code=CodeResult("leak", "sawtooth", 8.0, ("t",), "t += l")))
        document = export_document(history, now=NOW)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    with History.open(tmp_path / "to.db") as history:
        assert import_file(history, path).dropped == {}


def test_grill_import_names_the_dropped_fields_one_line_per_kind(tmp_path, monkeypatch, capsys):
    path = an_export_with_new_fields(tmp_path)
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    assert main(["import", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("Imported 4 new attempts")
    assert captured.err.splitlines() == [
        "grill import: note: dropped from mock attempts the fields this grill does not know:"
        " interviewer (1 attempt)",
        "grill import: note: dropped from practice attempts the fields this grill does not know:"
        " code.gpu_seconds (1 attempt), hint_level (3 attempts)",
    ]
