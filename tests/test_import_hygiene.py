"""The UI process never imports torch, and the headless core never imports Textual.

Each check runs in a fresh interpreter so earlier imports in the test session cannot hide
a violation.
"""

import subprocess
import sys

import pytest


def imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return set(out.stdout.split())


def test_help_imports_neither_torch_nor_textual():
    modules = imported_after(
        "import contextlib, io\nfrom app.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])"
    )
    assert "torch" not in modules
    assert "textual" not in modules


@pytest.mark.parametrize("module", ["questions.model", "checkers.verdict", "checkers.cli"])
def test_headless_modules_do_not_import_textual_or_torch(module):
    modules = imported_after(f"import {module}")
    assert "textual" not in modules
    assert "torch" not in modules
