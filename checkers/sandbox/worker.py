"""The warm worker (zygote): imports torch once, warms the paths every training loop takes,
then forks one fresh child per run and makes sure nothing of that run outlives it.

It runs inside the isolation, talks to the parent over the Unix socket on its stdin, and
is trusted code: candidate code only ever runs in the forked children.
"""

from __future__ import annotations

import gc
import importlib
import os
import selectors
import shutil
import signal
import socket
import sys
import time
import warnings
from collections.abc import Callable
from typing import cast

from checkers.sandbox import child, eager_dynamo, handoff, network, protocol, seccomp
from checkers.sandbox.limits import MAX_RANKS
from checkers.sandbox.privileges import drop_privileges

PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE = 36, 4

SCRATCH_POLL_SECONDS = 0.1
"""How often a run's scratch folder is measured where no sized tmpfs holds it."""


def main() -> None:
    own_pid_namespace = "--own-pid-namespace" in sys.argv
    # bubblewrap's box has a network of its own; a process-only worker makes one if it can,
    # while it still may (before it gives up root, before its seccomp filter refuses it)
    private_network = own_pid_namespace or "--private-network" in sys.argv and network.private()
    if "--run-as" in sys.argv:
        uid, gid = map(int, sys.argv[sys.argv.index("--run-as") + 1].split(":"))
        drop_privileges(uid, gid, keep_reading=not own_pid_namespace)
    if "--seccomp" in sys.argv:  # without bubblewrap, which would have installed it
        seccomp.install(seccomp.program())
    control = socket.socket(fileno=0)
    become_subreaper()
    info = warm(preloads(sys.argv), full="--cold" not in sys.argv)
    scratch = set(os.listdir("."))
    protocol.send(control, {"event": "ready", "private_network": private_network, **info})
    jobs: dict[str, child.Job] = {}
    while True:
        try:
            request, fds = protocol.receive(control, max_fds=3 * MAX_RANKS)
        except (protocol.ProtocolError, OSError):
            return
        ranks = request.get("ranks")
        if request.get("op") == "run" and ranks is None and len(fds) == 2:
            serve(control, cast(protocol.RunRequest, request), fds, jobs, own_pid_namespace)
            clear_scratch(scratch)
        elif (
            request.get("op") == "run"
            and type(ranks) is int
            and 1 <= ranks <= MAX_RANKS
            and len(fds) == 3 * ranks
            and private_network
        ):
            serve_ranks(control, cast(protocol.RunRequest, request), fds, jobs, own_pid_namespace)
            clear_scratch(scratch)
        else:
            for fd in fds:
                os.close(fd)
            if request.get("op") == "stop":
                return
            if request.get("op") == "run":  # malformed, or ranks this worker cannot run
                protocol.send(
                    control,
                    {
                        "event": "exit",
                        "code": None,
                        "signal": None,
                        "killed": False,
                        "reason": "refused",
                    },
                )


def preloads(argv: list[str]) -> list[str]:
    """The job modules named by `--preload MODULE` (the parent's `Sandbox(preload=...)`)."""
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--preload"]


def warm(modules: list[str], full: bool) -> dict[str, object]:
    """Import torch (its compiler kept out: `eager_dynamo`) and the preloaded job modules once
    for every run to inherit. `full` also calls each module's `warm()`, if it has one, so that
    each later run starts warm: what repeated runs (the app, a batch of files) buy with a tenth
    of a second at start; a single run pays it itself, as plain Python would."""
    started = time.perf_counter()
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch

    eager_dynamo.install(torch)
    torch.set_num_threads(1)
    torch.ones(1).add(1)  # torch reads the CPU's features now, while /proc is still readable
    loaded = [importlib.import_module(name) for name in modules]
    imported = time.perf_counter()
    if full:
        for module in loaded:
            warm_up: Callable[[], None] | None = getattr(module, "warm", None)
            if warm_up is not None:
                warm_up()
    gc.collect()
    gc.freeze()  # what the worker holds is never garbage: a run's collections skip it
    return {
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "timings": {
            "import": round(imported - started, 3),
            "warm-up": round(time.perf_counter() - imported, 3),
        },
    }


