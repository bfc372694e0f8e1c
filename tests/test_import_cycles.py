"""No import cycle in any of grill's packages, counting imports deferred into function bodies.

A static scan of every module's AST: `import a.b` is an arrow to `a.b`, and `from x import y`
an arrow to `x.y` when that is a module, else to `x`. Imports anywhere count (a function body's
import runs as surely as a top-level one, only later), except those under `if TYPE_CHECKING:`,
which never run. import-linter checks the layers between packages; this checks that within
them no module needs, however late, a module that needs it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "checkers", "questions")

Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name (a package is its `__init__.py`)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import below `node`, in function bodies too, leaving out `if TYPE_CHECKING:` blocks
    (their `else:` still runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _imports_in(other)
            continue
        yield from _imports_in(child)


def _imports_in(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _imports(node)


def _base(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a `from ... import` names, with relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def import_graph() -> Graph:
    modules = module_files()
    graph: Graph = {module: set() for module in modules}
    for module, path in modules.items():
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(module, path, node)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            graph[module] |= {target for target in targets if target in modules}
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected component that has one (Tarjan), as a closed path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the number of modules
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_through(graph, component) for component in components]


def _cycle_through(graph: Graph, component: set[str]) -> list[str]:
    """The shortest path from the component's first module back to itself, inside it."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & component):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{sorted(component)} is not a cycle")


def test_the_scan_finds_a_cycle_through_a_function_body_and_skips_type_checking(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["e", "e"]]
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import hidden\n"
        "def later():\n    import deferred\n"
    )
    names = [alias.name for node in _imports(ast.parse(source)) for alias in node.names]
    assert names == ["TYPE_CHECKING", "deferred"]


@pytest.mark.parametrize("package", ["app", "checkers", "questions"])
def test_no_import_cycle(package):
    found = [
        cycle
        for cycle in cycles(import_graph())
        if any(module.partition(".")[0] == package for module in cycle)
    ]
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)
