"""Run a candidate's PyTorch snippet in a sandbox and grade it for retained autograd graphs.

The public API, on one page (each name loads its module on first use, so importing
`checkers` costs nothing and never imports torch):

- `grade_source(source, ...)`, `grade_file(path, ...)`: grade a training-loop snippet.
- `grade_task(source, spec, ...)`: grade a fix of a code task against its `TaskSpec`
  (`Contract`, `Grading`): clean only when it keeps no graph and keeps the contract.
- `Verdict` (with `Retained`, `Expectation`), the JSON-serializable result, and its exit codes.
- `Sandbox`, `Limits`: the isolated, resource-limited processes runs happen in.
- `assert_no_graph_leak(step)`: the grader as a pytest assertion, in process (imports torch).

The package's four rooms, one per layer: `policy/` (what a snippet may do, in the sandbox
child), `measure/` (the grading job, in the child, with torch), `judge/` (measurements to a
verdict, in the parent, without torch) and `sandbox/` (the processes); see docs/layout.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkers.api import UsageError, grade_file, grade_source, grade_task
    from checkers.sandbox import Limits, Sandbox
    from checkers.task import Contract, Grading, TaskSpec
    from checkers.testing import assert_no_graph_leak
    from checkers.verdict import Expectation, Retained, Verdict

_HOMES = {
    "grade_source": "checkers.api",
    "grade_file": "checkers.api",
    "grade_task": "checkers.api",
    "UsageError": "checkers.api",
    "TaskSpec": "checkers.task",
    "Contract": "checkers.task",
    "Grading": "checkers.task",
    "Verdict": "checkers.verdict",
    "Retained": "checkers.verdict",
    "Expectation": "checkers.verdict",
    "Sandbox": "checkers.sandbox",
    "Limits": "checkers.sandbox",
    "assert_no_graph_leak": "checkers.testing",
}

__all__ = [
    "Contract",
    "Expectation",
    "Grading",
    "Limits",
    "Retained",
    "Sandbox",
    "TaskSpec",
    "UsageError",
    "Verdict",
    "assert_no_graph_leak",
    "grade_file",
    "grade_source",
    "grade_task",
]


def __getattr__(name: str) -> object:
    """`checkers.grade_source` and the rest load their module only when first used."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'checkers' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
