"""One run, in a process forked from the warm worker: limits, the job, one result message.

Everything the job raises is turned into a result here, so the parent never receives a
traceback of grill; the candidate's own traceback (their frames only) travels as data.
"""

from __future__ import annotations

import faulthandler
import gc
import io
import json
import os
import random
import re
import resource
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Mapping
from typing import NoReturn, cast

from checkers.measurements import RunFailed
from checkers.sandbox import handoff, landlock, seccomp
from checkers.sandbox.limits import LimitValues
from checkers.sandbox.protocol import RunRequest

PR_SET_PDEATHSIG = 1
CRASH_LOG = ".grill-crash"
"""Where faulthandler writes the stack when the run dies of a fatal signal; in the run's
own scratch directory, which the worker clears after every run (each rank of a ranked run
has its own, `crash_log(rank)`)."""
DUMP_SIGNAL = signal.SIGUSR1
"""On this signal a rank writes every thread's Python stack to its watch pipe (faulthandler,
from C, so a rank blocked inside a collective answers too): how the parent names what each
rank waits in when a ranked run stalls."""
CRASH_FRAME = re.compile(r'File "(.*)", line (\d+) in ')
FILE_CAP_HIT: list[bool] = []
"""Set when a write of the run's went past its file size limit (SIGXFSZ)."""
FILE_SIZE = "the run wrote a file past its size limit"


Answer = Callable[[Mapping[str, object]], NoReturn]
"""Sends the run's one message to the parent, and ends the process."""
Job = Callable[[Mapping[str, object], Answer], Mapping[str, object]]
"""`module:function`: called with the payload and a `finish` that ends the run early; it
returns its result, or raises `RunFailed` to end the run without one."""


def run(
    job: Job,
    request: RunRequest,
    out_fd: int,
    handoff_fd: int,
    control: socket.socket,
    *,
    watch_fd: int | None = None,
) -> NoReturn:
    """Never returns: the process exits once the answer is handed off. A rank of a ranked run
    (`request["rank"]` set, with its `watch_fd`) gets the environment torchrun would give it,
    may use loopback sockets, and once it has answered waits to be ended with the others, so
    that its peers never see it vanish in the middle of their collectives."""
    rank = request.get("rank")
    ranked = rank is not None
    streams: list[io.TextIOWrapper] = []
    answer = answerer(handoff_fd, streams, linger=ranked)
    try:
        control.close()
        streams.extend(isolate(out_fd))
        # The run's folder is the one place the snippet may write, so it is tempfile's default
        # too: TemporaryFile() or mkdtemp() with no dir= would reach for the host's /tmp.
        tempfile.tempdir = os.getcwd()
        if ranked:
            os.environ.update(request.get("environment") or {})
            watch(cast(int, watch_fd))
        report_fatal_signals(crash_log(rank))
        apply_limits(
            request["limits"],
            address_space=request["device"] != "cuda",
            shared_user=request["shared_user"],
            ranks=request.get("ranks") or 1,
        )
        if request["device"] != "cuda":  # the driver's device files and /sys: untried here
            landlock.restrict(request["readable"], [os.getcwd(), "/dev/null"], tcp=ranked)
        seccomp.install(seccomp.run_program(os.getpid(), ranked=ranked))
        message = call(job, request["payload"], answer)
    except BaseException as exc:  # the child must always answer, whatever broke
        message = internal_error(exc)
    answer(message)