def serve(
    control: socket.socket,
    request: protocol.RunRequest,
    fds: list[int],
    jobs: dict[str, child.Job],
    own_pid_namespace: bool,
) -> None:
    """A single run: the child gets the output pipe and one end of a hand-off socket; the
    result pipe stays here, and the worker writes to it the answer the run handed off,
    signed with the key it reads once the child is forked (`handoff`)."""
    out_fd, result_fd = fds
    try:
        job = load_job(jobs, request["job"])
    except Exception as exc:  # a bad job name is grill's bug; report it as the result
        (key,) = protocol.receive_keys(control, 1)
        protocol.write_all(result_fd, protocol.signed(child.internal_error(exc), key))
        os.close(out_fd)
        os.close(result_fd)
        protocol.send(control, {"event": "exit", "code": 0, "signal": None, "killed": False})
        return
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        ours.close()
        os.close(result_fd)
        child.run(job, request, out_fd, theirs.detach(), control)
    theirs.close()
    os.close(out_fd)
    receiver = handoff.Receiver(ours, cap=request["limits"]["result_bytes"])
    try:
        (key,) = protocol.receive_keys(control, 1)
    except (protocol.ProtocolError, OSError):
        kill_leftovers(pid, own_pid_namespace)
        os._exit(0)
    protocol.send(control, {"event": "started"})
    scratch_cap = None if own_pid_namespace else request["limits"]["scratch_bytes"]
    status, killed = wait_or_kill(control, pid, own_pid_namespace, scratch_cap, receiver)
    kill_leftovers(pid, own_pid_namespace)
    code = os.waitstatus_to_exitcode(status)
    receiver.finish()
    reply = None if killed else receiver.reply(key, code)
    receiver.close()
    if reply is not None:
        protocol.write_all(result_fd, reply)
    os.close(result_fd)
    filename = cast(str, request["payload"].get("filename") or "<snippet>")  # grill's jobs' key
    protocol.send(
        control,
        {
            "event": "exit",
            "code": code if code >= 0 else None,
            "signal": -code if code < 0 else None,
            "killed": bool(killed),
            "reason": killed if isinstance(killed, str) else None,
            "line": child.crash_line(filename, child.CRASH_LOG) if code < 0 else None,
        },
    )


def serve_ranks(
    control: socket.socket,
    request: protocol.RunRequest,
    fds: list[int],
    jobs: dict[str, child.Job],
    own_pid_namespace: bool,
) -> None:
    """A ranked run: one child per rank, all at once, each with its own output and watch
    pipes and hand-off socket (the parent sends output, result and watch pipes, three
    descriptors a rank, in rank order; the result pipes stay here); then watch them together
    until each has exited (see `watch_ranks`)."""
    ranks = request["ranks"]
    payloads = request.pop("payloads")
    environments = request.pop("environments")
    try:
        job = load_job(jobs, request["job"])
    except Exception as exc:  # a bad job name is grill's bug; every rank reports it
        keys = protocol.receive_keys(control, ranks)
        for rank in range(ranks):
            result_fd = fds[3 * rank + 1]
            protocol.write_all(result_fd, protocol.signed(child.internal_error(exc), keys[rank]))
        for fd in fds:
            os.close(fd)
        protocol.send(control, {"event": "exit", "code": 0, "signal": None, "killed": False})
        return
    base = resident_bytes(os.getpid()) or 0
    # a rank asked for its stack before it has set up faulthandler must not die of it
    signal.signal(child.DUMP_SIGNAL, signal.SIG_IGN)
    pairs = [socket.socketpair() for _ in range(ranks)]
    pids: list[int] = []
    for rank in range(ranks):
        pid = os.fork()
        if pid == 0:
            out_fd, watch_fd = fds[3 * rank], fds[3 * rank + 2]
            for fd in fds:
                if fd not in (out_fd, watch_fd):
                    os.close(fd)
            for other, (ours, theirs) in enumerate(pairs):
                ours.close()
                if other != rank:
                    theirs.close()
            mine: protocol.RunRequest = {
                **request,
                "payload": payloads[rank],
                "rank": rank,
                "environment": environments[rank],
            }
            child.run(job, mine, out_fd, pairs[rank][1].detach(), control, watch_fd=watch_fd)
        pids.append(pid)
    for rank in range(ranks):
        os.close(fds[3 * rank])
        os.close(fds[3 * rank + 2])
        pairs[rank][1].close()
    results = [fds[3 * rank + 1] for rank in range(ranks)]
    receivers = [handoff.Receiver(ours, cap=request["limits"]["result_bytes"]) for ours, _ in pairs]
    try:
        keys = protocol.receive_keys(control, ranks)
    except (protocol.ProtocolError, OSError):
        for pid in pids:
            kill_leftovers(pid, own_pid_namespace)
        os._exit(0)
    protocol.send(control, {"event": "started", "ranks": ranks})
    scratch_cap = None if own_pid_namespace else request["limits"]["scratch_bytes"]
    replies = RankReplies(receivers, results, keys)
    killed = watch_ranks(control, pids, request, base, own_pid_namespace, scratch_cap, replies)
    kill_leftovers(pids[0], own_pid_namespace)
    replies.close()
    protocol.send(
        control,
        {
            "event": "exit",
            "code": 0,
            "signal": None,
            "killed": bool(killed),
            "reason": killed if isinstance(killed, str) else None,
        },
    )


