"""Every shipped pack is complete interview material, and the packs together cover a senior
ML-engineering interview without repeating themselves.

Content is tested like code. Across all packs: every pack loads cleanly, ids are unique, and no
two cards share a question or a key point; each card carries the parts a practice session
uses, its model answers make their own key points and trip none of their own red flags, and its
Python parses. Each pack's levels and tags span junior to principal, and the packs together
hold what an interview needs. The README's pack table matches the packs.

The code tasks' behaviour (starter fails its contract, solution keeps it) is tested in
`tests/test_pack_tasks.py`.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import yaml

from app.mock.match import pre_mark
from questions.levels import LEVELS
from questions.loader import load_library
from questions.model import Card, Manifest

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "questions"
MINIMUM_CARDS = {
    "autograd-memory": 10,
    "training-loop-bugs": 10,
    "gpu-memory": 10,
    "distributed-training": 8,
    "numerics-and-stability": 10,
    "transformer-memory": 10,
    "performance-and-syncs": 10,
    "inference-and-serving": 12,
}
MINIMUM_CARDS_IN_ALL = 107
MINIMUM_TASKS_IN_ALL = 63


def pack_dirs() -> list[Path]:
    return sorted(path.parent for path in QUESTIONS.glob("*/pack.yaml"))


def card_files(pack: str) -> list[Path]:
    return sorted(path for path in (QUESTIONS / pack).glob("*.yaml") if path.name != "pack.yaml")


ALL_CARD_FILES = [path for pack in pack_dirs() for path in card_files(pack.name)]


@cache
def load_card(path: Path) -> Card:
    return Card.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def cards(pack: str) -> list[Card]:
    return [load_card(path) for path in card_files(pack)]


def all_cards() -> list[Card]:
    return [load_card(path) for pack in pack_dirs() for path in card_files(pack.name)]


def words(text: str) -> int:
    return len(text.split())


def normalised(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9_]+", text.lower()))


# --- all packs together -------------------------------------------------------------------


def test_every_shipped_pack_loads_without_a_problem():
    library = load_library([QUESTIONS])
    assert [str(problem) for problem in library.problems] == []
    assert {pack.info.name for pack in library.packs} >= set(MINIMUM_CARDS)


def test_card_ids_are_unique_across_all_packs():
    ids = Counter(card.id for card in all_cards())
    assert [card_id for card_id, count in ids.items() if count > 1] == []


def test_no_two_cards_ask_the_same_question():
    questions = Counter(normalised(card.question) for card in all_cards())
    assert [question for question, count in questions.items() if count > 1] == []


def test_no_two_cards_share_a_key_point():
    owners: dict[str, list[str]] = {}
    for card in all_cards():
        for point in card.key_points:
            owners.setdefault(normalised(point.point), []).append(card.id)
    assert {point: ids for point, ids in owners.items() if len(ids) > 1} == {}


def test_each_pack_has_its_cards_and_the_packs_together_their_code_tasks():
    for pack, minimum in MINIMUM_CARDS.items():
        assert len(card_files(pack)) >= minimum, pack
    every = [card for pack in MINIMUM_CARDS for card in cards(pack)]
    assert len(every) >= MINIMUM_CARDS_IN_ALL
    assert sum(card.code_task is not None for card in every) >= MINIMUM_TASKS_IN_ALL


# --- each pack ----------------------------------------------------------------------------


@pytest.mark.parametrize("pack", [path.name for path in pack_dirs()])
def test_manifest_names_the_pack_and_points_editors_at_the_schema(pack: str):
    text = (QUESTIONS / pack / "pack.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/pack.schema.json"
    manifest = Manifest.model_validate(yaml.safe_load(text))
    assert manifest.name == pack
    assert manifest.format_version == 1


@pytest.mark.parametrize("pack", list(MINIMUM_CARDS))
def test_levels_span_junior_to_principal(pack: str):
    assert {card.level for card in cards(pack)} == set(LEVELS)


@pytest.mark.parametrize("pack", list(MINIMUM_CARDS))
def test_tags_are_meaningful_filters(pack: str):
    """Tags name topics: several per card, none a placeholder or the pack's own name, and each
    pack's tags both group cards (some are shared) and tell them apart (many distinct)."""
    tag_counts = Counter(tag for card in cards(pack) for tag in card.tags)
    for card in cards(pack):
        assert 2 <= len(card.tags) <= 6, card.id
        assert len(set(card.tags)) == len(card.tags), card.id
        assert not {"todo", "misc", "general", "pytorch", pack} & set(card.tags), card.id
        assert any(tag_counts[tag] > 1 for tag in card.tags), (
            f"{card.id} shares no tag with its pack"
        )
    assert len(tag_counts) >= 12


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_card_file_is_a_valid_card_named_after_its_id(path: Path):
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/card.schema.json"
    assert load_card(path).id == path.stem


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_card_has_every_part_a_practice_session_uses(path: Path):
    card = load_card(path)
    assert 3 <= len(card.key_points) <= 7
    assert len(card.follow_ups) >= 3
    assert len(card.red_flags) >= 4
    assert card.examples
    assert all(2 <= len(point.signals) <= 4 for point in card.key_points), (
        "2-4 signals per key point"
    )
    assert all(flag.signals for flag in card.red_flags), "every red flag needs signal phrases"


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_timed_answers_fit_their_budget_spoken_aloud(path: Path):
    """At a speaking pace of roughly 105 to 165 words a minute."""
    card = load_card(path)
    assert (card.basic.seconds, card.solid.seconds) == (20, 50)
    assert 35 <= words(card.basic.text) <= 55
    assert 95 <= words(card.solid.text) <= 135


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_model_answers_make_every_point_and_trip_no_red_flag(path: Path):
    """Typed in as they stand, the card's own answers are pre-marked as a good answer would be:
    the solid one makes every key point, and neither says anything a red flag listens for."""
    card = load_card(path)
    solid = pre_mark(card, card.solid.text)
    assert [mark.text for mark in solid.key_points if not mark.hit] == []
    for answer in (card.basic.text, card.solid.text):
        assert [mark.matched_by for mark in pre_mark(card, answer).red_flags if mark.hit] == []


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_tiers_are_distinct_and_deep_dive_is_structured_markdown(path: Path):
    card = load_card(path)
    tiers = [card.tiers.junior, card.tiers.middle, card.tiers.senior, card.tiers.principal]
    assert len(set(tiers)) == 4
    assert re.search(r"^## ", card.deep_dive, re.MULTILINE), "deep dive needs headings"
    assert "`" in card.deep_dive, "deep dive names APIs in code spans"
    assert 200 <= words(card.deep_dive) <= 500


@pytest.mark.parametrize("path", ALL_CARD_FILES, ids=lambda path: path.stem)
def test_python_in_examples_and_tasks_parses(path: Path):
    card = load_card(path)
    sources = [example.code for example in card.examples if example.language == "python"]
    if card.code_task:
        sources += [card.code_task.starter, card.code_task.solution]
    assert sources
    for source in sources:
        ast.parse(source)


# --- the README ---------------------------------------------------------------------------


README_ROW = re.compile(
    r"^\| `(?P<pack>[a-z0-9-]+)` \| [^|]+ \| (?P<cards>\d+) \| (?P<tasks>\d+) \|$", re.MULTILINE
)


def test_readme_lists_every_pack_with_its_card_and_task_counts():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = {m["pack"]: (int(m["cards"]), int(m["tasks"])) for m in README_ROW.finditer(readme)}
    actual = {}
    for pack in pack_dirs():
        pack_cards = cards(pack.name)
        actual[pack.name] = (
            len(pack_cards),
            sum(card.code_task is not None for card in pack_cards),
        )
    assert listed == actual
