"""Opening the app and each of its screens imports neither torch nor the sandbox child's code.

Runs in a fresh interpreter, so imports made by other tests cannot hide a violation. The real
SandboxGrader is used: opening a code task starts the warm worker, which is a separate process;
only its parent side may be imported here.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

FIXTURE_PACKS = Path(__file__).parent / "fixtures" / "packs"
CHILD_SIDE = (
    "torch",
    "RestrictedPython",
    "checkers.policy",
    "checkers.policy.guards",
    "checkers.policy.identity",
    "checkers.policy.tables",
    "checkers.measure.grade",
    "checkers.measure.ledger",
    "checkers.measure.instrument",
    "checkers.measure.retained",
    "checkers.measure.fingerprint",
    "checkers.sandbox.worker",
    "checkers.sandbox.child",
)
"""What only the sandbox child loads (the grader's judge and report are pure and the parent's)."""

WALK_EVERY_SCREEN = textwrap.dedent("""
    import asyncio
    from pathlib import Path
    from app.ui.app import GrillApp

    async def walk():
        app = GrillApp()
        async with app.run_test(size=(120, 36)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            screens = [type(app.screen).__name__]
            await pilot.press("enter")
            screens.append(type(app.screen).__name__)
            await pilot.press("f1")
            screens.append(type(app.screen).__name__)
            await pilot.press("escape", "o")
            screens.append(type(app.screen).__name__)
            await pilot.press("escape", "s")
            screens.append(type(app.screen).__name__)
            await pilot.press("escape", "m")
            screens.append(type(app.screen).__name__)
            app.pop_screen()
            await pilot.pause()
            app.practise([app.library.card("running-loss")])
            await pilot.pause()
            await pilot.press("ctrl+o")
            await pilot.pause()
            await app.workers.wait_for_complete()
            screens.append(type(app.screen).__name__)
            await pilot.press("ctrl+r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("ctrl+s")
            screens.append(type(app.screen).__name__)
            await pilot.press("escape", "ctrl+g")
            screens.append(type(app.screen).__name__)
            await pilot.press("escape", "escape", "escape")
            await pilot.pause()
            screens.append(type(app.screen).__name__)
        print(" ".join(screens))

    asyncio.run(walk())
""")


def test_walking_every_screen_keeps_torch_and_the_sandbox_child_out(tmp_path, imported_after):
    env = {"GRILL_HOME": str(tmp_path), "GRILL_PACKS": str(FIXTURE_PACKS), "PATH": "/usr/bin:/bin"}
    imported = imported_after(WALK_EVERY_SCREEN, env=env)
    assert imported.output.splitlines()[-1].split() == [
        "WelcomeDialog",
        "HomeScreen",
        "HelpDialog",
        "SettingsDialog",
        "StatsScreen",
        "MockScreen",
        "PracticeScreen",
        "SolutionDialog",
        "SelfGradeDialog",
        "HomeScreen",
    ]
    assert {"textual", "checkers.sandbox"} <= imported
    assert imported.of(*CHILD_SIDE) == []
