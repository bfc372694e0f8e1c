"""The UI process never imports torch, and the headless core never imports Textual."""

import pytest


def test_help_imports_neither_torch_nor_textual(imported_after):
    modules = imported_after(
        "import contextlib, io\nfrom app.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])"
    )
    assert modules.of("torch", "textual") == []


@pytest.mark.parametrize("module", ["questions.model", "checkers.verdict", "checkers.cli"])
def test_headless_modules_do_not_import_textual_or_torch(imported_after, module):
    assert imported_after(f"import {module}").of("textual", "torch") == []


def test_the_input_checks_import_no_library(imported_after):
    """`checkers.inputs` is shared by every package and by `grill --help`'s parser."""
    assert imported_after("import checkers.inputs").of("torch", "pydantic", "textual", "yaml") == []
