"""Helpers for the sandbox suites: the traps a hostile run must leave untouched."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

from checkers.sandbox import Limits, Outcome, Sandbox

JOBS = Path(__file__).parent / "jobs"
SNIPPET = "snippet_job:run_snippet"
"""Runs a snippet under the policy without grading it (`jobs/snippet_job.py`)."""
SECRET_NAME = "GRILL_TEST_SECRET"
TEST_LIMITS = Limits(
    memory_bytes=512 * 1024 * 1024,
    cpu_seconds=20,
    wall_seconds=20,
    output_bytes=64 * 1024,
    processes=32,
)


def sandbox_with_jobs(**options: object) -> Sandbox:
    """A sandbox that also finds the test jobs (`SNIPPET`, the probes)."""
    return Sandbox(job_paths=(str(JOBS),), **options)  # type: ignore[arg-type]


def worker_pid(box: Sandbox) -> int:
    """The worker's outermost process (bwrap, or the worker itself), for process-tree checks."""
    process = box._process
    assert process is not None, "the sandbox has not started"
    return process.pid


def process_tree(pid: int) -> set[int]:
    """pid and all its descendants, read from /proc."""
    found, frontier = set(), [pid]
    while frontier:
        current = frontier.pop()
        found.add(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                frontier += [
                    int(p)
                    for p in Path(f"/proc/{current}/task/{task}/children").read_text().split()
                ]
            except OSError:
                continue
    return found


@dataclass
class Witness:
    canary_dir: Path
    secret: str
    listener: socket.socket
    """A loopback listener that accepts nothing while the run goes on: the kernel queues any
    connection made to it (even one closed at once), and `connections` takes them out of the
    queue, so a late connection (a detached grandchild's) is seen whenever it is asked."""
    accepted: list = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    @property
    def connections(self) -> list:
        """Every connection the listener's queue has held so far."""
        self.listener.setblocking(False)
        while True:
            try:
                connection, address = self.listener.accept()
            except BlockingIOError:
                return self.accepted
            self.accepted.append(address)
            connection.close()

    @property
    def canary(self) -> Path:
        return self.canary_dir / "canary"

    def fill(self, template: str) -> str:
        return (
            template.replace("{canary}", str(self.canary))
            .replace("{port}", str(self.port))
            .replace("{secret_name}", SECRET_NAME)
        )

    def assert_untouched(self, outcome: Outcome, box: Sandbox, baseline: set[int]) -> None:
        assert list(self.canary_dir.iterdir()) == [], "the run created a file outside the box"
        assert self.connections == [], "the run reached the loopback listener"
        seen = f"{outcome.output} {outcome.result} {outcome.error} {outcome.traceback}"
        assert self.secret not in seen, "the parent's secret leaked into the run"
        assert process_tree(worker_pid(box)) == baseline, "a process of the run survived it"
