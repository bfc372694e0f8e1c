"""The parent side of the grader never imports torch (the UI and CLI hold it cheaply)."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "checkers",
        "checkers.api",
        "checkers.report",
        "checkers.judge",
        "checkers.growth",
        "checkers.contract",
        "checkers.source",
        "checkers.curve",
        "checkers.cli",
        "checkers.__main__",
    ],
)
def test_parent_side_modules_import_neither_torch_nor_textual(module):
    probe = f"import {module}, sys; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    loaded = set(out.stdout.split())
    assert "torch" not in loaded
    assert "textual" not in loaded
