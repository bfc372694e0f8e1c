"""Cards are checked on every core lent to grill, in order, and never by forking a threaded process."""

from __future__ import annotations

import os
import threading

import pytest

from questions import fanout


def pid_and_square(item: int, power: int) -> tuple[int, int]:
    return os.getpid(), item ** power


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(fanout.os, "sched_getaffinity", lambda pid: {0, 1})


def test_a_big_batch_is_shared_with_a_fork_and_comes_back_in_order(two_cores):
    results = fanout.map_on_all_cores(pid_and_square, list(range(400)), 2)
    assert [square for _, square in results] == [n ** 2 for n in range(400)]
    assert {pid for pid, _ in results[:200]} == {os.getpid()}
    assert len({pid for pid, _ in results[200:]} - {os.getpid()}) == 1


def test_a_small_batch_stays_in_this_process(two_cores):
    results = fanout.map_on_all_cores(pid_and_square, list(range(150)), 2)
    assert {pid for pid, _ in results} == {os.getpid()}


def test_a_process_running_threads_is_never_forked(two_cores):
    """A fork copies only the calling thread; the app loads packs from a worker thread."""
    results = []
    worker = threading.Thread(target=lambda: results.extend(fanout.map_on_all_cores(pid_and_square, list(range(400)), 2)))
    worker.start()
    worker.join()
    assert {pid for pid, _ in results} == {os.getpid()} and len(results) == 400
