"""Jobs that behave like a snippet that got past the policy: plain Python with os, sockets
and fork. They test layers 2-4 (isolation, limits, bounded output) on their own.

Loaded inside the sandbox through `Sandbox(job_paths=...)`; never imported by the tests.
"""

import ctypes
import os
import socket
import stat
import threading
import time


def write_file(payload, finish=None):
    try:
        with open(payload["path"], "w") as f:
            f.write("escaped")
        return {"wrote": True}
    except OSError as exc:
        return {"wrote": False, "error": type(exc).__name__}


def read_file(payload, finish=None):
    try:
        with open(payload["path"]) as f:
            return {"content": f.read()}
    except OSError as exc:
        return {"content": None, "error": type(exc).__name__}


def environment(payload, finish=None):
    return {"environ": dict(os.environ)}


def listing(payload, finish=None):
    return {"entries": sorted(os.listdir(payload["path"]))}


def connect(payload, finish=None):
    try:
        socket.create_connection(("127.0.0.1", payload["port"]), timeout=1).close()
        return {"connected": True}
    except OSError as exc:
        return {"connected": False, "error": type(exc).__name__}


def fork_bomb(payload, finish=None):
    forks = 0
    try:
        while forks < payload.get("max", 10_000):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            forks += 1
    except OSError as exc:
        return {"forks": forks, "error": type(exc).__name__}
    return {"forks": forks}


def thread_bomb(payload, finish=None):
    started = 0
    try:
        while started < 10_000:
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            started += 1
    except RuntimeError as exc:
        return {"threads": started, "error": type(exc).__name__}
    return {"threads": started}


def late_writer(payload, finish=None):
    """Leave a detached grandchild that writes the canary and calls the listener later,
    then either return at once or hang until the timeout."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(payload["delay"])
            write_file(payload)
            connect(payload)
        os._exit(0)
    if payload.get("hang"):
        while True:
            time.sleep(1)
    return {"returned": True}


def raw_flood(payload, finish=None):
    chunk = b"x" * (1024 * 1024)
    for _ in range(payload["megabytes"]):
        os.write(1, chunk)
    return {"flooded": True}


def memory_bomb(payload, finish=None):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))


def cpu_burn(payload, finish=None):
    while True:
        pass


def sleep(payload, finish=None):
    time.sleep(payload["seconds"])
    return {"slept": True}


def malformed_result(payload, finish=None):
    """Write garbage where the result goes, then leave without the child's own message."""
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            mode = os.fstat(fd).st_mode
            if fd > 2 and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
                os.write(fd, b"\x00{not json")
        except OSError:
            pass
    os._exit(0)


def huge_result(payload, finish=None):
    return {"blob": "a" * payload["bytes"]}


def no_result(payload, finish=None):
    os._exit(3)


def segfault(payload, finish=None):
    ctypes.string_at(0)


def returns_list(payload, finish=None):
    return [1, 2, 3]


def syscall(payload, finish=None):
    """Raw system calls by number with zero arguments: the errno each one gets."""
    libc = ctypes.CDLL(None, use_errno=True)
    results = {}
    for name, number in payload["calls"].items():
        ctypes.set_errno(0)
        libc.syscall(ctypes.c_long(number), 0, 0, 0, 0, 0)
        results[name] = ctypes.get_errno()
    return {"errno": results}


# -- what an escaped snippet would try next: host name, scratch, host files, kernel log, network --


def identity(payload, finish=None):
    return {"uid": os.getuid(), "gid": os.getgid()}


def host_name(payload, finish=None):
    return {"host": socket.gethostname()}


def fill_scratch(payload, finish=None):
    """Write many files of one MiB each into the run's folder (each under RLIMIT_FSIZE)."""
    chunk = b"x" * (1024 * 1024)
    written = 0
    try:
        for index in range(payload["files"]):
            with open(f"fill-{index}", "wb") as f:
                f.write(chunk)
            written += 1
            time.sleep(payload.get("pause", 0))
    except OSError as exc:
        return {"written": written, "error": type(exc).__name__}
    return {"written": written}


def change_host_file(payload, finish=None):
    """What Landlock does not cover: mode, owner, times, extended attributes."""
    path, done = payload["path"], {}
    for name, change in (
        ("chmod", lambda: os.chmod(path, 0o777)),
        ("chown", lambda: os.chown(path, 0, 0)),
        ("utime", lambda: os.utime(path, (0, 0))),
        ("setxattr", lambda: os.setxattr(path, b"user.grill", b"escaped")),
    ):
        try:
            change()
            done[name] = True
        except OSError as exc:
            done[name] = type(exc).__name__
    return {"changed": done}


