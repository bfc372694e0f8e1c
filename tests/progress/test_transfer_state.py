"""Export format version 2: the whole user state round-trips (attempts, settings, hint
progress, suspended and buried cards, drafts); importing merges without losing what is here;
version 1 files still import."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from progress_factories import T0, attempt

from app.practice.drafts import Drafts
from app.practice.hints import hints_shown, record_hints_shown
from app.progress.history import CardFlags, History
from app.progress.transfer import ExportFileError, export_document, import_file, write_export

LATER = T0 + timedelta(days=3)


def machine(tmp_path: Path, name: str) -> tuple[History, Drafts]:
    return History.open(tmp_path / name / "history.db"), Drafts(tmp_path / name / "drafts")


def exported(history: History, drafts: Drafts, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as out:
        write_export(history, out, now=LATER, drafts=drafts)
    return path


def test_the_whole_user_state_reaches_a_new_machine(tmp_path):
    old, old_drafts = machine(tmp_path, "old")
    with old:
        old.record(attempt("a1", at=T0))
        old.set_setting("new_per_day", 4)
        record_hints_shown(old, "a1", 2)
        old.set_suspended("a2", True)
        old.bury("a3", LATER)
        old_drafts.save("a1", "total += loss.item()\n", starter="total += loss\n")
        path = exported(old, old_drafts, tmp_path / "export.json")
        before = export_document(old, now=LATER, drafts=old_drafts)
    new, new_drafts = machine(tmp_path, "new")
    with new:
        import_file(new, path, new_drafts)
        after = export_document(new, now=LATER, drafts=new_drafts)
        assert hints_shown(new, "a1") == 2
        assert new.card_flags() == {"a2": CardFlags(suspended=True), "a3": CardFlags(False, LATER)}
    assert after == before
    assert json.loads(path.read_text())["version"] == 2


def test_importing_keeps_what_this_machine_has_and_twice_changes_nothing(tmp_path):
    old, old_drafts = machine(tmp_path, "old")
    with old:
        old.set_setting("theme", "light")
        old.set_suspended("a1", True)
        old_drafts.save("a1", "theirs\n", starter="")
        path = exported(old, old_drafts, tmp_path / "export.json")
    here, drafts = machine(tmp_path, "here")
    with here:
        here.set_setting("theme", "dark")
        drafts.save("a1", "mine\n", starter="")
        import_file(here, path, drafts)
        state = export_document(here, now=LATER, drafts=drafts)
        import_file(here, path, drafts)
        assert export_document(here, now=LATER, drafts=drafts) == state
        assert here.get_setting("theme") == "dark"
        assert here.card_flags()["a1"].suspended
    assert drafts.load("a1").text == "mine\n"


def test_a_version_1_export_still_imports(tmp_path):
    path = tmp_path / "v1.json"
    old, _ = machine(tmp_path, "old")
    with old:
        old.record(attempt("a1", at=T0))
        document = export_document(old, now=LATER)
    v1 = {key: document[key] for key in ("format", "exported_at", "attempts")} | {"version": 1}
    path.write_text(json.dumps(v1))
    new, drafts = machine(tmp_path, "new")
    with new:
        assert import_file(new, path, drafts).added == 1


def test_a_bad_state_member_is_placed_and_nothing_is_imported(tmp_path):
    old, old_drafts = machine(tmp_path, "old")
    with old:
        old.record(attempt("a1", at=T0))
        document = export_document(old, now=LATER, drafts=old_drafts)
    document["card_flags"] = {"a2": {"suspended": "yes"}}
    document["drafts"] = {"a1": {"text": 3, "saved_at": "now"}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    new, drafts = machine(tmp_path, "new")
    with new:
        with pytest.raises(ExportFileError) as raised:
            import_file(new, path, drafts)
        assert new.attempts() == []
    assert raised.value.problems == [
        'card_flags.a2: expected {"suspended": true or false, "buried_until": ...}',
        "drafts.a1.text: expected the draft's code, at most 1 MiB",
    ]


def test_the_streamed_export_is_the_documents_json(tmp_path):
    history, drafts = machine(tmp_path, "one")
    with history:
        history.set_setting("level", "senior")
        drafts.save("a1", "x = 1\n", starter="")
        out = io.StringIO()
        write_export(history, out, now=LATER, drafts=drafts)
        document = export_document(history, now=LATER, drafts=drafts)
    assert out.getvalue() == json.dumps(document, indent=1, ensure_ascii=False) + "\n"
