"""Check that a card's Python (examples and code task) compiles, pointing at the bad line in the
file, and that the values its contract compares are ones the solution binds."""

from __future__ import annotations

import ast
import difflib
import sys
from collections.abc import Mapping

import yaml

from questions.library import Problem
from questions.yamldoc import STR_TAG, Loc, YamlDocument, describe_loc

PYTHON_NAMES = frozenset({"python", "py", "python3"})
_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
"""Cards are compiled by the Python grill runs on, which is also the one that grades code tasks."""


def python_locations(data: Mapping[str, object]) -> list[Loc]:
    """Where a card holds Python: examples marked as Python, and the task's starter and solution.

    Read from the document as written rather than from the validated card, so code is checked
    even when other fields are wrong: every problem of a file is reported in one pass.
    """
    examples = data.get("examples")
    locs: list[Loc] = []
    for index, example in enumerate(examples if isinstance(examples, list) else []):
        language = example.get("language") if isinstance(example, dict) else None
        if isinstance(language, str) and language.strip().lower() in PYTHON_NAMES:
            locs.append(("examples", index, "code"))
    task = data.get("code_task")
    if isinstance(task, dict):
        locs += [("code_task", part) for part in ("starter", "solution") if part in task]
    return locs


def python_problems(doc: YamlDocument) -> list[Problem]:
    problems = []
    for loc in python_locations(doc.data):
        node = doc.node_at(loc)
        # The node keeps the code exactly as written; the model's copy has been stripped,
        # which would shift line numbers. Text that is not text is the model's to report.
        if isinstance(node, yaml.ScalarNode) and node.tag == STR_TAG:
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
        return Problem(
            doc.path,
            line,
            column,
            f"'{describe_loc(loc)}' is not valid Python {_PYTHON}: {error.msg}{where}",
            "fix the code; write it as a literal block ('code: |') so problems point at the right line",
        )
    except ValueError as error:  # null bytes, which only a double-quoted escape can produce
        return doc.problem(
            node, f"'{describe_loc(loc)}' is not valid Python: {error}", "remove the \\0 escape"
        )
    except (
        MemoryError,
        RecursionError,
    ):  # Python's parser and compiler give up on deep nesting this way
        return doc.problem(
            node,
            f"'{describe_loc(loc)}' is nested too deeply for Python {_PYTHON} to compile",
            "split the deepest expression into steps with names",
        )
    return None


def contract_problems(doc: YamlDocument) -> list[Problem]:
    """Each value a code task's contract compares must be one the solution can leave behind: a
    name it never binds (a typo such as `emaa` for `ema`) makes its own solution grade wrong.
    Read from the AST, so only a name bound nowhere is reported; a solution that binds names
    by other means (`globals()`, `exec`, `setattr`) is not judged."""
    task = doc.data.get("code_task")
    if not isinstance(task, dict) or not isinstance(task.get("solution"), str):
        return []
    contract = task.get("contract")
    compared = contract.get("same_as_solution") if isinstance(contract, dict) else None
    if not isinstance(compared, list):
        return []
    bound = _bound_names(task["solution"])
    if not bound:  # not judged, or a placeholder (`grill new`'s comment) that binds nothing yet
        return []
    problems = []
    for index, entry in enumerate(compared):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name in bound:
            continue
        closest = difflib.get_close_matches(name, sorted(bound), n=1)
        loc: Loc = ("code_task", "contract", "same_as_solution", index, "name")
        problems.append(
            doc.problem(
                doc.node_at(loc),
                f"'{describe_loc(loc)}' compares `{name}`, which the solution never assigns:"
                " its own solution would grade wrong",
                (f"did you mean `{closest[0]}`? " if closest else "")
                + "name a value the solution leaves at module level",
            )
        )
    return problems


DYNAMIC_BINDERS = frozenset({"globals", "exec", "setattr", "vars", "locals", "__dict__"})
"""Ways code binds names the AST does not show."""


def _bound_names(source: str) -> set[str] | None:
    """Every name `source` binds anywhere (an over-estimate of what it leaves at module level),
    or None when it does not compile or binds names in ways the AST does not show."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in DYNAMIC_BINDERS:
                return None
            if isinstance(node.ctx, ast.Store):
                bound.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in DYNAMIC_BINDERS:
            return None
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
    return bound