def answerer(handoff_fd: int, streams: list[io.TextIOWrapper], *, linger: bool = False) -> Answer:
    """The only way this run speaks to the parent, made before any snippet code runs: once
    the snippet's code has ended, a process forked for the purpose (so no thread of the
    snippet's comes along) stops everything through which snippet code could run (signals,
    trace and profile functions, the cyclic collector, whatever `sys.stdout` was rebound to:
    only grill's own `streams` are flushed), checks the message is plain data, and hands it to
    the worker through a pipe it makes then (`handoff`). The run holds no key and no result
    pipe at any time: the worker signs. (A run that used up its task limit, so that no
    process can be forked, answers from its own process, sealed the same way; only a thread
    started past the policy could still run beside it.) A run whose answer path fails exits
    `ANSWER_FAILED`, which the worker reports as `tampered`. `linger` (a rank): close the output pipes, so the
    parent sees the rank done, and wait to be killed."""
    fd = os.dup2(handoff_fd, unused_descriptor())
    os.close(handoff_fd)
    fork, wait, exit_now = os.fork, os.waitpid, os._exit

    def answer(message: Mapping[str, object]) -> NoReturn:
        try:
            try:
                pid = fork()
            except BlockingIOError:  # the run used up its task limit: answer from here
                exit_now(0 if hand_off(fd, message, streams) else handoff.ANSWER_FAILED)
            if pid == 0:
                exit_now(0 if hand_off(fd, message, streams) else handoff.ANSWER_FAILED)
            _, status = wait(pid, 0)
            answered = status == 0
            if answered and linger:
                os.close(fd)
                quiet_output()
                while True:
                    signal.pause()
        except BaseException:
            answered = False
        exit_now(0 if answered else handoff.ANSWER_FAILED)

    return answer


def hand_off(fd: int, message: Mapping[str, object], streams: list[io.TextIOWrapper]) -> bool:
    """In the answering process (single-threaded, forked after the snippet ended): seal it,
    flush grill's own output streams, and hand the message off; False where that failed."""
    try:
        seal()
        for stream in streams:
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            data = plain_json(message)
        except BaseException as exc:  # not plain data, nested too deeply, or stranger still
            data = plain_json(internal_error(exc))
        handoff.send(socket.socket(fileno=fd), data)
        return True
    except BaseException:
        return False


def seal() -> None:
    """No snippet code runs in this process from here: no signal handler (every signal that
    can be is blocked), no trace or profile function, no collection (so no `__del__` of a
    cycle, no weakref or gc callback; nothing here drops the last reference to a snippet
    object)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    gc.disable()
    sys.settrace(None)
    sys.setprofile(None)


PLAIN_SCALARS = (str, int, float, bool, type(None))


def plain_json(message: object) -> bytes:
    """`message` as JSON, when it is made of exact dicts (string keys), lists, tuples,
    strings, numbers, booleans and None only; TypeError otherwise. Checked by exact type, so encoding
    calls no method a snippet could have defined on a subclass."""
    stack = [message]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            for key, item in cast(dict[object, object], value).items():
                if type(key) is not str:
                    raise TypeError(f"a result key of type {type(key).__name__}")
                stack.append(item)
        elif kind is list or kind is tuple:
            stack.extend(cast("list[object] | tuple[object, ...]", value))
        elif kind not in PLAIN_SCALARS:
            raise TypeError(f"a result value of type {kind.__name__}")
    return json.dumps(message, allow_nan=False).encode()


def quiet_output() -> None:
    """A rank that has answered writes nothing more: its output pipe ends (later writes of
    torch's own threads go to /dev/null)."""
    try:
        null = os.open("/dev/null", os.O_WRONLY)
    except OSError:
        null = None
    for stream_fd in (1, 2):
        try:
            if null is not None:
                os.dup2(null, stream_fd)
            else:
                os.close(stream_fd)
        except OSError:
            pass


def watch(watch_fd: int) -> None:
    """Stacks on DUMP_SIGNAL go to the watch pipe, moved to an unremarkable descriptor."""
    fd = os.dup2(watch_fd, unused_descriptor())
    os.close(watch_fd)
    faulthandler.register(DUMP_SIGNAL, file=fd, all_threads=True, chain=False)


def crash_log(rank: int | None) -> str:
    """The file faulthandler writes a run's (or a rank's) stack to on a fatal signal."""
    return CRASH_LOG if rank is None else f"{CRASH_LOG}-{rank}"


def isolate(out_fd: int) -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    """Own session (so the whole group can be killed), die with the worker, output to the
    capped pipe on both stdout and stderr; the streams made for it, which only grill flushes."""
    os.setsid()
    set_parent_death_signal()
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(out_fd)
    out, err = (
        io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), errors="replace", line_buffering=True)
        for fd in (1, 2)
    )
    sys.stdout, sys.stderr = out, err
    return out, err


