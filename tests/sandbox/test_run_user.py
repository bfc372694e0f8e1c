"""A worker started by root runs as a user of its own, one per sandbox: RLIMIT_NPROC counts
every task of the run's user on the machine, so a user shared with anyone (it was `nobody`)
put other sandboxes' and daemons' threads against the run's limit, and a run then failed to
start a thread or a process ("Resource temporarily unavailable")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sandbox_witness import TEST_LIMITS, sandbox_with_jobs

from checkers.sandbox.isolation import PRIVATE_IDS, private_ids

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only root's worker changes its user")
ISOLATIONS = ["auto", "process"]

HOLDER = """
import os, sys, threading, time
os.setgroups([]); os.setgid(65534); os.setuid(65534)
for _ in range(int(sys.argv[1])):
    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
print("holding", flush=True)
sys.stdin.read()
"""


def uid_of(box) -> int:
    outcome = box.run("probe_jobs:identity", {})
    assert outcome.status == "ok", outcome
    assert outcome.result["uid"] == outcome.result["gid"]
    return outcome.result["uid"]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_sandboxes_alive_at_once_run_as_users_of_their_own(isolation):
    with (
        sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS, isolation=isolation) as one,
        sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS, isolation=isolation) as two,
    ):
        first, second = uid_of(one), uid_of(two)
    assert first in PRIVATE_IDS and second in PRIVATE_IDS
    assert first != second


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_tasks_of_other_users_do_not_count_against_a_runs_limit(isolation):
    """`nobody`, the user every root worker shared before, holds more tasks than a run may have."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(2 * TEST_LIMITS.processes)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        with sandbox_with_jobs(
            device="cpu", warm=False, limits=TEST_LIMITS, isolation=isolation
        ) as box:
            outcome = box.run("probe_jobs:fork_bomb", {"max": 8})
    finally:
        holder.communicate("")
    assert outcome.status == "ok", outcome
    assert outcome.result == {"forks": 8}


def test_an_id_an_account_holds_is_never_chosen(monkeypatch):
    import pwd

    taken = set()
    for _ in range(3):
        uid, _ = private_ids()
        taken.add(uid)
    real_getpwuid = pwd.getpwuid

    def accounts(uid: int):
        if uid in taken:
            return real_getpwuid(0)
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", accounts)
    assert all(private_ids()[0] not in taken for _ in range(10))
