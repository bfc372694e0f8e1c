"""`make check` bites: each of its tools passes on a copy of the tree and fails once one
violation of its kind is planted in that copy (so a tool that checks nothing, or a contract that
names the wrong module, shows here)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def tool(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (make setup installs the dev extra)")
    return subprocess.run(
        [str(path), *args],
        cwd=cwd,
        env={"PATH": str(BIN), "PYTHONPATH": str(cwd), "HOME": str(cwd)},
        capture_output=True,
        text=True,
        timeout=bound(10),  # the slowest, vulture over the tree and its tests: about 4 s quiet
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The three packages and the configuration, copied."""
    for name in ("app", "checkers", "questions"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def plant(tree: Path, relative: str, text: str) -> None:
    path = tree / relative
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def mypy(planted: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """mypy on the planted file alone. It imports nothing, but its package's `__init__` does:
    following those imports would analyse all of torch (25 s) to check four lines."""
    return tool("mypy", "--follow-imports=skip", planted, cwd=cwd)


# A name nothing else in the tree uses: vulture counts a name as used wherever it appears
# (`torch.double` in a fact test made `double` used).
CLEAN = 'def planted_twice(x: int) -> int:\n    """Twice `x`."""\n    return 2 * x\n'


def test_ruff_format_fails_on_code_it_would_reformat(tree):
    (tree / "checkers" / "planted.py").write_text(CLEAN)
    assert tool("ruff", "format", "--check", ".", cwd=tree).returncode == 0
    (tree / "checkers" / "planted.py").write_text(CLEAN.replace("2 * x", "2*x"))
    failed = tool("ruff", "format", "--check", ".", cwd=tree)
    assert failed.returncode == 1
    assert "checkers/planted.py" in failed.stdout


def test_ruff_check_fails_on_an_unused_import(tree):
    (tree / "questions" / "planted.py").write_text(CLEAN)
    assert tool("ruff", "check", ".", cwd=tree).returncode == 0
    (tree / "questions" / "planted.py").write_text("import os\n\n\n" + CLEAN)
    failed = tool("ruff", "check", ".", cwd=tree)
    assert failed.returncode == 1
    assert "F401" in failed.stdout


@pytest.mark.parametrize("package", ["checkers", "questions"])
def test_mypy_is_strict_in_the_grader_and_the_card_model(tree, package):
    planted = f"{package}/planted.py"
    (tree / planted).write_text(CLEAN)
    assert mypy(planted, tree).returncode == 0
    (tree / planted).write_text(CLEAN.replace("(x: int) -> int", "(x)"))
    failed = mypy(planted, tree)
    assert failed.returncode == 1
    assert "[no-untyped-def]" in failed.stdout


def test_mypy_catches_a_wrong_type_in_the_app_where_it_is_not_strict(tree):
    (tree / "app" / "planted.py").write_text(CLEAN.replace("(x: int) -> int", "(x)"))
    assert mypy("app/planted.py", tree).returncode == 0  # untyped is allowed here
    (tree / "app" / "planted.py").write_text(CLEAN.replace("2 * x", '"2"'))
    failed = mypy("app/planted.py", tree)
    assert failed.returncode == 1
    assert "[return-value]" in failed.stdout


# Each contract in pyproject.toml, and one import that breaks it.
BREAKS = {
    "The grader stands alone": ("checkers/verdict.py", "import questions.model"),
    "The grader's layers": ("checkers/judge/curve.py", "import checkers.api"),
    "The grader's shared value types": ("checkers/task.py", "import checkers.policy.tables"),
    "Judging runs in the parent": ("checkers/judge/growth.py", "import torch"),
    "The sandbox runs jobs by name": (
        "checkers/sandbox/limits.py",
        "import checkers.measure.memory",
    ),
    "The policy knows nothing of the grader": (
        "checkers/policy/tables.py",
        "import checkers.verdict",
    ),
    "Cards know nothing of the app": ("questions/levels.py", "import textual"),
    "Progress, mock and practice logic are pure": ("app/mock/draw.py", "import app.ui.settings"),
    "The shared leaves stay leaves": ("app/wording.py", "import app.progress.stats"),
    "The UI is a layer over the logic": ("app/ui/settings.py", "import app.commands.stats"),
    "The app process never imports torch": ("app/progress/stats.py", "import torch"),
}


def contract_states(output: str) -> dict[str, str]:
    """Contract name prefix -> KEPT or BROKEN, from lint-imports' summary (which wraps lines)."""
    flat = " ".join(output.split())
    return {
        name: match.group(1)
        for name in BREAKS
        if (match := re.search(re.escape(name) + r".*? (KEPT|BROKEN)", flat))
    }


def test_every_layer_contract_is_kept_by_the_tree_and_broken_by_its_planted_import(tree):
    kept = tool("lint-imports", cwd=tree)
    assert kept.returncode == 0, kept.stdout
    assert contract_states(kept.stdout) == dict.fromkeys(BREAKS, "KEPT")
    for relative, line in BREAKS.values():
        plant(tree, relative, f"\n{line}  # planted\n")
    broken = tool("lint-imports", cwd=tree)
    assert broken.returncode == 1
    assert contract_states(broken.stdout) == dict.fromkeys(BREAKS, "BROKEN")


def test_vulture_fails_on_a_function_nothing_calls(tree):
    """Dead code is found across the packages and the tests, the whitelist keeping only what a
    framework calls by name."""
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "vulture_whitelist.py", tree)
    (tree / "app" / "planted.py").write_text(CLEAN + "\n\nprint(planted_twice(2))\n")
    assert tool("vulture", cwd=tree).returncode == 0, "the tree as it is has no dead code"
    (tree / "app" / "planted.py").write_text(CLEAN)
    failed = tool("vulture", cwd=tree)
    assert failed.returncode == 3
    assert "app/planted.py:1: unused function 'planted_twice'" in failed.stdout
