"""The progress core and its commands stay headless: no Textual, no torch."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "app.progress.history",
        "app.progress.stats",
        "app.progress.transfer",
        "app.progress.report",
        "app.commands.stats",
        "app.commands.export",
        "app.commands.import_",
    ],
)
def test_module_imports_neither_textual_nor_torch(imported_after, module):
    assert imported_after(f"import {module}").of("textual", "torch") == []
