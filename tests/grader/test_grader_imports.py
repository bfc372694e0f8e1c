"""The parent side of the grader never imports torch (the UI and CLI hold it cheaply)."""

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
def test_parent_side_modules_import_neither_torch_nor_textual(imported_after, module):
    assert imported_after(f"import {module}").of("torch", "textual") == []
