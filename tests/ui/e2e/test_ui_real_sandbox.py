"""With the real sandbox: an endless snippet leaves the UI responsive and cancel kills its child,
and the app's runner keeps one warm worker across the threads it runs in.

Slow: starts the warm worker (imports torch in the sandbox) once for the module.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pilot_wait import until, until_screen
from textual.widgets import TextArea
from ui_fakes import SIZE

from app.ui.app import GrillApp
from app.ui.code_runner import SandboxRunner
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.code_task import CodeTaskPanel
from app.ui.widgets.reveal import RevealSection

ENDLESS_STEP = """\
import torch
model = torch.nn.Linear(4, 1)
for step in range(100):
    loss = model(torch.randn(8, 4)).sum()
    loss.backward()
    while True:
        pass
"""


def descendants(pid: int) -> set[int]:
    """Every live process below `pid`, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


async def test_endless_snippet_keeps_the_ui_responsive_and_cancel_kills_the_child(
    library, history, clock
):
    before = descendants(os.getpid())  # workers other tests in this process keep warm
    app = GrillApp(library, history, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        app.practise([library.card("running-loss")])
        screen = await until_screen(pilot, PracticeScreen)
        panel = await until(pilot, lambda: screen.query_one(CodeTaskPanel))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: app.focused is panel.editor)
        await until(
            pilot,
            lambda: not any(w.group == "warm" and w.is_running for w in app.workers),
            timeout=180,
        )
        warm_processes = descendants(os.getpid()) - before
        assert warm_processes, "the warm worker runs as a child process"

        panel.editor.load_text(ENDLESS_STEP)
        await pilot.press("ctrl+r")
        await until(
            pilot,
            lambda: len(descendants(os.getpid()) - warm_processes - before) > 0,
            timeout=60,
        )
        run_child = descendants(os.getpid()) - warm_processes - before

        await pilot.press("ctrl+o")
        answer = screen.query_one("#practice-answer", TextArea)
        await until(pilot, lambda: app.focused is answer)
        await pilot.press(*"still typing")
        await until(pilot, lambda: answer.text == "still typing")
        await pilot.press("ctrl+n")
        await until(pilot, lambda: len(screen.query(RevealSection)) == 1)
        assert panel.running

        await pilot.press("escape")
        await until(pilot, lambda: not panel.running)
        await until(pilot, lambda: not (descendants(os.getpid()) & run_child), timeout=5)

        panel.editor.load_text(library.card("running-loss").card.code_task.starter)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.verdict is not None, timeout=120)
        assert panel.verdict.verdict == "leak"
        assert [item.path for item in panel.verdict.retained] == ["running"]
    assert not descendants(os.getpid()) - before, "closing the app closes the sandbox"


def test_the_apps_runner_keeps_one_warm_worker_across_the_threads_it_runs_in(library):
    """The app warms the sandbox and grades in worker threads that end: each later run must
    reuse the warm worker (a worker that died with the thread that started it made every
    ctrl+r pay a fresh start)."""
    task = library.card("running-loss").card.code_task
    runner = SandboxRunner()

    def in_a_thread(action) -> None:
        thread = threading.Thread(target=action)
        thread.start()
        thread.join()

    try:
        in_a_thread(lambda: runner.warm("cpu"))
        workers, verdicts = [], []
        for _ in range(2):
            in_a_thread(lambda: verdicts.append(runner.grade(task, task.solution, device="cpu")))
            workers.append(runner._sandbox._process.pid)
        assert [v.verdict for v in verdicts] == ["clean", "clean"]
        assert workers[0] == workers[1] is not None
    finally:
        runner.close()
