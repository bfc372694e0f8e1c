"""A card's code task may hang, raise torch.distributed's error, or hold a contract on
communication only when it runs as ranks (`grading: ranks: N`): the model refuses the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from questions.model import CodeTask

CARD = (
    Path(__file__).resolve().parents[1]
    / "questions/distributed-training/collective-called-on-rank-zero-only.yaml"
)


def task_data() -> dict:
    return yaml.safe_load(CARD.read_text(encoding="utf-8"))["code_task"]


def test_the_shipped_ranked_task_loads():
    task = CodeTask.model_validate(task_data())
    assert task.grading.ranks == 4 and task.starter_fails == "hang"
    assert task.contract.communication is not None


@pytest.mark.parametrize(
    ("change", "needs"),
    [
        (lambda d: d, "starter_fails: hang needs a ranked task"),
        (lambda d: {**d, "starter_fails": "wrong"}, "a tried fix that must hang or raise"),
        (
            lambda d: {**d, "starter_fails": "wrong", "tried_fixes": []},
            "contract.communication needs a ranked task",
        ),
    ],
)
def test_ranked_outcomes_need_ranks(change, needs):
    data = task_data()
    data["grading"] = {k: v for k, v in data["grading"].items() if k != "ranks"}
    with pytest.raises(ValidationError, match=needs):
        CodeTask.model_validate(change(data))
