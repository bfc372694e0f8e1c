"""What only the autograd-memory pack promises: its topics and tasks, and task code written in
the plain style its cards teach. What every pack's cards must carry is in `tests/test_packs.py`;
each code task is graded by the real grader through its contract in
`tests/grader/test_corpus.py` (`grill lint --run`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pack_loading import shipped_card

from questions.model import Card

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


def cards() -> list[Card]:
    return [shipped_card(path) for path in CARD_FILES]


def tasks() -> list[Card]:
    return [card for card in cards() if card.code_task is not None]


def task_ids() -> list[str]:
    return [card.id for card in tasks()]


def by_id(card_id: str) -> Card:
    return next(card for card in cards() if card.id == card_id)


def test_pack_covers_the_topics_with_enough_cards_and_tasks():
    assert len(CARD_FILES) >= 8
    assert len({card.id for card in cards()}) == len(CARD_FILES)
    assert len(tasks()) >= 6


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
    compared = [c.name for c in task.contract.same_as_solution]
    assert compared[0] == "model", "the trained model first, then what the prompt keeps"
    assert task.starter != task.solution
    for source in (task.starter, task.solution):
        assert sandbox_violations(source) == []
        assert STEPS_LINE.findall(source) == ["60"], "one `STEPS = 60` line"
        assert "for step in range(STEPS):" in source
