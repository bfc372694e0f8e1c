"""The sandbox as a process manager: start, cancel, recover, close, and what it promises."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from pace import bound
from sandbox_witness import SNIPPET, TEST_LIMITS, process_tree, sandbox_with_jobs, worker_pid

from checkers.sandbox import Sandbox, SandboxError, ending, isolation, launcher, parent
from checkers.sandbox.isolation import bubblewrap_works, host_has_cuda_devices


def test_parent_side_imports_neither_torch_nor_the_policy():
    probe = (
        "import sys, checkers.sandbox\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'RestrictedPython', 'textual') or m == 'checkers.policy'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=bound(2)
    )
    assert out.stdout.strip() == "[]"


def test_isolation_is_described_plainly():
    assert Sandbox(isolation="process").isolation.startswith("process only")
    if bubblewrap_works():
        assert Sandbox().isolation.startswith("bubblewrap: no network")


@pytest.mark.skipif(not bubblewrap_works(), reason="bubblewrap cannot create namespaces here")
def test_auto_carries_on_without_bubblewrap_when_it_cannot_start_the_worker(monkeypatch, secret):
    monkeypatch.setattr(isolation, "bwrap_arguments", lambda env, **_: ["bwrap", "--no-such-flag"])
    with sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS) as box:
        assert box.isolation.startswith("process only")
        assert "bubblewrap failed: the sandbox worker did not start" in box.isolation
        assert box.run(SNIPPET, {"source": "result = 6"}).result == {"result": 6}
    with pytest.raises(SandboxError, match="did not start"):
        Sandbox(device="cpu", isolation="bubblewrap").start()


@pytest.mark.skipif(host_has_cuda_devices(), reason="this machine has a GPU")
def test_asking_for_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(
        SandboxError, match="No CUDA device is available .* so nothing ran"
    ) as error:
        Sandbox(device="cuda").start()
    assert error.value.kind == "device"


def test_auto_device_resolves_to_what_is_there(sandbox):
    assert sandbox.device in ("cpu", "cuda")
    outcome = sandbox.run(SNIPPET, {"source": "result = 1"})
    assert outcome.device == sandbox.device


def test_cancel_from_another_thread_stops_the_run_at_once(sandbox):
    threading.Timer(0.5, sandbox.cancel).start()
    started = time.monotonic()
    outcome = sandbox.run("probe_jobs:sleep", {"seconds": 30})
    assert (outcome.status, outcome.error.kind) == ("error", "cancelled")
    assert time.monotonic() - started < 5
    assert sandbox.run(SNIPPET, {"source": "result = 2"}).result == {"result": 2}


def test_cancel_between_runs_does_not_cancel_the_next_one(sandbox):
    sandbox.cancel()
    assert sandbox.run(SNIPPET, {"source": "result = 3"}).status == "ok"


def test_a_worker_killed_between_runs_is_replaced_silently_and_leaves_no_folder(
    secret, tmp_path, monkeypatch
):
    monkeypatch.setattr(parent.tempfile, "tempdir", str(tmp_path))
    with sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS) as box:
        first = worker_pid(box)
        os.killpg(first, signal.SIGKILL)
        assert wait_for(lambda: box._process.poll() is not None), "the killed worker lives on"
        assert box.run(SNIPPET, {"source": "result = 4"}).result == {"result": 4}
        assert worker_pid(box) != first
        assert len(list(tmp_path.glob("grill-sandbox-*"))) == 1, "the dead worker's folder stays"
    assert list(tmp_path.glob("grill-sandbox-*")) == []


def test_a_worker_killed_during_a_run_is_an_error_then_replaced(secret):
    with sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS) as box:
        threading.Timer(0.5, os.killpg, (worker_pid(box), signal.SIGKILL)).start()
        lost = box.run("probe_jobs:sleep", {"seconds": 30})
        assert (lost.status, lost.error.kind) == ("error", "sandbox")
        assert box.run(SNIPPET, {"source": "result = 5"}).result == {"result": 5}


def test_closing_during_a_run_in_another_thread_cancels_it_cleanly(secret):
    """The app closes its sandbox on exit while a run may go on in a worker thread."""
    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS).start()
    outcomes = []
    running = threading.Thread(
        target=lambda: outcomes.append(box.run("probe_jobs:sleep", {"seconds": 30}))
    )
    running.start()
    time.sleep(0.5)
    started = time.monotonic()
    box.close()
    running.join(timeout=bound(1))
    assert time.monotonic() - started < 5
    assert [(o.status, o.error.kind) for o in outcomes] == [("error", "cancelled")]
    assert box._process is None


def test_concurrent_starts_share_one_worker_and_a_closed_sandbox_starts_again(secret, monkeypatch):
    launched = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        launched.append(real_popen(*args, **kwargs))
        return launched[-1]

    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS)
    assert box.isolation  # chosen (a probe may run a process) before launches are counted
    monkeypatch.setattr(launcher.subprocess, "Popen", popen)
    starters = [threading.Thread(target=box.start) for _ in range(3)]
    for thread in starters:
        thread.start()
    for thread in starters:
        thread.join()
    assert [process.pid for process in launched] == [worker_pid(box)]
    box.close()
    assert box._process is None
    assert box.run(SNIPPET, {"source": "result = 7"}).result == {"result": 7}
    assert len(launched) == 2
    box.close()


def test_a_worker_started_from_a_thread_outlives_that_thread(secret):
    """The app warms its sandbox and grades in worker threads that end; the warm worker must
    stay for the next run (bwrap's --die-with-parent watches the thread that launched it)."""
    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS)
    starter = threading.Thread(target=box.start)
    starter.start()
    starter.join()
    worker = worker_pid(box)
    time.sleep(0.3)  # a parent-death signal would have landed by now
    assert box.run(SNIPPET, {"source": "result = 8"}).result == {"result": 8}
    assert worker_pid(box) == worker, "the worker died with its thread and was started again"
    box.close()


