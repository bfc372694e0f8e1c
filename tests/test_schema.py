"""The shipped JSON Schemas are generated from the card model and agree with the loader."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from pack_loading import load_pack

from questions.loader import load_card_file
from questions.schema_export import CARD_SCHEMA, PACK_SCHEMA, generated, main, stale

PACKS = Path(__file__).parent / "fixtures" / "packs"

BEYOND_SCHEMA = {
    "duplicate-key": "a YAML reader hands the schema only the last of two equal keys",
    "bad-python-example": "a schema cannot parse Python",
    "bad-python-inline": "a schema cannot parse Python",
    "bad-python-starter": "a schema cannot parse Python",
    "todo-left": "TODO text is valid text; unfinished cards are the loader's rule",
    "id-does-not-match": "a schema does not see the file name",
    "decimal-frequency": "JSON Schema counts 40.0 as an integer; the loader wants 40",
}
"""Fixtures the loader rejects for reasons JSON Schema cannot express, and why."""

CARD_FILES = sorted(p for p in PACKS.glob("*/*.yaml") if p.name != "pack.yaml")
MANIFESTS = sorted(PACKS.glob("*/pack.yaml"))


def schema_accepts(schema_path: Path, path: Path) -> bool:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        return False  # not YAML at all: nothing for a schema to accept
    validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text()))
    return validator.is_valid(data)


def test_committed_schemas_match_the_model():
    """Regenerate with `python -m questions.schema_export` after changing questions/model.py."""
    assert stale() == []
    assert main(["--check"]) == 0


def test_generated_schemas_are_valid_json_schema():
    for text in generated().values():
        jsonschema.Draft202012Validator.check_schema(json.loads(text))


def test_schema_carries_the_model_docstrings_for_editors():
    schema = json.loads(CARD_SCHEMA.read_text())
    assert (
        schema["properties"]["question"]["description"] == "The question as an interviewer asks it."
    )
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_schema_and_loader_agree_on_every_card_fixture(path):
    card, problems = load_card_file(path)
    loader_accepts = card is not None
    if path.stem in BEYOND_SCHEMA:
        assert not loader_accepts and schema_accepts(CARD_SCHEMA, path)
    else:
        assert schema_accepts(CARD_SCHEMA, path) == loader_accepts, problems


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.parent.name)
def test_schema_and_loader_agree_on_every_manifest_fixture(path):
    pack, problems = load_pack(path.parent)
    manifest_problems = [p for p in problems if p.path == str(path)]
    assert schema_accepts(PACK_SCHEMA, path) == (not manifest_problems), manifest_problems
