"""`make test-fast` (pytest -m "not slow", the rule in tests/edit_loop.py) keeps the first test
of each test file but those below an e2e/ folder, and with them every module of grill: each is
imported, directly or through what it imports, by a file whose first test the edit loop runs.
`make test` runs the rest."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path, PurePath

import grimp
import pytest
from edit_loop import WHOLE_PROGRAMS, in_edit_loop

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
PACKAGES = ("app", "checkers", "questions")
DATA_FOLDERS = {"corpus", "benign", "realcode", "jobs", "fixtures", "__snapshots__"}
"""Folders below tests/ of files the tests read or run as data, not tests."""
MODULE_NAME = re.compile(rf"\b(?:{'|'.join(PACKAGES)})(?:\.\w+)+")
"""A module named in a string: `"app.commands.stats:run"`, `"from checkers.sandbox.worker
import main"`, `[sys.executable, "-m", "app.cli"]`: the imports made by name or by another
process, which `import` statements do not show."""


def test_the_first_test_of_a_file_is_in_the_edit_loop(request):
    assert request.node.get_closest_marker("slow") is None


def test_the_files_other_tests_are_left_to_the_whole_suite(request):
    assert request.node.get_closest_marker("slow") is not None


def test_a_file_below_an_e2e_folder_is_left_whole_to_the_whole_suite():
    paths = ["e2e/test_a.py", "e2e/test_a.py", "ui/e2e/test_b.py", "ui/test_c.py", "test_d.py"]
    assert in_edit_loop(map(PurePath, paths)) == [False, False, False, True, True]


def test_every_file_collected_has_a_test_in_the_edit_loop_but_those_below_e2e(request):
    """Over the tests this run collected (the whole suite's in `make test`), as pytest marked
    them for -m "not slow" to select."""
    kept: dict[Path, bool] = defaultdict(bool)
    for item in request.session.items:
        kept[item.path] |= item.get_closest_marker("slow") is None
    end_to_end = {path for path in kept if WHOLE_PROGRAMS in path.relative_to(TESTS).parts[:-1]}
    assert {path for path in kept if kept[path]} == set(kept) - end_to_end


@dataclass(frozen=True)
class Reach:
    modules: frozenset[str]
    """Every module of grill."""
    named: frozenset[str]
    """The modules the files the edit loop runs name themselves."""
    imported: frozenset[str]
    """Those and every module they import, directly or through others, or name in a string."""


@pytest.fixture(scope="module")
def reach() -> Reach:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    for module in graph.modules:
        for named in names_in(module_file(module), graph.modules) - {module}:
            graph.add_import(importer=module, imported=named)
    named = set(grills_pytest_plugin())
    for test_file in suite_files():
        if in_edit_loop([test_file.relative_to(TESTS)]) == [True]:
            named |= read_by(test_file, graph.modules)
    imported = named | {up for module in named for up in graph.find_upstream_modules(module)}
    imported |= {parent for module in imported for parent in parents(module)}
    return Reach(frozenset(graph.modules), frozenset(named), frozenset(imported))


def test_every_package_of_grill_has_a_module_the_edit_loops_tests_name_themselves(reach):
    packages = {module for module in reach.modules if module_file(module).name == "__init__.py"}
    named = {module.rpartition(".")[0] for module in reach.named} | reach.named
    assert sorted(packages - named) == []


def test_every_module_of_grill_is_imported_by_a_file_the_edit_loop_runs(reach):
    assert sorted(reach.modules - reach.imported) == []


def suite_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("test_*.py")):
        if not DATA_FOLDERS.intersection(path.relative_to(TESTS).parts):
            yield path


def read_by(test_file: Path, modules: set[str]) -> set[str]:
    """grill's modules a test file names, with the tests' helper modules it imports and the
    conftest.py files pytest loads for it."""
    helpers = {path.stem: path for path in TESTS.rglob("*.py") if not path.stem.startswith("test_")}
    conftests = [
        folder / "conftest.py"
        for folder in (test_file.parent, *test_file.parent.parents)
        if folder.is_relative_to(TESTS) and (folder / "conftest.py").exists()
    ]
    read, found = set(), set()
    pending = [test_file, *conftests]
    while pending:
        path = pending.pop()
        if path in read:
            continue
        read.add(path)
        named = names_in(path, modules | set(helpers))
        pending += [helpers[name] for name in named if name in helpers]
        found |= named & modules
    return found


def names_in(path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` a file imports (at any depth: in a function too) or names in a
    string; `-m PACKAGE` names the package's __main__."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found |= set(MODULE_NAME.findall(node.value))
        elif isinstance(node, (ast.List, ast.Tuple)):
            words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            found |= {f"{b}.__main__" for a, b in pairwise(words) if a == "-m"}
    return found & modules


def module_file(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def parents(module: str) -> Iterator[str]:
    parts = module.split(".")
    return (".".join(parts[:end]) for end in range(1, len(parts)))


def grills_pytest_plugin() -> list[str]:
    """grill's pytest plugin, which every pytest process loads (`pytest11`)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["entry-points"]["pytest11"].values())
