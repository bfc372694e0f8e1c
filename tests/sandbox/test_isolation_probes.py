"""The isolation holds for code that got past the policy: jobs that act as an escaped snippet
would (reading the host's name and kernel log, writing past the scratch cap, changing a host
file, sending datagrams, reaching named sockets), in both modes."""

from __future__ import annotations

import os
import socket

import pytest
from sandbox_witness import process_tree, worker_pid


def test_the_box_has_a_host_name_of_its_own(sandbox):
    outcome = sandbox.run("probe_jobs:host_name", {})
    assert outcome.result == {"host": "grill"}
    assert socket.gethostname() != "grill"


def test_a_run_that_writes_past_its_scratch_cap_is_stopped(either_sandbox, witness):
    baseline = process_tree(worker_pid(either_sandbox))
    files = either_sandbox.limits.scratch_bytes // (1024 * 1024) + 16
    outcome = either_sandbox.run("probe_jobs:fill_scratch", {"files": files, "pause": 0.01})
    stopped = (outcome.status == "limit" and outcome.error.kind == "disk") or (
        outcome.status == "ok" and outcome.result["written"] < files
    )  # the tmpfs is full
    assert stopped, (outcome.status, outcome.error, outcome.result)
    witness.assert_untouched(outcome, either_sandbox, baseline)


@pytest.fixture
def host_file(tmp_path):
    path = tmp_path / "host-file"
    path.write_text("mine")
    os.chmod(path, 0o644)
    before = os.stat(path)
    yield path
    after = os.stat(path)
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (
        before.st_mode,
        before.st_uid,
        before.st_mtime_ns,
    )
    with pytest.raises(OSError):
        os.getxattr(path, b"user.grill")


def test_a_host_files_mode_owner_times_and_attributes_are_out_of_reach(either_sandbox, host_file):
    outcome = either_sandbox.run("probe_jobs:change_host_file", {"path": str(host_file)})
    assert outcome.status == "ok"
    assert all(result is not True for result in outcome.result["changed"].values()), outcome.result


def test_the_kernel_log_is_out_of_reach(either_sandbox):
    outcome = either_sandbox.run("probe_jobs:read_kernel_log", {})
    assert outcome.result["klogctl"] < 0
    assert outcome.result["kmsg"] != "read"


def test_no_udp_datagram_leaves_the_run(either_sandbox):
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.3)
    outcome = either_sandbox.run("probe_jobs:send_udp", {"port": listener.getsockname()[1]})
    assert outcome.result["sent"] is False
    with pytest.raises(socket.timeout):
        listener.recvfrom(64)


def test_no_named_unix_socket_is_reached(either_sandbox, tmp_path):
    path = tmp_path / "listener.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o777)
    listener.listen(1)
    listener.settimeout(0.3)
    outcome = either_sandbox.run("probe_jobs:connect_unix", {"path": str(path)})
    assert outcome.result["connected"] is False
    with pytest.raises(socket.timeout):
        listener.accept()


def test_a_run_reaches_no_other_process_but_its_own(either_sandbox):
    """The worker and the next run share the run's user: a limit, a signal, a priority, a
    trace or a look at its memory aimed at the worker fails; on itself each still works."""
    outcome = either_sandbox.run("probe_jobs:reach_other_processes", {})
    assert outcome.status == "ok", outcome.error
    tried = outcome.result["tried"]
    own = {key: tried.pop(key) for key in ("own_limit", "own_signal")}
    assert own == {"own_limit": 0, "own_signal": 0}
    assert all(result < 0 for result in tried.values()), tried
    after = either_sandbox.run("probe_jobs:host_name", {})
    assert after.status == "ok", "the next run works as before"


def test_a_run_starts_no_new_program_and_makes_no_namespace(either_sandbox, witness):
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run("probe_jobs:new_program", {})
    assert outcome.status == "ok", outcome.error
    tried = outcome.result["tried"]
    assert tried["execve"] and tried["memfd"] and tried["clone_namespaces"] < 0, tried
    witness.assert_untouched(outcome, either_sandbox, baseline)
