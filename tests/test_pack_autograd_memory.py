"""The autograd-memory pack is complete interview material, and its code tasks really teach.

Content is tested like code: every card validates against the shared model and carries the
parts a practice session needs. Each code task is graded by the real grader through its
contract in `tests/grader/test_corpus.py` (`grill lint --run`).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from app.mock.match import pre_mark
from questions.model import Card, Manifest

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "questions" / "autograd-memory"
CARD_FILES = sorted(path for path in PACK.glob("*.yaml") if path.name != "pack.yaml")

# What the sandbox lets a snippet import, and the one underscore name it allows.
ALLOWED_IMPORTS = {
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "math",
    "random",
    "collections",
}
STEPS_LINE = re.compile(r"^STEPS = (\d+)$", re.MULTILINE)


@cache
def load_card(path: Path) -> Card:
    return Card.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def cards() -> list[Card]:
    return [load_card(path) for path in CARD_FILES]


def tasks() -> list[Card]:
    return [card for card in cards() if card.code_task is not None]


def task_ids() -> list[str]:
    return [card.id for card in tasks()]


def by_id(card_id: str) -> Card:
    return next(card for card in cards() if card.id == card_id)


def words(text: str) -> int:
    return len(text.split())


def test_manifest_names_the_pack_and_points_editors_at_the_schema():
    text = (PACK / "pack.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/pack.schema.json"
    manifest = Manifest.model_validate(yaml.safe_load(text))
    assert manifest.name == PACK.name
    assert manifest.format_version == 1


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_card_file_is_a_valid_card_named_after_its_id(path: Path):
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/card.schema.json"
    assert load_card(path).id == path.stem


def test_pack_covers_the_topics_with_enough_cards_and_tasks():
    assert len(CARD_FILES) >= 8
    assert len({card.id for card in cards()}) == len(CARD_FILES)
    assert len(tasks()) >= 6


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_card_has_every_part_a_practice_session_uses(path: Path):
    card = load_card(path)
    assert len(card.follow_ups) >= 3
    assert len(card.red_flags) >= 4
    assert card.examples
    assert all(2 <= len(point.signals) <= 4 for point in card.key_points), (
        "2-4 signals per key point"
    )
    assert all(flag.signals for flag in card.red_flags), "every red flag needs signal phrases"


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_timed_answers_fit_their_budget_spoken_aloud(path: Path):
    """At a speaking pace of roughly 105 to 165 words a minute."""
    card = load_card(path)
    assert (card.basic.seconds, card.solid.seconds) == (20, 50)
    assert 35 <= words(card.basic.text) <= 55
    assert 95 <= words(card.solid.text) <= 135


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_model_answers_make_every_point_and_trip_no_red_flag(path: Path):
    """Typed in as they stand, the card's own answers are pre-marked as a good answer would be:
    the solid one makes every key point, and neither says anything a red flag listens for."""
    card = load_card(path)
    solid = pre_mark(card, card.solid.text)
    assert [mark.text for mark in solid.key_points if not mark.hit] == []
    for answer in (card.basic.text, card.solid.text):
        assert [mark.matched_by for mark in pre_mark(card, answer).red_flags if mark.hit] == []


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_tiers_are_distinct_and_deep_dive_is_structured_markdown(path: Path):
    card = load_card(path)
    tiers = [card.tiers.junior, card.tiers.middle, card.tiers.senior, card.tiers.principal]
    assert len(set(tiers)) == 4
    assert re.search(r"^## ", card.deep_dive, re.MULTILINE), "deep dive needs headings"
    assert "`" in card.deep_dive, "deep dive names APIs in code spans"
    assert 200 <= words(card.deep_dive) <= 500


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda path: path.stem)
def test_python_in_examples_and_tasks_parses(path: Path):
    card = load_card(path)
    sources = [example.code for example in card.examples if example.language == "python"]
    if card.code_task:
        sources += [card.code_task.starter, card.code_task.solution]
    assert sources
    for source in sources:
        ast.parse(source)


def sandbox_violations(source: str) -> list[str]:
    """What the grader's sandbox would refuse: other imports, underscore names, `.data`, I/O."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            problems += [
                f"import {alias.name}" for alias in node.names if alias.name not in ALLOWED_IMPORTS
            ]
        elif isinstance(node, ast.ImportFrom) and node.module not in ALLOWED_IMPORTS:
            problems.append(f"from {node.module} import")
        elif isinstance(node, ast.Name) and node.id.startswith("_"):
            problems.append(f"name {node.id}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and node.attr != "__init__"
        ):
            problems.append(f"attribute {node.attr}")
        elif (
            isinstance(node, ast.FunctionDef)
            and node.name.startswith("_")
            and node.name != "__init__"
        ):
            problems.append(f"function {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr in {"data", "save", "load"}:
            problems.append(f"attribute {node.attr}")
        elif isinstance(node, ast.Name) and node.id in {"open", "exec", "eval", "compile"}:
            problems.append(f"name {node.id}")
    return problems


@pytest.mark.parametrize("card_id", task_ids())
def test_task_code_is_a_sandbox_friendly_training_loop(card_id: str):
    task = by_id(card_id).code_task
    assert [c.name for c in task.contract.same_as_solution] == ["model"]
    assert task.starter != task.solution
    for source in (task.starter, task.solution):
        assert sandbox_violations(source) == []
        assert STEPS_LINE.findall(source) == ["60"], "one `STEPS = 60` line"
        assert "for step in range(STEPS):" in source
