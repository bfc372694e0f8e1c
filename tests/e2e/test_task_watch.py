"""`grill task watch` as a candidate runs it: the real command and sandbox, a real file changed
on disk, a new verdict after the save, Ctrl+C ending it cleanly, and the attempt recorded."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from pace import bound
from terminal_signals import as_from_a_terminal

from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"
WAIT_S = bound(12)
"""A watch grades its starter within a few seconds on a quiet machine, torch's import in the
worker included."""


class Lines:
    """What a process prints, line by line, read in a thread so a test can wait for a line."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(line)

    def rest(self) -> str:
        """Everything not yet waited for, once the process has closed its end."""
        self._reader.join(WAIT_S)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return "".join(self.seen)

    def until(self, text: str) -> str:
        """Lines up to the first that starts with `text`; fails after WAIT_S."""
        deadline = time.monotonic() + WAIT_S
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            self.seen.append(line)
            if line.startswith(text):
                return line


def grill(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )


def test_a_save_grades_again_and_ctrl_c_ends_it_recording_the_attempt(tmp_path):
    task = load_library([FIXTURE_PACKS]).card(TASK).card.code_task
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "GRILL_HOME": str(tmp_path / "home"),
        "GRILL_PACKS": str(FIXTURE_PACKS),
        "TMPDIR": str(temp),
    }
    fix = tmp_path / f"{TASK}.py"
    assert grill("task", "start", TASK, str(tmp_path), env=env).returncode == 0
    watch = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "task", "watch", TASK, str(fix), "--device", "cpu"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        out, errors = Lines(watch.stdout), Lines(watch.stderr)
        out.until("LEAK")  # the starter, graded as the watch starts
        saved = fix.with_suffix(".tmp")
        saved.write_text(task.solution)
        os.replace(saved, fix)  # as an editor saves: a new file renamed over the old one
        checked = out.until(f"{TASK} · {fix} · checked at")
        assert out.until("CLEAN")
        assert out.until("Solved")
        assert float(checked.rsplit(" in ", 1)[1].split()[0]) < WAIT_S
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=WAIT_S)
        printed, err = out.rest(), errors.rest()
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()
    assert watch.returncode == 0
    assert "Stopped watching" in printed
    assert "Traceback" not in err
    assert "recorded an attempt on running-loss: rated Good" in err
    assert list(temp.iterdir()) == [], "the sandbox's worker stopped and its folder went"
    figures = json.loads(grill("stats", "--json", env=env).stdout)
    assert figures["attempts"] == 1, "one attempt for the session: the first clean verdict"
    listed = json.loads(grill("task", "list", "--json", "--pack", "demo", env=env).stdout)
    assert listed["tasks"][0]["state"] == "solved"