def read_kernel_log(payload, finish=None):
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(4096)
    got = libc.klogctl(3, buffer, 4096)  # SYSLOG_ACTION_READ_ALL
    try:
        with open("/dev/kmsg", "rb") as kmsg:
            line = kmsg.read(256)
    except OSError as exc:
        line = type(exc).__name__
    return {"klogctl": got, "kmsg": line if isinstance(line, str) else "read"}


def send_udp(payload, finish=None):
    try:
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.sendto(b"escaped", ("127.0.0.1", payload["port"]))
        return {"sent": True}
    except OSError as exc:
        return {"sent": False, "error": type(exc).__name__}


def connect_unix(payload, finish=None):
    try:
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.connect(payload["path"])
        return {"connected": True}
    except OSError as exc:
        return {"connected": False, "error": type(exc).__name__}


def forge_clean_verdict(payload, finish=None):
    """Write a verdict of its own to every pipe and socket it holds, then exit as if done."""
    fake = b'{"status": "ok", "result": {"verdict": "clean"}}\n' + b"0" * 64
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            mode = os.fstat(fd).st_mode
            if fd > 2 and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
                os.write(fd, fake)
        except OSError:
            pass
    os._exit(0)


def realtime_signal(payload, finish=None):
    os.kill(os.getpid(), 40)
    time.sleep(5)


def nested_result(payload, finish=None):
    value = []
    for _ in range(payload["depth"]):
        value = [value]
    return {"nested": value}


def compiler_loaded(payload, finish=None):
    """Train a checkpointed step with each optimizer kind, then say whether the compiler got
    imported."""
    import sys

    import torch
    from torch.utils.checkpoint import checkpoint

    model = torch.nn.Linear(3, 1)
    for optimizer in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        opt = optimizer(model.parameters(), lr=0.1)
        checkpoint(model, torch.randn(4, 3), use_reentrant=False).pow(2).mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    return {
        "dynamo": type(sys.modules["torch._dynamo"]).__name__,
        "sympy": "sympy" in sys.modules,
    }


def compiler_on_demand(payload, finish=None):
    """Ask the stand-in for a part of the compiler it does not answer itself."""
    import sys

    import torch

    return {
        "found": hasattr(torch._dynamo.utils, "counters"),
        "dynamo": type(sys.modules["torch._dynamo"]).__name__,
    }


# -- what an escaped snippet would try on the worker or the next run --------------------------


def reach_other_processes(payload, finish=None):
    """Each way a run could touch a process that is not its own, and what came of it."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getppid()
    tried = {}

    class Rlimit(ctypes.Structure):
        _fields_ = [("cur", ctypes.c_ulong), ("max", ctypes.c_ulong)]

    low = Rlimit(1, 1)
    tried["prlimit_worker"] = libc.prlimit64(parent, 7, ctypes.byref(low), None)  # RLIMIT_NOFILE
    tried["kill_worker"] = libc.kill(parent, 0)
    tried["kill_everyone"] = libc.kill(-1, 0)
    tried["tgkill_worker"] = libc.syscall(234, parent, parent, 0)
    tried["setpriority_worker"] = libc.setpriority(0, parent, 19)
    tried["pidfd_open_worker"] = libc.syscall(434, parent, 0)
    tried["ptrace_worker"] = libc.ptrace(16, parent, None, None)  # PTRACE_ATTACH
    try:
        with open(f"/proc/{parent}/mem", "rb") as mem:
            mem.read(1)
        tried["worker_memory"] = 0
    except OSError:
        tried["worker_memory"] = -1
    tried["own_limit"] = libc.prlimit64(0, 7, None, ctypes.byref(Rlimit()))
    tried["own_signal"] = libc.kill(os.getpid(), 0)
    return {"tried": tried}


def new_program(payload, finish=None):
    """execve, a memfd executed as a script, and clone into new namespaces."""
    libc = ctypes.CDLL(None, use_errno=True)
    tried = {}
    try:
        os.execv("/bin/true", ["true"])
    except OSError as exc:
        tried["execve"] = exc.errno
    try:
        fd = os.memfd_create("x")
        os.write(fd, b"#!/bin/sh\ntouch /tmp/escaped\n")
        os.execv(f"/proc/self/fd/{fd}", ["x"])
    except OSError as exc:
        tried["memfd"] = exc.errno
    flags = 0x10000000 | 0x00020000 | 17  # CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD
    tried["clone_namespaces"] = libc.syscall(56, flags, 0, 0, 0, 0)
    if tried["clone_namespaces"] == 0:
        os._exit(0)
    return {"tried": tried}