def report_fatal_signals(log: str = CRASH_LOG) -> None:
    """Have faulthandler write the stack to `log` if the run dies of a fatal signal; a
    run whose directory cannot take the file goes on without it."""
    try:
        # every thread: a rank's collective fails in one of gloo's, its snippet waits in main
        faulthandler.enable(open(log, "w"), all_threads=True)
    except OSError:
        pass


def crash_line(filename: str, log: str = CRASH_LOG) -> int | None:
    """After a run died of a fatal signal (a C stack overflow, a segfault in native code): the
    line of the innermost frame of `filename`, the candidate's code, in faulthandler's dump."""
    try:
        with open(log, errors="replace") as log_file:
            dump = log_file.read(64 * 1024)
    except OSError:
        return None
    for match in CRASH_FRAME.finditer(dump):  # faulthandler lists the innermost frame first
        if match.group(1) == filename:
            return int(match.group(2))
    return None


def set_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def apply_limits(
    limits: LimitValues, *, address_space: bool, shared_user: bool, ranks: int = 1
) -> None:
    """`shared_user`: the run's uid is shared with the user's other processes (no user
    namespace), and RLIMIT_NPROC counts them all, so the limit goes on top of their count.
    The ranks of a ranked run share one uid too: the task limit is `processes` per rank,
    counted over all of them; memory, CPU and files stay per process, so per rank."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"],) * 2)
    # Python ignores SIGXFSZ, so a write past the cap fails with whatever its writer makes of
    # EFBIG (torch.save: a C++ enforce fail): the run notes it, and a run that then fails
    # failed of the limit (one whose writer shrugged it off, a profiler's trace, goes on)
    signal.signal(signal.SIGXFSZ, lambda *_: FILE_CAP_HIT.append(True))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"],) * 2)
    if hasattr(resource, "RLIMIT_NPROC"):
        processes = limits["processes"] * ranks + (tasks_of(os.getuid()) if shared_user else 0)
        resource.setrlimit(resource.RLIMIT_NPROC, (processes,) * 2)
    current = current_address_space()
    if address_space and current is not None:
        ceiling = current + limits["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


def tasks_of(uid: int) -> int:
    """Processes and threads of `uid` visible in /proc (0 where there is no /proc)."""
    total = 0
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                total += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return total


def current_address_space() -> int | None:
    """The warm worker's virtual size, which the run inherits and then may grow by its
    memory limit; None where /proc is missing."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def unused_descriptor() -> int:
    """A free descriptor number picked at random (below the usual 1024 soft limit)."""
    pick = random.SystemRandom()
    while True:
        fd = pick.randrange(300, 1000)
        try:
            os.fstat(fd)
        except OSError:
            return fd


def call(job: Job, payload: Mapping[str, object], answer: Answer) -> dict[str, object]:
    """Run the job; it may also finish early through `finish` (a spent budget)."""

    def finish(result: Mapping[str, object]) -> NoReturn:
        answer({"status": "ok", "result": result})

    try:
        result = job(payload, finish)
    except RunFailed as exc:
        if FILE_CAP_HIT and exc.status == "error":  # whichever writer hit it, and however
            return failure("limit", "file size", FILE_SIZE, exc.line)  # it worded the error
        return failure(exc.status, exc.kind, exc.message, exc.line, exc.traceback)
    except MemoryError:
        return failure("limit", "memory", "the run ran out of its memory limit")
    if not isinstance(result, dict):
        return internal_error(TypeError(f"the job returned {type(result).__name__}, not a dict"))
    return {"status": "ok", "result": result}


def failure(
    status: str, kind: str, message: str, line: int | None = None, traceback: str = ""
) -> dict[str, object]:
    return {
        "status": status,
        "error": {"kind": kind, "message": message, "line": line},
        "traceback": traceback,
    }


def internal_error(exc: BaseException) -> dict[str, object]:
    return failure(
        "error", "internal", f"grill could not run this snippet ({type(exc).__name__}: {exc})"
    )
