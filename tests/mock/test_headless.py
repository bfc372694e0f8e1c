"""The mock, practice and progress logic is headless: importing it pulls in neither Textual nor
torch, nor the UI; and the UI reaches the mock's setup directly, never through the command
line's module."""

from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "app.mock.draw",
        "app.mock.match",
        "app.mock.session",
        "app.mock.setup",
        "app.mock.score",
        "app.mock.report",
        "app.mock.record",
        "app.practice.catalog",
        "app.practice.review",
        "app.progress.outlook",
        "app.progress.preview",
        "app.progress.rating",
    ],
)
def test_mock_practice_and_progress_logic_import_neither_textual_nor_torch_nor_the_ui(
    imported_after, module
):
    assert imported_after(f"import {module}").of("textual", "torch", "app.ui") == []


def test_the_ui_does_not_import_the_command_line(imported_after):
    """The app starts a mock through app.mock.setup, not by building an argparse.Namespace for
    `grill mock`'s own module."""
    loaded = imported_after(
        "import app.ui.app, app.ui.screens.home, app.ui.screens.mock, "
        "app.ui.screens.mock_interviewer, app.ui.screens.practice, app.ui.screens.stats"
    )
    assert loaded.of("app.commands") == []
    sources = Path(__file__).resolve().parents[2].joinpath("app", "ui").rglob("*.py")
    assert [path.name for path in sources if "app.commands" in path.read_text()] == [], (
        "not even lazily"
    )