class RankReplies:
    """Each rank's hand-off and the parent's result pipe for it: a rank's reply goes to the
    parent as soon as its hand-off ends (the rank lingers until all are done), or when the
    rank exits; the result pipe is closed then, so the parent sees the rank done."""

    def __init__(self, receivers: list[handoff.Receiver], results: list[int], keys: list[bytes]):
        self.receivers = receivers
        self.results: list[int | None] = list(results)
        self.keys = keys

    def deliver(self, rank: int, exit_code: int | None = None, killed: bool = False) -> None:
        result = self.results[rank]
        if result is None:
            return
        self.results[rank] = None
        reply = None if killed else self.receivers[rank].reply(self.keys[rank], exit_code)
        if reply is not None:
            try:
                protocol.write_all(result, reply)
            except OSError:  # the parent stopped reading: it has ended the run
                pass
        os.close(result)

    def close(self) -> None:
        for rank, receiver in enumerate(self.receivers):
            self.deliver(rank, killed=True)
            receiver.close()


SAMPLE_SECONDS = 0.25
"""How often the worker tells the parent how much CPU and memory each rank has used."""


def watch_ranks(
    control: socket.socket,
    pids: list[int],
    request: protocol.RunRequest,
    base: int,
    own_pid_namespace: bool,
    scratch_cap: int | None,
    replies: RankReplies,
) -> bool | str:
    """Until every rank has exited: reap each as it goes (and say so, with its status and the
    line it crashed at), send the ranks' CPU time and added memory every SAMPLE_SECONDS (the
    parent tells progress from a stall by them), dump every rank's stack on `dump` (each
    rank's faulthandler writes it to its watch pipe), and kill them all on `kill`, when the
    parent goes away, or when together they pass a limit of the whole run (memory added,
    the scratch folder): then the reason comes back ("memory", "scratch"), and goes to the
    parent in a `limit` event first, ahead of the ranks' exits, which it caused."""
    limits = request["limits"]
    filename = cast(str, request["payload"].get("filename") or "<snippet>")
    alive = {pid: rank for rank, pid in enumerate(pids)}
    killed: bool | str = False

    def kill_all(reason: bool | str) -> None:
        nonlocal killed
        if isinstance(reason, str) and not killed:  # before the ranks' exits: they died of it
            protocol.send(control, {"event": "limit", "reason": reason})
        for pid in list(alive):
            kill_tree(pid, own_pid_namespace)
        killed = killed or reason

    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        for rank, receiver in enumerate(replies.receivers):
            selector.register(receiver.sock, selectors.EVENT_READ, rank)
        next_sample = next_scratch = time.monotonic()
        while alive:
            for pid in list(alive):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    rank = alive.pop(pid)
                    code = os.waitstatus_to_exitcode(status)
                    replies.receivers[rank].finish()
                    replies.deliver(rank, code, killed=bool(killed))
                    crashed = (
                        child.crash_line(filename, child.crash_log(rank)) if code < 0 else None
                    )
                    protocol.send(
                        control,
                        {
                            "event": "rank_exit",
                            "rank": rank,
                            "code": code if code >= 0 else None,
                            "signal": -code if code < 0 else None,
                            "line": crashed,
                        },
                    )
            if not alive:
                break
            now = time.monotonic()
            if now >= next_sample:
                next_sample = now + SAMPLE_SECONDS
                cpu, memory = [], []
                for pid in pids:
                    cpu.append(cpu_ticks(pid) if pid in alive else None)
                    resident = resident_bytes(pid) if pid in alive else None
                    memory.append(max(resident - base, 0) if resident is not None else None)
                protocol.send(control, {"event": "sample", "cpu": cpu, "memory": memory})
                if not killed and sum(m or 0 for m in memory) > limits["ranked_memory_bytes"]:
                    kill_all("memory")
            if scratch_cap is not None and now >= next_scratch:  # as often as a single run's
                next_scratch = now + SCRATCH_POLL_SECONDS
                if not killed and folder_bytes(".") > scratch_cap:
                    kill_all("scratch")
            ready = selector.select(timeout=max(min(next_sample - now, 0.05), 0.005))
            for key, _ in ready:
                if key.fileobj is not control:
                    rank = key.data
                    if serve_handoff(selector, replies.receivers[rank], key.fileobj, rank):
                        replies.deliver(rank)
            if any(key.fileobj is control for key, _ in ready):
                try:
                    message, fds = protocol.receive(control)
                except (protocol.ProtocolError, OSError):
                    kill_all(True)
                    for pid in list(alive):
                        kill_leftovers(pid, own_pid_namespace)
                    os._exit(0)
                if message.get("op") == "dump":
                    for pid in alive:
                        ignore_missing(os.kill, pid, signal.SIGUSR1)
                else:
                    kill_all(True)
    return killed


