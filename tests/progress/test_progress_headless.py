"""The progress core and its commands stay headless: no Textual, no torch."""

from __future__ import annotations

import subprocess
import sys

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
def test_module_imports_neither_textual_nor_torch(module):
    probe = f"import {module}, sys; print(' '.join(sys.modules))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", probe], check=True, capture_output=True, text=True
        ).stdout.split()
    )
    assert "textual" not in loaded
    assert "torch" not in loaded
