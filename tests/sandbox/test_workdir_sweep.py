"""A process killed with SIGKILL mid-batch cannot remove its work folder; the next sandbox to
start sweeps it, and never a folder whose owner lives, nor anything else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pace import bound
from sandbox_witness import TEST_LIMITS, sandbox_with_jobs

from checkers.sandbox import parent
from checkers.sandbox.parent import WORKDIR_PREFIX, sweep_stale_workdirs

ROOT = Path(__file__).resolve().parents[2]
SLOW_LOOP = (
    "import time, torch\n"
    "model = torch.nn.Linear(4, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for step in range(600):\n"
    "    loss = model(torch.randn(2, 4)).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "    time.sleep(0.05)\n"
)


def wait_for(condition, what: str, limit_s: float = 120.0):
    """Wait for a condition, not for a time: the limit only turns a hang into a failure."""
    deadline = time.monotonic() + limit_s
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def worker_started(pid: int) -> bool:
    """Whether the process has a child that is already the worker (bwrap, or the worker's
    Python): one that has run exec. Before exec, a child forked to start it still holds a copy
    of every descriptor, the folder's lock among them, and a SIGKILL of its parent then leaves
    that lock held until the orphan gets to exec."""
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
        children = [
            child
            for task in os.listdir(f"/proc/{pid}/task")
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        ]
        return any(Path(f"/proc/{child}/cmdline").read_bytes() != own for child in children)
    except OSError:
        return False


@pytest.fixture
def tmp(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(parent.tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_batch_killed_mid_run_leaves_a_folder_the_next_start_sweeps(tmp):
    snippet = tmp / "slow.py"
    snippet.write_text(SLOW_LOOP)
    batch = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "check", "--device", "cpu", str(snippet), str(snippet)],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp), "GRILL_HOME": str(tmp / "home")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        left = wait_for(lambda: list(tmp.glob(f"{WORKDIR_PREFIX}*")), "the batch's work folder")
        wait_for(lambda: worker_started(batch.pid), "the batch's worker")
    finally:
        batch.send_signal(signal.SIGKILL)
        batch.wait()
    assert [path.exists() for path in left] == [True], "SIGKILL leaves the folder behind"
    with sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS) as box:
        assert not any(path.exists() for path in left), "the next start sweeps it"
        assert [Path(box._workdir)] == list(tmp.glob(f"{WORKDIR_PREFIX}*"))
    assert list(tmp.glob(f"{WORKDIR_PREFIX}*")) == []


def test_the_folder_of_a_sandbox_that_lives_is_never_swept(tmp):
    owner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from checkers.sandbox import Sandbox\n"
            "box = Sandbox(device='cpu', warm=False, isolation='process').start()\n"
            "print(box._workdir, flush=True)\n"
            "input()\n",
        ],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        theirs = Path(owner.stdout.readline().strip())
        assert theirs.is_dir()
        assert sweep_stale_workdirs() == []
        with sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS, isolation="process"):
            assert theirs.is_dir()
    finally:
        owner.communicate("\n", timeout=bound(10))
    assert not theirs.exists(), "its owner removes it when it closes"


def test_a_folder_named_for_a_live_process_is_left_even_unlocked(tmp):
    """The moment between making a folder and locking it: the process id in the name guards it."""
    folder = tmp / f"{WORKDIR_PREFIX}{os.getppid()}-{'a' * 16}"
    folder.mkdir()
    assert sweep_stale_workdirs() == []
    assert folder.is_dir()


def test_a_dead_owners_folder_is_removed_with_what_it_holds(tmp):
    folder = tmp / f"{WORKDIR_PREFIX}{dead_pid()}-{'0123456789abcdef'}"
    (folder / "deep" / "er").mkdir(parents=True)
    (folder / "deep" / "er" / "file").write_text("left by a run")
    if os.geteuid() == 0:  # what a worker running as a user of its own leaves
        os.chown(folder / "deep", *parent.isolation_layer.private_ids())
    assert sweep_stale_workdirs() == [str(folder)]
    assert not folder.exists()


def test_a_folder_named_for_an_id_past_any_process_is_stale(tmp):
    """os.kill cannot even take the id (OverflowError): no process has it."""
    folder = tmp / f"{WORKDIR_PREFIX}{2**40}-{'b' * 16}"
    folder.mkdir()
    assert sweep_stale_workdirs() == [str(folder)]
    assert not folder.exists()


def test_nothing_but_a_stale_work_folder_is_touched(tmp, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "keep").write_text("not grill's")
    gone = dead_pid()
    kept = {
        "a file": tmp / f"{WORKDIR_PREFIX}{gone}-{'1' * 16}",
        "a link to a folder": tmp / f"{WORKDIR_PREFIX}{gone}-{'2' * 16}",
        "an older grill's name": tmp / f"{WORKDIR_PREFIX}{'3' * 16}",
        "a name grill never makes": tmp / f"{WORKDIR_PREFIX}{gone}-xyz",
        "another program's folder": tmp / f"other-{gone}-{'4' * 16}",
    }
    kept["a file"].write_text("x")
    kept["a link to a folder"].symlink_to(elsewhere)
    for name in ("an older grill's name", "a name grill never makes", "another program's folder"):
        kept[name].mkdir()
    if os.geteuid() == 0:
        kept["another user's folder"] = tmp / f"{WORKDIR_PREFIX}{gone}-{'5' * 16}"
        kept["another user's folder"].mkdir()
        os.chown(kept["another user's folder"], 12345, 12345)
    assert sweep_stale_workdirs() == []
    assert {name: os.path.lexists(path) for name, path in kept.items()} == dict.fromkeys(kept, True)
    assert (elsewhere / "keep").exists()
