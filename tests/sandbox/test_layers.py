"""Layers 2-4 without the policy: jobs that act as if a snippet had got past it (plain os,
sockets, fork) must still find no files, no network, no secret, hard limits, bounded output,
and nothing of theirs alive after the run. Landlock (where the kernel has it) and bubblewrap
overlap; `in_box` checks bubblewrap's view alone."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pace import bound
from sandbox_witness import SECRET_NAME, process_tree, worker_pid

from checkers.sandbox import landlock, seccomp
from checkers.sandbox.isolation import SANDBOX_ENV, bubblewrap_works, bwrap_arguments, package_root

needs_bubblewrap = pytest.mark.skipif(
    not bubblewrap_works(), reason="bubblewrap cannot create namespaces here"
)
PROBES = "probe_jobs"
TOP_OF_BOUND = {Path(p).parts[1] for p in (sys.prefix, sys.base_prefix, str(package_root()))}


def run(box, job, payload=None, **kwargs):
    return box.run(f"{PROBES}:{job}", payload or {}, **kwargs)


@needs_bubblewrap
def test_host_files_outside_the_box_cannot_be_written(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = run(sandbox, "write_file", {"path": str(witness.canary)})
    assert outcome.result == {"wrote": False, "error": "FileNotFoundError"}
    witness.assert_untouched(outcome, sandbox, baseline)


@needs_bubblewrap
def test_the_python_installation_and_grill_are_read_only(sandbox):
    target = package_root() / "checkers" / "planted.py"
    outcome = run(sandbox, "write_file", {"path": str(target)})
    assert outcome.result["wrote"] is False
    assert outcome.result["error"] in ("OSError", "PermissionError")
    assert not target.exists()


@needs_bubblewrap
def test_host_files_cannot_be_read(sandbox, tmp_path):
    private = tmp_path / "private.txt"
    private.write_text("private")
    outcome = run(sandbox, "read_file", {"path": str(private)})
    assert outcome.result == {"content": None, "error": "FileNotFoundError"}


def in_box(code: str) -> str:
    """Run plain Python in the worker's bubblewrap box, without the worker's other layers."""
    argv = bwrap_arguments(dict(SANDBOX_ENV), cuda=False, as_root=os.geteuid() == 0)
    argv += ["--", sys.executable, "-I", "-c", code]
    return subprocess.run(argv, capture_output=True, text=True, timeout=bound(2), check=True).stdout


@needs_bubblewrap
def test_the_box_shows_no_home_no_etc_only_the_python_installation():
    top = in_box("import os; print(' '.join(sorted(os.listdir('/'))))").split()
    assert set(top) <= {
        "bin",
        "dev",
        "etc",
        "lib",
        "lib64",
        "proc",
        "root",
        "sbin",
        "tmp",
        "usr",
        *TOP_OF_BOUND,
    }
    assert in_box("import os; print(os.listdir('/etc'))").strip() == "['ld.so.cache']"
    assert (
        in_box("import os; print(os.path.exists(os.path.expanduser('~root/.bashrc')))").strip()
        == "False"
    )


def test_a_file_left_by_one_run_is_gone_in_the_next(either_sandbox):
    assert run(either_sandbox, "write_file", {"path": "left-behind"}).result == {"wrote": True}
    assert run(either_sandbox, "read_file", {"path": "left-behind"}).result["content"] is None


@needs_bubblewrap
@pytest.mark.skipif(not seccomp.supported(), reason="the seccomp filter is x86-64 only")
def test_seccomp_refuses_the_calls_a_training_loop_never_needs(sandbox):
    calls = {
        name: seccomp.DENIED_X86_64[name]
        for name in (
            "ptrace",
            "unshare",
            "setns",
            "mount",
            "keyctl",
            "bpf",
            "io_uring_setup",
            "perf_event_open",
        )
    }
    outcome = run(sandbox, "syscall", {"calls": {**calls, "clone3": seccomp.CLONE3, "getpid": 39}})
    got = outcome.result["errno"]
    assert {name: got[name] for name in calls} == {name: errno.EPERM for name in calls}
    assert got["clone3"] == errno.ENOSYS
    assert got["getpid"] == 0


@needs_bubblewrap
def test_the_environment_carries_nothing_of_the_parents(sandbox, witness):
    environ = run(sandbox, "environment").result["environ"]
    assert SECRET_NAME not in environ
    assert witness.secret not in str(environ)
    inherited = {k for k in environ if k in os.environ and os.environ[k] == environ[k]}
    assert inherited <= set(SANDBOX_ENV), inherited


@needs_bubblewrap
def test_no_network_even_to_loopback(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = run(sandbox, "connect", {"port": witness.port})
    assert outcome.result["connected"] is False
    witness.assert_untouched(outcome, sandbox, baseline)


@needs_bubblewrap
@pytest.mark.skipif(landlock.abi() < 4, reason="Landlock with TCP rules (ABI 4) is missing")
def test_without_bubblewrap_landlock_keeps_files_and_network_out_of_reach(
    process_sandbox, witness, tmp_path
):
    private = tmp_path / "private.txt"
    private.write_text("private")
    baseline = process_tree(worker_pid(process_sandbox))
    read = run(process_sandbox, "read_file", {"path": str(private)})
    assert read.result == {"content": None, "error": "PermissionError"}
    wrote = run(process_sandbox, "write_file", {"path": str(witness.canary)})
    assert wrote.result == {"wrote": False, "error": "PermissionError"}
    connected = run(process_sandbox, "connect", {"port": witness.port})
    assert connected.result == {"connected": False, "error": "PermissionError"}
    witness.assert_untouched(connected, process_sandbox, baseline)


@needs_bubblewrap
def test_fork_bomb_hits_the_process_limit(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = run(sandbox, "fork_bomb", {"max": 10_000})
    assert outcome.result["error"] == "BlockingIOError"
    assert outcome.result["forks"] < sandbox.limits.processes
    witness.assert_untouched(outcome, sandbox, baseline)


def test_forked_children_are_all_killed_after_the_run(either_sandbox, witness):
    box = either_sandbox
    baseline = process_tree(worker_pid(box))
    outcome = run(box, "fork_bomb", {"max": 20})
    assert outcome.status == "ok"
    witness.assert_untouched(outcome, box, baseline)


@needs_bubblewrap
def test_thread_bomb_is_capped(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = run(sandbox, "thread_bomb")
    assert outcome.result["error"] == "RuntimeError"
    assert outcome.result["threads"] < sandbox.limits.processes
    witness.assert_untouched(outcome, sandbox, baseline)


def test_detached_grandchild_does_not_outlive_a_timeout(either_sandbox, witness):
    box = either_sandbox
    baseline = process_tree(worker_pid(box))
    payload = {"path": str(witness.canary), "port": witness.port, "delay": 1.0, "hang": True}
    outcome = run(box, "late_writer", payload, timeout_s=1.0)
    assert outcome.status == "timeout"
    time.sleep(1.5)
    witness.assert_untouched(outcome, box, baseline)


def test_detached_grandchild_does_not_outlive_a_finished_run(either_sandbox, witness):
    box = either_sandbox
    baseline = process_tree(worker_pid(box))
    payload = {"path": str(witness.canary), "port": witness.port, "delay": 0.5}
    outcome = run(box, "late_writer", payload)
    assert outcome.result == {"returned": True}
    time.sleep(1.0)
    witness.assert_untouched(outcome, box, baseline)


def test_raw_output_flood_stops_the_run_at_the_cap(either_sandbox):
    box = either_sandbox
    started = time.monotonic()
    outcome = run(box, "raw_flood", {"megabytes": 100})
    assert (outcome.status, outcome.error.kind) == ("limit", "output")
    assert len(outcome.output.encode()) < box.limits.raw_output_bytes + 200
    assert time.monotonic() - started < 10


def test_memory_limit(either_sandbox):
    outcome = run(either_sandbox, "memory_bomb")
    assert (outcome.status, outcome.error.kind) == ("limit", "memory")


def test_cpu_limit(secret):
    from sandbox_witness import JOBS

    from checkers.sandbox import Limits, Sandbox

    with Sandbox(
        device="cpu", warm=False, limits=Limits(cpu_seconds=1), job_paths=(str(JOBS),)
    ) as box:
        outcome = run(box, "cpu_burn", timeout_s=15)
    assert (outcome.status, outcome.error.kind) == ("limit", "cpu")


def test_a_result_grill_did_not_sign_is_thrown_away(either_sandbox):
    """Only grill can speak for grill: bytes written to the result pipe by anything but the
    run's own answer do not carry the run's key."""
    outcome = run(either_sandbox, "malformed_result")
    assert (outcome.status, outcome.error.kind) == ("error", "tampered")
    assert outcome.result is None


def test_oversized_result_is_refused(either_sandbox):
    outcome = run(either_sandbox, "huge_result", {"bytes": either_sandbox.limits.result_bytes + 1})
    assert (outcome.status, outcome.error.kind) == ("error", "result")


def test_a_result_that_is_not_an_object_is_an_error(either_sandbox):
    outcome = run(either_sandbox, "returns_list")
    assert (outcome.status, outcome.error.kind) == ("error", "internal")


@pytest.mark.parametrize("job,how", [("no_result", "exit code 3"), ("segfault", "signal SIGSEGV")])
def test_a_run_that_dies_without_a_result_is_judged_by_its_exit(either_sandbox, job, how):
    outcome = run(either_sandbox, job)
    assert (outcome.status, outcome.error.kind) == ("error", "crash")
    assert how in outcome.error.message


def test_unknown_job_is_an_internal_error_and_the_worker_survives(sandbox):
    outcome = sandbox.run("probe_jobs:no_such_job", {})
    assert (outcome.status, outcome.error.kind) == ("error", "internal")
    assert run(sandbox, "sleep", {"seconds": 0}).result == {"slept": True}
