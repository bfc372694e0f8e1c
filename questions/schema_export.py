"""Generate the JSON Schemas for cards and manifests from the same models the loader uses.

Editors read them through the `# yaml-language-server: $schema=...` comment at the top of each
card. Regenerate after changing `questions/model.py`:

    python -m questions.schema_export          # rewrite questions/schema/*.schema.json
    python -m questions.schema_export --check  # exit 1 if the committed files are stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from questions.model import Card, Manifest

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
CARD_SCHEMA = SCHEMA_DIR / "card.schema.json"
PACK_SCHEMA = SCHEMA_DIR / "pack.schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _GrillSchema(GenerateJsonSchema):
    def str_schema(self, schema: core_schema.StringSchema) -> JsonSchemaValue:
        json_schema = super().str_schema(schema)
        # The loader strips text before checking it is non-empty; `\S` says the same to an editor.
        if schema.get("strip_whitespace") and schema.get("min_length"):
            json_schema["pattern"] = r"\S"
        return json_schema


def schema_for(model: type[BaseModel], title: str) -> JsonSchemaValue:
    schema = model.model_json_schema(schema_generator=_GrillSchema)
    return {"$schema": DIALECT, **schema, "title": title}


def generated() -> dict[Path, str]:
    """Each schema file's path and the exact text it should hold."""
    schemas = {
        CARD_SCHEMA: schema_for(Card, "grill question card"),
        PACK_SCHEMA: schema_for(Manifest, "grill pack manifest (pack.yaml)"),
    }
    return {
        path: json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        for path, schema in schemas.items()
    }


def stale() -> list[Path]:
    return [
        path
        for path, text in generated().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m questions.schema_export", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="only report stale schema files")
    args = parser.parse_args(argv)
    if args.check:
        outdated = stale()
        for path in outdated:
            print(f"{path}: out of date; run python -m questions.schema_export")
        return 1 if outdated else 0
    SCHEMA_DIR.mkdir(exist_ok=True)
    for path, text in generated().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
