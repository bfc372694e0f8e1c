"""Card and manifest skeletons for `grill new`: every field present, each to fill in marked TODO.

The loader reports every TODO left as a problem, so an unfinished card never reaches practice;
once the TODOs are replaced with real values the card loads.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from checkers.inputs import FileRefused, read_file
from checkers.outputs import write_whole
from questions.loader import CARD_SUFFIX, MANIFEST_NAME
from questions.model import FORMAT_VERSION, SLUG_RULE, Slug
from questions.schema_export import CARD_SCHEMA, PACK_SCHEMA

_slug = TypeAdapter(Slug)
MAX_SCHEMA_BYTES = 1 << 22
"""4 MiB: the schemas are some 20 KB; a larger file by that name is not a copy of one."""
_SOURCE_TREE = CARD_SCHEMA.parent.parent.parent

CARD_TEMPLATE = """\
# yaml-language-server: $schema={schema}
id: {card_id}
question: TODO the question, as an interviewer would ask it
level: TODO  # junior, middle, senior or principal: where it is usually asked
importance: TODO  # must know, should know or nice to know
frequency: TODO  # how often it comes up in interviews, 0 to 100 (percent)
tags: [TODO]  # lower-case words joined by hyphens
key_points:  # the 3 to 7 short claims a good answer makes
  - point: TODO the first claim
    signals: [TODO]  # optional: words that show the point was made in a typed answer
  - point: TODO the second claim
    signals: [TODO]
  - point: TODO the third claim
    signals: [TODO]
basic:
  text: TODO the answer in about 20 seconds
  seconds: 20
solid:
  text: TODO the answer in about 50 seconds
  seconds: 50
tiers:
  junior: TODO what a junior candidate is expected to say
  middle: TODO what a middle candidate adds
  senior: TODO what a senior candidate adds
  principal: TODO what a principal candidate adds
deep_dive: |
  TODO the full explanation, in Markdown
examples:
  - language: python
    code: |
      # TODO a short, runnable example
    note: TODO what the example shows
follow_ups:
  - question: TODO a question an interviewer asks next
    answer: TODO its answer
red_flags:
  - flag: TODO something that, said in an interview, costs the question
    signals: [TODO]  # optional: phrases that show the flag was said
code_task:  # optional: delete this whole block if the card has no code task
  prompt: TODO what the candidate must change in the starter
  starter: |
    # TODO a complete training loop that keeps graphs alive across iterations
  solution: |
    # TODO the same loop without the leak
  hints:
    - TODO the first hint
  starter_fails: leak  # leak, or wrong (it computes something other than the solution)
  tried_fixes:  # optional: fixes a candidate might try; grill lint --run grades each one
    - name: TODO what the fix does, in a few words
      expect: wrong  # clean (another correct fix), wrong (breaks the task) or leak
      why: TODO why it grades so
      code: |
        # TODO the whole snippet, as a candidate would submit it
  contract:  # what a fix must still do, checked against the solution under the same seed
    trains: true  # as many backward passes and optimizer updates as the solution
    same_as_solution:
      - name: model  # a module-level name both leave behind (a module, a tensor, a number)
  grading:
    device: auto  # auto, cpu or cuda
"""

MANIFEST_TEMPLATE = """\
# yaml-language-server: $schema={schema}
name: {name}
title: TODO a short title for the pack
description: TODO what the pack covers
format_version: {version}
"""


class ScaffoldError(Exception):
    """A skeleton that cannot be written; the message says why and what to do."""


def card_skeleton(card_id: str, pack_dir: Path) -> str:
    return CARD_TEMPLATE.format(schema=_schema_ref(CARD_SCHEMA, pack_dir), card_id=card_id)


def manifest_skeleton(pack_dir: Path) -> str:
    name = pack_dir.resolve().name
    return MANIFEST_TEMPLATE.format(
        schema=_schema_ref(PACK_SCHEMA, pack_dir),
        name=name if _is_slug(name) else "TODO",
        version=FORMAT_VERSION,
    )


def write_card_skeleton(pack_dir: Path, card_id: str) -> list[Path]:
    """Write `<pack_dir>/<card_id>.yaml`, and `pack.yaml` when the folder has none; never overwrite.
    Outside grill's source tree the JSON Schemas go beside them when missing, so the cards'
    `$schema` line points at a file that travels with the pack.

    Returns the files written.
    """
    if not _is_slug(card_id):
        raise ScaffoldError(f"'{card_id}' is not a valid card id: use {SLUG_RULE}")
    if pack_dir.exists() and not pack_dir.is_dir():
        raise ScaffoldError(f"{pack_dir} is a file, not a pack folder")
    card_path = pack_dir / f"{card_id}{CARD_SUFFIX}"
    if card_path.exists():
        raise ScaffoldError(
            f"{card_path} already exists; not overwriting it (choose another id or delete the file)"
        )
    try:
        pack_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ScaffoldError(f"cannot create the folder {pack_dir}: {error.strerror}") from None
    written = []
    manifest = pack_dir / MANIFEST_NAME
    if not manifest.exists():
        _write_new(manifest, manifest_skeleton(pack_dir))
        written.append(manifest)
    _write_new(card_path, card_skeleton(card_id, pack_dir))
    written.append(card_path)
    if not _in_source_tree(pack_dir):
        written += write_schemas(pack_dir, only_missing=True)
    return written


def _write_new(path: Path, text: str) -> None:
    try:
        write_whole(path, text, replace=False)  # fail rather than overwrite, even in a race
    except FileExistsError:
        raise ScaffoldError(f"{path} already exists; not overwriting it") from None
    except OSError as error:
        raise ScaffoldError(f"cannot write {path}: {error.strerror}") from None


def write_schemas(folder: Path, *, only_missing: bool = False) -> list[Path]:
    """Copy the card and manifest schemas into `folder` (`grill schema`): the files a pack's
    `$schema` lines name, beside its cards, so they travel with it. A copy already there is
    rewritten only when it differs (an older grill's), or never with `only_missing`.

    Returns the files written.
    """
    written = []
    for schema in (CARD_SCHEMA, PACK_SCHEMA):
        target = folder / schema.name
        try:
            text = read_file(schema, role="grill's schema", cap=MAX_SCHEMA_BYTES)
            if target.exists() and (
                only_missing or read_file(target, role="a schema", cap=MAX_SCHEMA_BYTES) == text
            ):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            write_whole(target, text)
        except FileRefused as refused:
            raise ScaffoldError(f"{refused}: move it aside, and grill writes its own") from None
        except OSError as error:
            raise ScaffoldError(f"cannot write {target}: {error.strerror}") from None
        written.append(target)
    return written


def _in_source_tree(pack_dir: Path) -> bool:
    return pack_dir.resolve().is_relative_to(_SOURCE_TREE)


def _schema_ref(schema: Path, pack_dir: Path) -> str:
    """Inside grill's source tree, relative to the shipped schema; elsewhere the copy beside the
    card (`write_schemas`), never a path into grill's install, which breaks once the pack is
    shared or grill moves."""
    if _in_source_tree(pack_dir):
        return Path(os.path.relpath(schema, pack_dir.resolve())).as_posix()
    return schema.name


def _is_slug(text: str) -> bool:
    try:
        _slug.validate_python(text)
    except ValidationError:
        return False
    return True
