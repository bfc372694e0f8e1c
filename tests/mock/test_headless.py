"""The mock logic is headless: importing it pulls in neither Textual nor torch."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["app.mock.draw", "app.mock.match", "app.mock.session",
                                    "app.mock.score", "app.mock.report", "app.mock.record"])
def test_mock_logic_imports_neither_textual_nor_torch(module):
    probe = f"import {module}, sys; print(' '.join(sys.modules))"
    loaded = set(subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                                text=True).stdout.split())
    assert "textual" not in loaded
    assert "torch" not in loaded
