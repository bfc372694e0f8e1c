"""A history on a disk that cannot take the write: a full disk, no inodes
left, a read-only mount. Nothing in the file changes before a migration can succeed (it used to
switch the file to WAL first), and each cause gets its own message, even as root.

Each case runs `disk_faults.py` in a private mount namespace on a small tmpfs; where the machine
cannot (not root, no `unshare`, no tmpfs), the cases skip and say why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DRIVER = Path(__file__).parent / "disk_faults.py"


@pytest.fixture(scope="module")
def namespace(tmp_path_factory) -> Path:
    """A folder that a private mount namespace can mount a tmpfs on; skips where none can."""
    point = tmp_path_factory.mktemp("mount-point")
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs unshare(1) and mount(8) for a private mount namespace")
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "mount",
            "-t",
            "tmpfs",
            "-o",
            "size=1m",
            "tmpfs",
            str(point),
        ],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(
            "cannot mount a tmpfs in a private mount namespace here (needs root or "
            f"CAP_SYS_ADMIN): {probe.stderr.strip()}"
        )
    return point


def run(namespace: Path, case: str) -> dict:
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            sys.executable,
            str(DRIVER),
            str(namespace),
            case,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def assert_untouched(result: dict) -> None:
    assert result["after"] == result["before"], "the file and its folder are as they were"


def test_a_migration_on_a_full_disk_changes_nothing_and_says_the_disk_is_full(namespace):
    result = run(namespace, "full")
    assert result["status"] == 1
    assert "the disk that holds it is full (" in result["said"]
    assert "nothing was changed: free some space on that disk" in result["said"]
    assert "disk I/O error" not in result["said"] and "permissions" not in result["said"]
    assert result["before"]["version"] == 1 and result["before"]["journal_mode"] == "rollback"
    assert_untouched(result)


def test_a_migration_that_runs_out_of_space_midway_rolls_back_whole_and_says_why(namespace):
    """The check before writing turned off: SQLite's own failure, diagnosed after the fact."""
    result = run(namespace, "full-during-migration")
    assert result["status"] == 1
    assert "the disk that holds it is full" in result["said"], result["said"]
    assert_untouched(result)


def test_no_history_is_made_on_a_full_disk(namespace):
    result = run(namespace, "full-fresh")
    assert result["status"] == 1
    assert "the disk that holds it is full" in result["said"]
    assert result["after"]["files"] == []


def test_a_write_on_a_disk_that_fills_up_says_so_and_keeps_what_was_recorded(namespace):
    result = run(namespace, "full-writing")
    assert result["status"] == 1
    assert "the disk that holds it is full" in result["said"], result["said"]
    assert "nothing was changed" in result["said"]
    assert result["after"]["attempts"] >= result["before"]["attempts"] == 1


@pytest.mark.parametrize("case", ["inodes", "inodes-during-migration"])
def test_no_inodes_left_is_its_own_message(namespace, case):
    result = run(namespace, case)
    assert result["status"] == 1
    assert "the disk that holds it has no free inodes" in result["said"], result["said"]
    assert "permissions" not in result["said"]
    assert_untouched(result)


@pytest.mark.parametrize("case", ["read-only", "read-only-current"])
def test_a_read_only_mount_is_its_own_message_even_as_root(namespace, case):
    result = run(namespace, case)
    assert result["status"] == 1
    assert "is mounted read-only" in result["said"], result["said"]
    assert "remount it read-write, or set GRILL_HOME" in result["said"]
    assert "permissions" not in result["said"]
    assert_untouched(result)
