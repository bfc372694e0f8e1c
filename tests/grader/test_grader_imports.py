"""The parent side of the grader never imports torch (the UI and CLI hold it cheaply)."""

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "checkers",
        "checkers.api",
        "checkers.report",
        "checkers.judge",
        "checkers.judge.growth",
        "checkers.judge.contract",
        "checkers.judge.source",
        "checkers.judge.curve",
        "checkers.cli",
        "checkers.__main__",
    ],
)
def test_parent_side_modules_import_neither_torch_nor_textual(imported_after, module):
    assert imported_after(f"import {module}").of("torch", "textual") == []


def test_the_package_offers_its_public_api_by_name_without_importing_torch(imported_after):
    """`checkers.grade_source` and the rest, each loaded on first use: naming them all pulls in
    the parent side only (torch comes with `assert_no_graph_leak`, which runs in process)."""
    probe = (
        "import checkers\n"
        "for name in checkers.__all__:\n"
        "    if name != 'assert_no_graph_leak':\n"
        "        assert getattr(checkers, name) is not None, name\n"
    )
    assert imported_after(probe).of("torch", "textual") == []


def test_every_public_name_resolves_to_the_object_its_module_defines():
    import checkers
    from checkers import api, sandbox, task, testing, verdict

    homes = {api, sandbox, task, testing, verdict}
    for name in checkers.__all__:
        assert any(getattr(home, name, None) is getattr(checkers, name) for home in homes), name
