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

WALK_EVERY_SCREEN = textwrap.dedent(f"""
    import asyncio, sys
    sys.path.insert(0, {str(Path(__file__).parents[1])!r})
    from pilot_wait import until
    from app.ui.app import GrillApp

    async def walk():
        app = GrillApp()
        async with app.run_test(size=(120, 36)) as pilot:
            screens = []

            async def reach(name, *keys, keep=True):
                await pilot.press(*keys)
                await until(pilot, lambda: type(app.screen).__name__ == name)
                if keep:
                    screens.append(name)

            await reach("WelcomeDialog")
            await reach("HomeScreen", "enter")
            await until(pilot, lambda: app.library is not None)
            for key, name in (("f1", "HelpDialog"), ("o", "SettingsDialog"), ("s", "StatsScreen")):
                await reach(name, key)
                await reach("HomeScreen", "escape", keep=False)
            await reach("MockScreen", "m")
            app.pop_screen()
            await reach("HomeScreen", keep=False)
            app.practise([app.library.card("running-loss")])
            await reach("PracticeScreen")
            panel = await until(pilot, lambda: app.screen.code_panel)
            await pilot.press("ctrl+o")
            await app.workers.wait_for_complete()
            await pilot.press("ctrl+r")
            await until(pilot, lambda: panel.completed_runs or panel.query_one("#code-status").display)
            await reach("GiveUpDialog", "ctrl+s")  # the unchanged starter earns nothing
            await reach("SolutionDialog", "y")
            await reach("PracticeScreen", "escape", keep=False)
            await reach("SelfGradeDialog", "ctrl+g")
            await reach("PracticeScreen", "escape", keep=False)
            await pilot.press("escape")
            await until(pilot, lambda: type(app.screen).__name__ != "PracticeScreen")
            await reach("HomeScreen", *(["escape"] if type(app.screen).__name__ != "HomeScreen" else []))
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
        "GiveUpDialog",
        "SolutionDialog",
        "SelfGradeDialog",
        "HomeScreen",
    ]
    assert {"textual", "checkers.sandbox"} <= imported
    assert imported.of(*CHILD_SIDE) == []


WARM_START = textwrap.dedent(f"""
    import asyncio, sys
    sys.path.insert(0, {str(Path(__file__).parents[1])!r})
    from pilot_wait import until
    from app.ui.app import GrillApp

    async def start():
        app = GrillApp()
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: type(app.screen).__name__ in ("WelcomeDialog", "HomeScreen"))
            if type(app.screen).__name__ == "WelcomeDialog":  # the first start's
                await pilot.press("enter")
            await until(pilot, lambda: app.library is not None and app.screen.shown)
        print(len(app.library.cards))

    asyncio.run(start())
""")


def test_a_start_from_the_pack_cache_imports_neither_pydantic_nor_the_yaml_reader(
    tmp_path, imported_after
):
    """The card format (pydantic) and the YAML reader are for reading card files; a start whose
    files all hold in the pack cache reads none, so it imports neither: a tenth of a second."""
    env = {"GRILL_HOME": str(tmp_path), "GRILL_PACKS": str(FIXTURE_PACKS), "PATH": "/usr/bin:/bin"}
    cold = imported_after(WARM_START, env=env)
    assert {"pydantic", "yaml"} <= cold, "the first start reads the files and fills the cache"
    warm = imported_after(WARM_START, env=env)
    assert warm.output.split()[-1] == cold.output.split()[-1]
    assert warm.of("pydantic", "pydantic_core", "yaml", "questions.model") == []
