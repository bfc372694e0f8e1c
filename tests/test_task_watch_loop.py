"""`grill task watch`'s loop on a real file, with a stand-in for the grader: each save is graded
once, a save during a run cancels it, an unusable save says why and the next good one grades.
(The real command, sandbox and all, is tests/e2e/test_task_watch.py.)"""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path

import pytest

from app.practice import watch as watching
from app.practice.watch import Graded, Grading, Unusable, Watch
from checkers.verdict import Verdict

WAIT_S = 20.0


class Grader:
    """Grades `x = N` as clean; with `hold`, each grade waits until released or cancelled."""

    def __init__(self, hold: bool = False) -> None:
        self.hold = hold
        self.graded: list[str] = []
        self.cancels = 0
        self.started = threading.Event()
        self._release = threading.Event()

    def grade(self, source: str) -> Verdict:
        self.graded.append(source)
        self.started.set()
        if self.hold:
            self._release.wait(WAIT_S)
            self._release.clear()
        return Verdict(verdict="clean", device="cpu", message=source.strip())

    def cancel(self) -> None:
        self.cancels += 1
        self._release.set()

    def release(self) -> None:
        self._release.set()


class Running:
    def __init__(self, path: Path, grader: Grader) -> None:
        self.events: queue.Queue = queue.Queue()
        self.watch = Watch(path, grader.grade, grader.cancel, self.events.put, poll_s=0.01)
        self.thread = threading.Thread(target=self.watch.run, daemon=True)
        self.thread.start()

    def next(self, kind: type, *, skipping: tuple[type, ...] = (Grading,)):
        """The next event of `kind`, passing over those of `skipping`; fails on any other."""
        while True:
            event = self.events.get(timeout=WAIT_S)
            if isinstance(event, kind):
                return event
            assert isinstance(event, skipping), event

    def stop(self) -> None:
        self.watch.stop.set()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive()


@pytest.fixture
def fix(tmp_path) -> Path:
    path = tmp_path / "fix.py"
    path.write_text("x = 1\n")
    return path


@pytest.fixture
def running():
    started: list[Running] = []

    def start(path: Path, grader: Grader) -> Running:
        started.append(Running(path, grader))
        return started[-1]

    yield start
    for one in started:
        one.stop()


def save(path: Path, text: str) -> None:
    """As vim and VS Code save: a new file renamed over the old one."""
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def test_the_file_is_graded_at_start_and_again_after_each_save(fix, running):
    grader = Grader()
    watch = running(fix, grader)
    assert watch.next(Graded).source == "x = 1\n"
    save(fix, "x = 2\n")
    assert watch.next(Graded).source == "x = 2\n"
    fix.write_text("x = 3\n")  # saved in place
    assert watch.next(Graded).source == "x = 3\n"
    assert grader.graded == ["x = 1\n", "x = 2\n", "x = 3\n"]


def test_a_save_that_changes_nothing_grades_nothing(fix, running):
    grader = Grader()
    watch = running(fix, grader)
    watch.next(Graded)
    save(fix, "x = 1\n")  # the same text again: a new inode, the same code
    save(fix, "x = 4\n")
    assert watch.next(Graded).source == "x = 4\n"
    assert grader.graded == ["x = 1\n", "x = 4\n"]


def test_a_save_that_cannot_be_graded_says_why_and_the_next_one_grades(fix, running):
    grader = Grader()
    watch = running(fix, grader)
    watch.next(Graded)
    save(fix, "for i in range(3)\n    pass\n")
    assert "does not parse" in watch.next(Unusable).message
    save(fix, "")
    assert "is empty" in watch.next(Unusable).message
    save(fix, "x = 5\n")
    assert watch.next(Graded).source == "x = 5\n"


def test_a_save_during_a_run_cancels_it_and_only_the_new_code_gets_a_verdict(fix, running):
    grader = Grader(hold=True)
    watch = running(fix, grader)
    assert not watch.next(Grading).again
    assert grader.started.wait(WAIT_S)
    grader.started.clear()
    save(fix, "x = 6\n")
    again = watch.next(Grading)
    assert again.again and grader.cancels == 1
    assert grader.started.wait(WAIT_S)
    grader.release()
    graded = watch.next(Graded, skipping=())
    assert graded.source == "x = 6\n", "the cancelled run's verdict was for code that is gone"


def test_a_file_gone_for_a_while_is_reported_and_graded_when_it_is_back(fix, running, monkeypatch):
    monkeypatch.setattr(watching, "GONE_AFTER_S", 0.05)
    watch = running(fix, Grader())
    watch.next(Graded)
    fix.unlink()
    assert "no such file" in watch.next(Unusable).message
    fix.write_text("x = 7\n")
    assert watch.next(Graded).source == "x = 7\n"


def test_a_run_of_the_newest_code_cancelled_by_a_late_cancel_is_run_again(fix, running):
    """A cancel sent as the stale run ended can reach the next one: that one is graded again."""
    grader = Grader()
    answers = [Verdict.not_graded("error", "cpu", "the run was cancelled", kind="cancelled")]

    def grade(source: str) -> Verdict:
        grader.graded.append(source)
        return answers.pop() if answers else Verdict(verdict="clean", device="cpu")

    grader.grade = grade  # type: ignore[method-assign]
    watch = running(fix, grader)
    assert watch.next(Graded).verdict.verdict == "clean"
    assert grader.graded == ["x = 1\n", "x = 1\n"]
