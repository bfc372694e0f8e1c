"""The `--json` verdict as a published, versioned JSON Schema: one record shape for `grill
check --json` and `grill run --json` (`verdict_record`), described by
`checkers/schema/verdict.schema.json` (`grill schema --verdict` prints it).

The schema is generated from the `Verdict` dataclass's type hints; regenerate it after changing
`checkers/verdict.py` or `checkers/measurements.py`:

    python -m checkers.verdict_schema          # rewrite checkers/schema/verdict.schema.json
    python -m checkers.verdict_schema --check  # exit 1 if the committed file is stale

VERSION goes up when a field is renamed, removed or changes meaning; new fields may appear
within a version (the schema allows them), so a reader that checks `schema_version` keeps
working.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import cast

from checkers.verdict import Verdict

VERSION = 1
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "verdict.schema.json"
SCHEMA_ID = f"urn:grill:verdict:v{VERSION}"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def verdict_record(verdict: Verdict, **context: object) -> dict[str, object]:
    """One `--json` line: the schema's version, what was graded (`file`, `task`), the verdict."""
    return {"schema_version": VERSION, **context, **verdict.to_dict()}


def generated() -> str:
    """The schema's exact text, read from the Verdict dataclass's own type hints."""
    definitions: dict[str, object] = {}
    body = _object_schema(Verdict, definitions)
    properties = {
        "schema_version": {
            "const": VERSION,
            "description": "The version of this schema the record follows.",
        },
        "file": {"type": "string", "description": "The file graded (grill check) or run."},
        "task": {"type": "string", "description": "The card whose code task was graded."},
        **cast("dict[str, object]", body["properties"]),
    }
    schema = {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": f"grill verdict, version {VERSION}",
        "description": (
            "One line of `grill check --json` or `grill run --json`: how a training run was"
            " judged. See docs/grading.md for what each field means."
        ),
        "type": "object",
        "properties": properties,
        "required": ["schema_version", *cast("list[str]", body["required"])],
        "$defs": dict(sorted(definitions.items())),
    }
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def _object_schema(cls: type, definitions: dict[str, object]) -> dict[str, object]:
    """A dataclass or TypedDict: its fields, and which are always there (a dataclass's
    every field, since `to_dict` writes them all; a TypedDict's required keys)."""
    hints = typing.get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        required = [f.name for f in dataclasses.fields(cls)]
    else:
        required = sorted(getattr(cls, "__required_keys__", hints))
    return {
        "type": "object",
        "properties": {name: _schema(hint, definitions) for name, hint in hints.items()},
        "required": [name for name in hints if name in required],
    }


def _schema(hint: object, definitions: dict[str, object]) -> dict[str, object]:
    """The JSON Schema of one type hint, as `dataclasses.asdict` and `json` write it."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (types.UnionType, typing.Union):
        return {"anyOf": [_schema(arg, definitions) for arg in args]}
    if origin in (tuple, list):
        items = args[0] if args else object
        return {"type": "array", "items": _schema(items, definitions)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], definitions)}
    if hint is type(None):
        return {"type": "null"}
    if hint is object:
        return {}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint in simple:
        return {"type": simple[hint]}
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or typing.is_typeddict(hint)):
        name = hint.__name__
        if name not in definitions:
            definitions[name] = {}  # (a recursive type stops here)
            definitions[name] = _object_schema(hint, definitions)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {hint!r}")


def published() -> str:
    """The committed schema's text (what `grill schema --verdict` prints)."""
    return SCHEMA_FILE.read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m checkers.verdict_schema", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="only report a stale schema file")
    args = parser.parse_args(argv)
    text = generated()
    if args.check:
        stale = not SCHEMA_FILE.is_file() or published() != text
        if stale:
            print(f"{SCHEMA_FILE}: out of date; run python -m checkers.verdict_schema")
        return 1 if stale else 0
    SCHEMA_FILE.parent.mkdir(exist_ok=True)
    SCHEMA_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