def serve_handoff(
    selector: selectors.BaseSelector, receiver: handoff.Receiver, ready: object, data: object
) -> bool:
    """Read what is ready of a run's hand-off (its socket or the pipe passed on it), keeping
    the selector in step; True once the hand-off has ended."""
    if ready is receiver.sock:
        pipe = receiver.on_socket()
        if pipe is not None:
            selector.register(pipe, selectors.EVENT_READ, data)
        if receiver.socket_closed:
            selector.unregister(receiver.sock)
        return False
    pipe = cast(int, ready)
    selector.unregister(pipe)
    if receiver.on_pipe():
        return True
    selector.register(pipe, selectors.EVENT_READ, data)
    return False


def cpu_ticks(pid: int) -> int | None:
    """User and system time of `pid` (all its threads) in clock ticks, from /proc."""
    fields = _stat_fields(pid)
    return int(fields[11]) + int(fields[12]) if fields else None


def resident_bytes(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE") if fields else None


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (which may hold spaces): state first."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return fields if len(fields) > 21 else None


def clear_scratch(kept: set[str]) -> None:
    """Remove what a run left in the working directory (the box's /tmp, or the private
    directory of a process-only worker), so the next run starts from the same state."""
    for name in set(os.listdir(".")) - kept:
        path = os.path.join(".", name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def load_job(jobs: dict[str, child.Job], name: str) -> child.Job:
    """`module:function`, imported here in the worker so later runs find it warm."""
    if name not in jobs:
        module, _, function = name.partition(":")
        jobs[name] = getattr(importlib.import_module(module), function)
    return jobs[name]


def wait_or_kill(
    control: socket.socket,
    pid: int,
    own_pid_namespace: bool,
    scratch_cap: int | None,
    receiver: handoff.Receiver,
) -> tuple[int, bool | str]:
    """Wait for the run's exit, or kill it when the parent asks (timeout, cancel, output cap),
    when it goes away, or (`scratch_cap`, where no sized tmpfs holds the run's folder) when
    the run has written more than its cap: then the reason comes back as "scratch"."""
    killed: bool | str = False
    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        selector.register(receiver.sock, selectors.EVENT_READ)
        pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
        if pidfd is not None:
            selector.register(pidfd, selectors.EVENT_READ)
        wait = SCRATCH_POLL_SECONDS if scratch_cap is not None else None
        try:
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    return status, killed
                if scratch_cap is not None and not killed and folder_bytes(".") > scratch_cap:
                    kill_tree(pid, own_pid_namespace)
                    killed = "scratch"
                for key, _ in selector.select(timeout=wait if pidfd is not None else 0.02):
                    if key.fileobj is not control and key.fileobj != pidfd:
                        serve_handoff(selector, receiver, key.fileobj, None)
                    elif key.fileobj is control:
                        try:
                            protocol.receive(control)
                        except (protocol.ProtocolError, OSError):
                            kill_leftovers(pid, own_pid_namespace)
                            os._exit(0)
                        kill_tree(pid, own_pid_namespace)
                        killed = True
        finally:
            if pidfd is not None:
                os.close(pidfd)


def folder_bytes(path: str) -> int:
    """Bytes the files under `path` occupy on disk (what they cost the host, holes excluded)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                continue
    return total


def kill_tree(pid: int, own_pid_namespace: bool) -> None:
    """SIGKILL the run and everything it started. In our own PID namespace that is every
    process but ourselves and init; elsewhere the run's process group and our descendants."""
    if own_pid_namespace and os.getpid() <= 2:
        ignore_missing(os.kill, -1, signal.SIGKILL)
        return
    ignore_missing(os.killpg, pid, signal.SIGKILL)
    for descendant in children_of(os.getpid()):
        ignore_missing(os.kill, descendant, signal.SIGKILL)


def kill_leftovers(pid: int, own_pid_namespace: bool) -> None:
    """After a run: no process of it may survive. Orphans come back to us as subreaper, so
    killing and reaping until we have no children leaves nothing behind."""
    while True:
        kill_tree(pid, own_pid_namespace)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def children_of(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as children:
                found += [int(p) for p in children.read().split()]
        except OSError:
            continue
    return found


def become_subreaper() -> None:
    """Reap what a run leaves behind; and be undumpable, so that a run (same user) can neither
    trace the worker nor open its memory, nor take its descriptors."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def ignore_missing(kill: Callable[[int, int], None], target: int, sig: int) -> None:
    try:
        kill(target, sig)
    except (ProcessLookupError, PermissionError):
        pass
