"""The docs' key tables say exactly what the bindings do: same keys, same names, every screen.

The tables live in docs/app.md (home, practice, statistics...) and docs/mocks.md (the mock's
screens). Each table headed `| key | on <place> |` documents one screen's bindings: its first
column lists the keys (`ctrl+n`, or `enter`, `y` for one command on two keys), its second starts
with the command's name as the footer shows it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from test_ui_help import screen_classes
from textual.binding import Binding

from app.ui.app import GrillApp
from app.ui.dialogs.card_actions import CardActionsDialog
from app.ui.dialogs.confirm import ConfirmDialog, GiveUpDialog, LeaveCardDialog
from app.ui.dialogs.help import HelpDialog
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.dialogs.settings import SettingsDialog
from app.ui.dialogs.solution import SolutionDialog
from app.ui.dialogs.welcome import WelcomeDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.mock import MockScreen, MockStepsScreen
from app.ui.screens.mock_interviewer import MockInterviewerScreen
from app.ui.screens.mock_report import MockReportScreen
from app.ui.screens.mock_review import MockReviewScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.screens.stats import StatsScreen

DOCS = Path(__file__).resolve().parents[2] / "docs"
KEY_PAGES = (DOCS / "app.md", DOCS / "mocks.md")
"""The pages whose `| key | ... |` tables document the bindings."""
DOCUMENTED = {
    "on every screen": GrillApp,
    "in help": HelpDialog,
    "on the first-run screen": WelcomeDialog,
    "on home": HomeScreen,
    "on a card": PracticeScreen,
    "in the self-grade": SelfGradeDialog,
    "on the solution": SolutionDialog,
    "when asking for the solution early": GiveUpDialog,
    "when leaving a card": LeaveCardDialog,
    "when moving on without a rating": CardActionsDialog,
    "on statistics": StatsScreen,
    "in settings": SettingsDialog,
    "on a mock step": MockStepsScreen,
    "when ending a mock early": ConfirmDialog,
    "on the review": MockReviewScreen,
    "on the report": MockReportScreen,
}
SAME_KEYS_AS = {MockScreen: MockStepsScreen, MockInterviewerScreen: MockStepsScreen}
"""Screens whose keys are those of another documented screen."""
KEY_NAMES = {"escape": "esc", "slash": "/", "question_mark": "?"}


def documented_tables() -> dict[str, dict[str, set[str]]]:
    """Per place, each command's name and the keys the docs give it."""
    tables: dict[str, dict[str, set[str]]] = {}
    lines = [line for page in KEY_PAGES for line in ["", *page.read_text("utf-8").splitlines()]]
    current: dict[str, set[str]] | None = None
    for line in lines:
        header = re.fullmatch(r"\| key \| ((?:on|in|when) .+) \|", line)
        if header:
            current = tables.setdefault(header.group(1), defaultdict(set))
            continue
        if current is None or not line.startswith("|"):
            current = None
            continue
        keys, text = (cell.strip() for cell in line.strip("|").split("|", 1))
        if keys == "---":
            continue
        name = re.split(r":| \(", text, maxsplit=1)[0].strip()
        current[name] |= set(re.findall(r"`([^`]+)`", keys))
    return tables


def bound(screen: type) -> dict[str, set[str]]:
    """Per command name, the keys of the screen's own bindings and its grill base classes'
    (Textual's own keys, such as tab, are not grill's to document)."""
    commands: dict[str, set[str]] = defaultdict(set)
    for cls in reversed(screen.__mro__):
        if not cls.__module__.startswith("app."):
            continue
        for binding in vars(cls).get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.description:
                commands[binding.description] |= {
                    KEY_NAMES.get(k.strip(), k.strip()) for k in binding.key.split(",")
                }
    return commands


@pytest.mark.parametrize("place", list(DOCUMENTED))
def test_each_key_table_matches_the_bindings(place):
    assert dict(documented_tables()[place]) == dict(bound(DOCUMENTED[place]))


def test_every_screen_with_keys_has_a_table():
    documented = set(DOCUMENTED.values()) | set(SAME_KEYS_AS)
    assert [cls.__name__ for cls in screen_classes() if bound(cls) and cls not in documented] == []
    assert all(bound(cls) == bound(same) for cls, same in SAME_KEYS_AS.items())
