"""Check that a card's Python (examples and code task) compiles, pointing at the bad line in the file."""

from __future__ import annotations

import sys

import yaml

from questions.model import Card, Problem
from questions.yamldoc import Loc, YamlDocument, describe_loc

PYTHON_NAMES = frozenset({"python", "py", "python3"})
_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
"""Cards are compiled by the Python grill runs on, which is also the one that grades code tasks."""


def python_locations(card: Card) -> list[Loc]:
    """Where a card holds Python: examples marked as Python, and the task's starter and solution."""
    locs: list[Loc] = [("examples", index, "code") for index, example in enumerate(card.examples)
                       if example.language.lower() in PYTHON_NAMES]
    if card.code_task is not None:
        locs += [("code_task", "starter"), ("code_task", "solution")]
    return locs


def python_problems(card: Card, doc: YamlDocument) -> list[Problem]:
    problems = []
    for loc in python_locations(card):
        node = doc.node_at(loc)
        # The node keeps the code exactly as written; the model's copy has been stripped,
        # which would shift line numbers.
        if isinstance(node, yaml.ScalarNode):
            problem = _compile_problem(doc, loc, node)
            if problem is not None:
                problems.append(problem)
    return problems


def _compile_problem(doc: YamlDocument, loc: Loc, node: yaml.ScalarNode) -> Problem | None:
    try:
        compile(node.value, describe_loc(loc), "exec", dont_inherit=True)
    except SyntaxError as error:
        code_line = error.lineno or 1
        offset = error.offset or 1
        if isinstance(error, IndentationError):  # its offset is not where the bad indentation is
            written = (node.value.splitlines() or [""])[code_line - 1]
            offset = len(written) - len(written.lstrip()) + 1
        line, column = doc.text_position(node, code_line - 1, offset)
        where = "" if node.style == "|" else f" (line {code_line} of the code)"
        # Naming the version tells an author why code that compiles on a newer Python fails here.
        return Problem(doc.path, line, column,
                       f"'{describe_loc(loc)}' is not valid Python {_PYTHON}: {error.msg}{where}",
                       "fix the code; write it as a literal block ('code: |') so problems point at the right line")
    except ValueError as error:  # null bytes, which only a double-quoted escape can produce
        return doc.problem(node, f"'{describe_loc(loc)}' is not valid Python: {error}", "remove the \\0 escape")
    return None
