"""The command line explains itself: --version, each argument of `grill new`, what `lint --run`
checks for each kind of pack, and the exit statuses of `grill check`."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pace import bound

from app.cli import build_parser, main


def help_of(*command: str) -> str:
    assert main([*command, "--help"]) == 0
    return ""


def test_version_prints_grills_version(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"grill {version('grill')}\n"


def test_lint_help_says_a_starter_fails_as_its_starter_fails_field_says(capsys):
    help_of("lint")
    text = " ".join(capsys.readouterr().out.split())
    assert "starter must leak" not in text
    assert "the starter must fail as its starter_fails says (leak, or wrong" in text


def test_new_help_describes_both_arguments(capsys):
    help_of("new")
    text = " ".join(capsys.readouterr().out.split())
    assert "PACK_DIR the pack's folder, made if missing" in text
    assert "CARD_ID the new card's id and file name" in text


@pytest.mark.parametrize(
    "code",
    ["0  clean", "1  leak, or wrong", "2  usage error", "3  not graded", "4  grill's own fault"],
)
def test_check_help_lists_every_exit_status(capsys, code):
    help_of("check")
    assert code in capsys.readouterr().out


def test_python_m_checkers_help_lists_them_too():
    done = subprocess.run(
        [sys.executable, "-m", "checkers", "--help"],
        capture_output=True,
        text=True,
        timeout=bound(2),
    )
    assert "4  grill's own fault" in done.stdout


def test_every_command_has_a_description():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    assert all(choice.description for choice in commands.choices.values())
