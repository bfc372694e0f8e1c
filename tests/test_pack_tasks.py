"""What the code tasks of the packs whose tasks fail their contract declare (every pack but
autograd-memory, whose starters keep graphs alive): a contract their starter breaks (or, where a
pack allows it, a leak), compared names that exist in starter and solution, and only the imports
the sandbox offers.

Whether each starter really fails and each solution really passes is graded by the real grader
through the contract: `grill lint --run` on each shipped task in `tests/grader/test_corpus.py`,
with the fixes that break a task.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from pack_loading import shipped_library

from questions.model import Card

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_PACKS = (
    "training-loop-bugs",
    "gpu-memory",
    "distributed-training",
    "numerics-and-stability",
    "transformer-memory",
    "performance-and-syncs",
    "inference-and-serving",
)
LEAK_TASKS_ALLOWED = {"transformer-memory", "inference-and-serving"}
"""Packs whose tasks may also fail by keeping graphs alive (`starter_fails: leak`), such as a
generation loop run under grad; every other task's starter breaks its contract."""
RANKED_FAILURES = {"hang", "error"}
"""How a ranked task's starter may also fail (`grading.ranks`): its ranks waiting on each
other, or torch.distributed's own error (DDP's on parameters that got no gradient)."""

SANDBOX_IMPORTS = {
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.autograd",
    "torch.utils.data",
    "torch.amp",
    "torch.distributions",
    "torch.linalg",
    "math",
    "random",
    "collections",
    "itertools",
    "functools",
    "copy",
    "dataclasses",
    "statistics",
    "time",
    "typing",
    "torch.utils.checkpoint",
}
RANKED_IMPORTS = {"torch.distributed", "torch.nn.parallel", "torch.utils.data.distributed"}
"""What the policy adds for a ranked run's ranks."""


@cache
def task_packs() -> dict[str, str]:
    """The pack of every card with a code task, by card id."""
    return {card.id: pack for pack, card in _task_cards_with_packs()}


@cache
def _task_cards_with_packs() -> tuple[tuple[str, Card], ...]:
    packs = {pack.root.name: pack for pack in shipped_library().packs}
    return tuple(
        (name, loaded.card)
        for name in CONTRACT_PACKS
        for loaded in packs[name].cards
        if loaded.card.code_task is not None
    )


def task_cards() -> tuple[Card, ...]:
    return tuple(card for _, card in _task_cards_with_packs())


def by_id(card_id: str) -> Card:
    return next(card for card in task_cards() if card.id == card_id)


TASK_IDS = [card.id for card in task_cards()]


# --- what every task declares -------------------------------------------------------------


@pytest.mark.parametrize("card_id", TASK_IDS)
def test_task_declares_a_contract_its_starter_breaks(card_id: str):
    task = by_id(card_id).code_task
    allowed = {"wrong", "leak"} if task_packs()[card_id] in LEAK_TASKS_ALLOWED else {"wrong"}
    if task.grading.ranks is not None:
        allowed |= RANKED_FAILURES
    assert task.starter_fails in allowed
    assert task.starter != task.solution
    assert len(task.hints) >= 2
    if task.contract.peak_memory is not None:
        assert task.contract.peak_memory <= 0.6


def module_level_names(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else (
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
            )
        )
        for target in targets:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if isinstance(node, (ast.With, ast.For, ast.If, ast.While)):
            names |= {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return names


@pytest.mark.parametrize("card_id", TASK_IDS)
def test_compared_names_are_module_level_in_starter_and_solution(card_id: str):
    task = by_id(card_id).code_task
    for source in (task.starter, task.solution):
        defined = module_level_names(source)
        assert {compared.name for compared in task.contract.same_as_solution} <= defined


def imported_modules(source: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module)
    return modules


@pytest.mark.parametrize("card_id", TASK_IDS)
def test_task_code_imports_only_what_the_sandbox_offers(card_id: str):
    task = by_id(card_id).code_task
    ranked = task.grading.ranks is not None
    offered = SANDBOX_IMPORTS | RANKED_IMPORTS if ranked else SANDBOX_IMPORTS
    for source in (task.starter, task.solution):
        assert imported_modules(source) <= offered
        tree = ast.parse(source)
        attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        keywords = {node.arg for node in ast.walk(tree) if isinstance(node, ast.keyword)}
        assert "multiprocessing" not in attributes, "the sandbox starts the ranks itself"
        if not ranked:
            assert "distributed" not in attributes, "a task without ranks simulates them"
        assert "num_workers" not in keywords, "the sandbox's DataLoader is single-process"


# --- what running them shows --------------------------------------------------------------


# --- tried fixes ----------------------------------------------------------------------------


def shipped_task_cards() -> list[Card]:
    """Every card with a code task in every shipped pack, the first pack's included."""
    return [loaded.card for loaded in shipped_library().cards if loaded.card.code_task is not None]


SHIPPED_TASKS = shipped_task_cards()


@pytest.mark.parametrize("card", SHIPPED_TASKS, ids=[card.id for card in SHIPPED_TASKS])
def test_every_shipped_task_carries_its_own_tried_fixes(card: Card):
    """At least two fixes the contract must reject (`wrong` or `leak`) and one alternative
    correct fix it must accept, each different from the starter and the solution; `grill lint
    --run` grades them (tests/grader/test_corpus.py)."""
    task = card.code_task
    assert task is not None
    expects = [fix.expect for fix in task.tried_fixes]
    assert sum(expect in ("wrong", "leak") for expect in expects) >= 2, expects
    assert expects.count("clean") >= 1, expects
    codes = [fix.code.strip() for fix in task.tried_fixes]
    assert len(set(codes)) == len(codes), "two tried fixes with the same code"
    assert not {task.starter.strip(), task.solution.strip()} & set(codes)
    for fix in task.tried_fixes:
        ast.parse(fix.code)  # what the sandbox accepts is graded by `grill lint --run`


def test_every_pack_with_code_tasks_has_tried_fixes():
    packs = {path.parent.name for path in (ROOT / "questions").glob("*/pack.yaml")}
    assert len(SHIPPED_TASKS) >= 40
    assert packs == {
        path.parent.name
        for path in (ROOT / "questions").glob("*/*.yaml")
        if path.name != "pack.yaml"
    }
