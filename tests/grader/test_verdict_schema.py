"""The `--json` verdict's published JSON Schema: versioned, generated from the Verdict type,
printed by `grill schema --verdict`, and what `grill check --json` really prints follows it."""

import json
from pathlib import Path

import jsonschema
import pytest
from warm_worker import lend_shared_worker

from app.cli import main
from checkers.verdict_schema import VERSION, generated, published

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(published())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_published_schema_is_the_one_the_verdict_type_generates():
    assert published() == generated(), "run: python -m checkers.verdict_schema"


def test_the_schema_is_versioned():
    schema = json.loads(published())
    assert schema["properties"]["schema_version"] == {
        "const": VERSION,
        "description": "The version of this schema the record follows.",
    }
    assert f"v{VERSION}" in schema["$id"]
    assert "schema_version" in schema["required"]


def test_grill_schema_verdict_prints_it_without_importing_torch(imported_after):
    modules = imported_after(
        "import contextlib, io\nfrom app.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    status = main(['schema', '--verdict'])\n"
        "assert status == 0\n"
        "print(len(out.getvalue()))"
    )
    assert modules.of("torch") == []
    assert modules.output == str(len(published()))


def test_grill_schema_verdict_takes_no_folder(capsys):
    assert main(["schema", "--verdict", "somewhere"]) == 2
    assert "takes no DIR" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name",
    [
        "clean_item_total.py",
        "leak_list_of_losses.py",
        "leak_running_total.py",
    ],
)
def test_grill_check_json_follows_the_schema(capsys, validator, name, monkeypatch):
    lend_shared_worker(monkeypatch)  # what it prints, not whose worker graded it
    status = main(["check", "--json", "--device", "cpu", "--steps", "20", str(CORPUS / name)])
    record = json.loads(capsys.readouterr().out)
    assert status in (0, 1)
    assert record["schema_version"] == VERSION
    validator.validate(record)


def test_a_verdict_not_graded_follows_the_schema_too(capsys, validator, tmp_path, monkeypatch):
    lend_shared_worker(monkeypatch)
    broken = tmp_path / "raises.py"
    broken.write_text("import torch\nraise RuntimeError('no data')\n", encoding="utf-8")
    status = main(["check", "--json", "--device", "cpu", str(broken)])
    record = json.loads(capsys.readouterr().out)
    assert status == 3 and record["verdict"] == "error"
    validator.validate(record)


def test_the_schema_refuses_a_record_that_breaks_it(validator):
    record = json.loads(json.dumps({"schema_version": VERSION, "verdict": "leak", "device": "cpu"}))
    assert not validator.is_valid(record)  # most fields missing
    assert not validator.is_valid({"schema_version": VERSION + 1})