def test_close_leaves_no_process_behind(secret):
    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS).start()
    tree = process_tree(worker_pid(box))
    box.close()
    assert wait_for(lambda: all(not os.path.exists(f"/proc/{pid}") or zombie(pid) for pid in tree))


def wait_for(condition, quiet_s: float = 0.2) -> bool:
    """Whether `condition()` came true within `bound(quiet_s)`, looked at every 10 ms."""
    deadline = time.monotonic() + bound(quiet_s)
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.parametrize("moment", ["mkdir", "launch"])
def test_a_signal_the_moment_the_work_folder_exists_leaves_nothing_behind(
    tmp_path, monkeypatch, moment
):
    """A signal handler raises where Python next checks for one: here, right after the folder
    is made (before the sandbox could learn a name mkdtemp returns), or as the worker starts."""
    monkeypatch.setattr(parent.tempfile, "tempdir", str(tmp_path))

    def interrupted(*args, **kwargs):
        if moment == "mkdir":
            real_mkdir(*args, **kwargs)
        raise SystemExit(129)

    real_mkdir = os.mkdir
    target = parent.os if moment == "mkdir" else launcher
    monkeypatch.setattr(target, "mkdir" if moment == "mkdir" else "popen", interrupted)
    box = sandbox_with_jobs(device="cpu", isolation="process", limits=TEST_LIMITS)
    with pytest.raises(SystemExit):
        box.start()
    assert list(tmp_path.iterdir()) == []
    assert box._process is None


def test_a_program_that_ends_without_closing_its_sandbox_leaves_no_folder(tmp_path):
    """An app torn down by a signal never unmounts, so its own close never comes: whatever
    sandbox is still open at exit is closed then."""
    script = (
        "from checkers.sandbox import Sandbox\n"
        "Sandbox(device='cpu', warm=False).start()\n"
        "print('started', flush=True)\n"
        "raise SystemExit(129)\n"
    )
    ended = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=bound(10),
    )
    assert (ended.returncode, ended.stdout) == (129, "started\n"), ended.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []


def test_a_run_over_the_message_cap_is_refused_unsent_and_the_worker_stays(sandbox):
    """The grading API refuses such a snippet first; the sandbox itself never sends one."""
    from checkers.sandbox import protocol

    worker = worker_pid(sandbox)
    outcome = sandbox.run(SNIPPET, {"source": "x" * protocol.MAX_CONTROL_BYTES})
    assert (outcome.status, outcome.error.kind) == ("error", "internal")
    assert "nothing was sent" in outcome.error.message
    assert worker_pid(sandbox) == worker
    assert sandbox.run(SNIPPET, {"source": "result = 6"}).result == {"result": 6}


@pytest.fixture
def process_ending(monkeypatch):
    """This process marked as ending, as a signal marks it (`checkers.sandbox.ending`)."""
    monkeypatch.setattr(ending, "_ending", threading.Event())
    return ending.begin_ending


def test_a_thread_between_two_runs_starts_no_worker_once_the_process_is_ending(
    secret, process_ending
):
    """`grill task watch` and the app grade in a thread, several runs per grading: a stop that
    came between two of them closed the sandbox, then the thread's next run started a fresh
    worker behind it, whose folder outlived the process."""
    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS).start()
    folder = box._workdir
    process_ending()
    started = time.monotonic()
    box.close()
    assert time.monotonic() - started < 1.0, "a stop when ending waits for no grace"
    with pytest.raises(SandboxError, match="ending"):
        box.run(SNIPPET, {"source": "result = 1"})
    assert box._process is None and box._workdir is None
    assert folder is not None and not os.path.exists(folder)


def test_a_second_signal_kills_every_worker_and_removes_its_folder_without_waiting(secret):
    box = sandbox_with_jobs(device="cpu", warm=False, limits=TEST_LIMITS).start()
    worker, folder = worker_pid(box), box._workdir
    parent._kill_started_now()
    assert folder is not None and not os.path.exists(folder)
    deadline = time.monotonic() + bound(1)
    while os.path.exists(f"/proc/{worker}") and not zombie(worker):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    box.close()
