"""A card's code task as the grader takes it: the one place the card model meets the checkers'
task contract (questions may import checkers; checkers never imports questions)."""

from __future__ import annotations

from checkers.api import TaskSpec
from checkers.contract import Compared, Contract
from questions.model import CodeTask


def task_spec(task: CodeTask) -> TaskSpec:
    contract = task.contract
    return TaskSpec(
        solution=task.solution,
        starter=task.starter,
        contract=Contract(
            trains=contract.trains,
            same_as_solution=tuple(
                Compared(c.name, c.rtol, c.atol) for c in contract.same_as_solution
            ),
            peak_memory=contract.peak_memory,
        ),
        device=task.grading.device,
        seconds=task.grading.seconds,
        steps=task.grading.steps,
        seed=task.grading.seed,
    )
