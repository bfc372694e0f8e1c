"""The parent side of the sandbox: start the warm worker, send it runs, read what comes back
with caps, and turn it into an Outcome. Imports neither torch nor the policy, so the UI and
the CLI can hold a Sandbox without paying for torch.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import re
import secrets
import selectors
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Literal, cast

from checkers.sandbox import isolation as isolation_layer
from checkers.sandbox import launcher, network, protocol, ranks, seccomp
from checkers.sandbox.ending import at_once, begin_ending, ending
from checkers.sandbox.errors import SandboxError
from checkers.sandbox.limits import MAX_RANKS, Limits
from checkers.sandbox.outcome import Outcome, RankedOutcome
from checkers.sandbox.run_outcome import outcome_of
from checkers.verdict import Device, ErrorInfo

STARTUP_SECONDS = 180.0
"""Importing torch and warming it takes seconds; on a busy machine, many."""
KILL_GRACE_SECONDS = 3.0
"""How long the worker gets to kill a run before the whole worker is torn down."""
STDERR_TAIL_BYTES = 8 * 1024


CLOSE_WAIT_S = 5.0
"""How long close() waits for a cancelled run to hand the worker back before stopping it anyway."""
ENDING_WAIT_S = 0.5
"""The same, once the process is ending (`ending`): the worker is killed anyway, at once."""
STOP_GRACE_S = 2.0
"""How long a worker told to stop may take to leave before it is killed (none when ending)."""


class Sandbox:
    """Runs `module:function` jobs on untrusted payloads in fresh processes forked from one
    warm worker, one run at a time. Use as a context manager, or call close()."""

    def __init__(
        self,
        device: Device = "auto",
        limits: Limits = Limits(),
        isolation: Literal["auto", "bubblewrap", "process"] = "auto",
        job_paths: tuple[str, ...] = (),
        warm: bool = True,
        preload: tuple[str, ...] = (),
    ):
        """`isolation`: auto uses bubblewrap where it works. `job_paths`: directories of job
        modules outside grill's own `checkers` package, bound read-only into the box.
        `preload`: job modules the worker imports before its first run. `warm`: also call
        each one's `warm()` at start so later runs start fast (for repeated runs; a single run
        is cheaper without)."""
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
        self.requested_device = device
        self.limits = limits
        self.warm = warm
        self.preload = preload
        self.timings: dict[str, float] = {}
        """Seconds the worker took to start: `start` in all, `import` and `warm-up` inside it."""
        self.device: str | None = None
        """The resolved device ("cpu" or "cuda"), known once started."""
        self.private_network: bool | None = None
        """Whether the worker's network namespace is its own (loopback only), which ranked
        runs need; known once started."""
        self._isolation_request = isolation
        self.job_paths = tuple(str(Path(p).resolve()) for p in job_paths)
        self._isolation: isolation_layer.Isolation | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._workdir: str | None = None
        self._workdir_lock: int | None = None
        self._run_as: tuple[int, int] | None = None
        """Whom the worker runs as, when started by root: a user of its own (`private_ids`)."""
        self._stderr_tail = bytearray()
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._running = False
        self._cancel_read, self._cancel_write = os.pipe()
        os.set_blocking(self._cancel_read, False)
        weakref.finalize(self, close_fds, self._cancel_read, self._cancel_write)

    def _shares_user(self) -> bool:
        """Whether the run's user has other tasks the run cannot see but its RLIMIT_NPROC
        counts: a process-only worker started by a normal user runs as that user."""
        return self._run_as is None and self._chosen_isolation().kind == "process"

    @property
    def isolation(self) -> str:
        """What protection runs get here, in words (bubblewrap, or process only); once a
        process-only worker has started, whether it has a network of its own."""
        chosen = self._chosen_isolation()
        if chosen.kind != "process" or self.private_network is None:
            return chosen.description
        if self.private_network:
            return chosen.description + "; own network namespace (loopback only)"
        return chosen.description + "; the host's network (no namespace: ranked runs refused)"

    @property
    def can_rank(self) -> bool:
        """Whether this sandbox can run ranks (its worker started in a network of its own)."""
        self.start()
        return bool(self.private_network)

    def _chosen_isolation(self) -> isolation_layer.Isolation:
        if self._isolation is None:
            self._isolation = isolation_layer.choose(self._isolation_request)
        return self._isolation

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> Sandbox:
        """Start the warm worker (torch imported, optimizer paths warmed) if not running.
        Safe to call from a UI thread that warms up while another asks for a run."""
        with self._start_lock:
            if self._process is not None and self._process.poll() is not None:
                self._stop_worker()  # it died: reap it and remove its folder before a new one
            if self._process is None:
                self._start()
        return self

    def _start(self) -> None:
        if ending():  # a thread between two runs must not start a worker behind the stop
            raise SandboxError("grill is ending, so the sandbox does not start", kind="cancelled")
        chosen = self._chosen_isolation()
        cuda_nodes = isolation_layer.host_has_cuda_devices()
        if self.requested_device == "cuda" and not cuda_nodes:
            raise SandboxError(
                "No CUDA device is available on this machine (no NVIDIA GPU was"
                " found), so nothing ran. Grade on the CPU instead (--device cpu"
                " or auto).",
                kind="device",
            )
        seccomp_fd = seccomp.filter_fd() if chosen.kind == "bubblewrap" else None
        data_fds = network.data_files() if chosen.kind == "bubblewrap" else {}
        self._run_as = isolation_layer.private_ids() if os.geteuid() == 0 else None
        argv, env = isolation_layer.worker_command(
            chosen,
            run_as=self._run_as,
            cuda=cuda_nodes and self.requested_device != "cpu",
            job_paths=self.job_paths,
            seccomp_fd=seccomp_fd,
            scratch_bytes=self.limits.scratch_bytes,
            warm=self.warm,
            preload=self.preload,
            data_fds=data_fds,
        )
        started = time.monotonic()
        _started.add(self)
        try:
            self._make_workdir()
            ready = self._launch(chosen, argv, env, seccomp_fd, tuple(data_fds.values()))
        except SandboxError as exc:
            self._stop_worker()
            if self._isolation_request != "auto" or chosen.kind != "bubblewrap":
                raise
            # bwrap ran its probe but not the worker: carry on without it, and say so.
            self._isolation = isolation_layer.fallback(str(exc).splitlines()[0])
            return self._start()
        except BaseException:  # a signal (SystemExit, KeyboardInterrupt) while it started
            self._stop_worker()
            raise
        timings = ready.get("timings")
        self.timings = {
            "start": round(time.monotonic() - started, 3),
            **(timings if isinstance(timings, dict) else {}),
        }
        cuda = bool(ready.get("cuda"))
        if self.requested_device == "cuda" and not cuda:
            self._stop_worker()
            raise SandboxError(
                "No CUDA device is usable here (torch cannot use the GPU), so"
                " nothing ran. Grade on the CPU instead (--device cpu or auto).",
                kind="device",
            )
        self.device = "cuda" if cuda and self.requested_device != "cpu" else "cpu"
        self.private_network = bool(ready.get("private_network"))

    def _make_workdir(self) -> None:
        """Name the folder before making it, so a signal that ends the process at any point
        finds it to remove (mkdtemp makes the folder before its caller learns the name).

        Its name carries this process's id, and the process holds a lock on it for as long
        as it lives (`_claim`); first, the folders of processes that died without removing
        theirs (a SIGKILL mid-batch) are swept (`sweep_stale_workdirs`)."""
        sweep_stale_workdirs()
        self._workdir = os.path.join(
            tempfile.gettempdir(), f"{WORKDIR_PREFIX}{os.getpid()}-{secrets.token_hex(8)}"
        )
        try:
            os.mkdir(self._workdir, 0o700)
        except FileExistsError:  # not ours to remove
            self._workdir = None
            raise
        self._workdir_lock = _claim(self._workdir)

    def _launch(
        self,
        chosen: isolation_layer.Isolation,
        argv: list[str],
        env: dict[str, str],
        seccomp_fd: int | None,
        data_fds: tuple[int, ...] = (),
    ) -> dict[str, object]:
        """Start the worker in the fresh work folder and wait for its hello; the caller
        removes the folder whatever goes wrong here."""
        if chosen.kind == "process" and self._run_as is not None:  # root's worker: its own user
            workdir = cast(str, self._workdir)  # _start has just made it
            os.chown(workdir, *self._run_as)
        ours, theirs = socket.socketpair()
        try:
            self._process = launcher.popen(
                argv,
                stdin=theirs.fileno(),  # what Popen takes of a socket
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self._workdir,
                start_new_session=True,
                close_fds=True,
                pass_fds=(*data_fds, *(() if seccomp_fd is None else (seccomp_fd,))),
            )
        except OSError as exc:
            ours.close()
            raise SandboxError(f"could not start the sandbox worker: {exc}") from None
        finally:
            theirs.close()
            for fd in (*data_fds, *(() if seccomp_fd is None else (seccomp_fd,))):
                os.close(fd)
        self._control = ours
        self._stderr_tail = bytearray()
        threading.Thread(target=self._drain_stderr, args=(self._process,), daemon=True).start()
        return self._await_ready()

    def _await_ready(self) -> dict[str, object]:
        control = cast(socket.socket, self._control)  # _launch has just set it
        control.settimeout(STARTUP_SECONDS)
        try:
            ready, _ = protocol.receive(control)
        except (OSError, protocol.ProtocolError) as exc:
            self._stop_worker()
            tail = self._stderr_tail.decode(errors="replace").strip()[-2000:]
            raise SandboxError(
                f"the sandbox worker did not start ({exc})" + (f":\n{tail}" if tail else "")
            ) from None
        finally:
            if self._control is not None:
                self._control.settimeout(None)
        return ready

    def _drain_stderr(self, process: subprocess.Popen[bytes]) -> None:
        """Keep the worker's own stderr from filling its pipe; the tail explains failures."""
        for line in cast(IO[bytes], process.stderr):  # a pipe: stderr=PIPE
            self._stderr_tail += line
            del self._stderr_tail[:-STDERR_TAIL_BYTES]

    def run(
        self, job: str, payload: Mapping[str, object], *, timeout_s: float | None = None
    ) -> Outcome:
        """Run `job` ("module:function", called as fn(payload) -> dict) in a fresh child."""
        with self._lock:
            self.start()
            drain(self._cancel_read)
            self._running = True
            try:
                return self._run(job, payload, timeout_s or self.limits.wall_seconds)
            finally:
                self._running = False

    def run_ranked(
        self,
        job: str,
        payloads: Sequence[Mapping[str, object]],
        *,
        timeout_s: float | None = None,
        stuck: ranks.Stuck | None = None,
    ) -> RankedOutcome:
        """Run `job` as len(payloads) ranks at once, rank r on payloads[r], each a fresh child
        of the warm worker with torchrun's environment (`ranks.torchrun_environment`), all in
        the worker's own loopback-only network, and end them together (see `ranks`).
        `stuck` judges, from the stacks of the ranks still going, whether a run whose ranks
        all sat idle for `Limits.stall_seconds` waits on itself; without it, any such run is."""
        count = len(payloads)
        if not 1 <= count <= MAX_RANKS:
            raise ValueError(f"a ranked run has 1 to {MAX_RANKS} ranks, not {count}")
        with self._lock:
            self.start()
            if not self.private_network:
                raise SandboxError(
                    "ranked runs need a network of their own, so that the ranks reach each"
                    " other and nothing else; this machine gives the sandbox none (bubblewrap"
                    " is unavailable and the kernel allows no private network namespace):"
                    " install bubblewrap, or run grill as root",
                )
            drain(self._cancel_read)
            self._running = True
            try:
                return self._run_ranked(job, payloads, timeout_s or self.limits.wall_seconds, stuck)
            finally:
                self._running = False

    def _run_ranked(
        self,
        job: str,
        payloads: Sequence[Mapping[str, object]],
        timeout_s: float,
        stuck: ranks.Stuck | None,
    ) -> RankedOutcome:
        started = time.monotonic()
        count = len(payloads)
        keys = [secrets.token_bytes(32) for _ in payloads]
        pipes = [(os.pipe(), os.pipe(), os.pipe()) for _ in payloads]
        request: protocol.RunRequest = {
            "op": "run",
            "job": job,
            "payload": payloads[0],
            "device": self.device,
            "limits": self.limits.to_dict(),
            "readable": isolation_layer.readable_paths(self.job_paths, ranked=True),
            "shared_user": self._shares_user(),
            "ranks": count,
            "payloads": [dict(p) for p in payloads],
            "environments": [ranks.torchrun_environment(r, count) for r in range(count)],
        }
        theirs = tuple(fd for triple in pipes for (_, fd) in triple)
        try:
            protocol.send(cast(socket.socket, self._control), request, theirs)
            protocol.send_keys(cast(socket.socket, self._control), keys)
            sent = True
        except OSError:
            sent = False
        finally:
            for fd in theirs:
                os.close(fd)
        runs = [
            ranks.RankRun(r, self.limits, out[0], result[0], watch[0])
            for r, (out, result, watch) in enumerate(pipes)
        ]
        reader = ranks.RankedReader(self, runs, keys, started + timeout_s, stuck)
        if sent:
            reader.collect()
        else:
            reader.worker_lost = True
        for out, result, watch in pipes:
            for fd in (out[0], result[0], watch[0]):
                os.close(fd)
        if reader.worker_lost:
            self._stop_worker()
        device = self.device or "cpu"
        return ranks.ranked_outcome(reader, device, time.monotonic() - started, timeout_s)

    def cancel(self) -> None:
        """Kill the run in progress at once (safe to call from another thread)."""
        if self._running:
            os.write(self._cancel_write, b"x")

    def close(self) -> None:
        """Stop the worker, cancelling a run in progress first (the app may close while a run
        goes on in a thread); a later run starts a fresh one."""
        self.cancel()
        locked = self._lock.acquire(timeout=ENDING_WAIT_S if ending() else CLOSE_WAIT_S)
        try:
            self._stop_worker()
        finally:
            if locked:
                self._lock.release()

    def _run(self, job: str, payload: Mapping[str, object], timeout_s: float) -> Outcome:
        started = time.monotonic()
        out_read, out_write = os.pipe()
        result_read, result_write = os.pipe()
        key = secrets.token_bytes(32)
        request: protocol.RunRequest = {
            "op": "run",
            "job": job,
            "payload": payload,
            "device": self.device,
            "limits": self.limits.to_dict(),
            "readable": isolation_layer.readable_paths(self.job_paths),
            "shared_user": self._shares_user(),
        }
        try:
            control = cast(socket.socket, self._control)  # start() has started the worker
            protocol.send(control, request, (out_write, result_write))
            protocol.send_keys(control, [key])
            sent = True
        except protocol.MessageTooLarge as exc:  # the callers' own caps should never allow it
            for fd in (out_read, result_read):
                os.close(fd)
            error = ErrorInfo(kind="internal", message=f"the run was not sent: {exc}")
            return Outcome("error", None, "", error, self.device or "cpu", 0.0)
        except OSError:
            sent = False
        finally:
            os.close(out_write)
            os.close(result_write)
        run = RunReader(self, out_read, result_read, started + timeout_s)
        if sent:
            run.collect()
        else:
            run.worker_lost = True
        os.close(out_read)
        os.close(result_read)
        if run.worker_lost:
            self._stop_worker()
        return outcome_of(run, key, self.device or "cpu", time.monotonic() - started, timeout_s)

    def _send_kill(self) -> bool:
        try:
            protocol.send(cast(socket.socket, self._control), {"op": "kill"})  # (mid-run)
            return True
        except OSError:
            return False

    def _stop_worker(self) -> None:
        process, control = self._process, self._control
        self._process = self._control = None
        hurry = ending()
        if control is not None:
            if not hurry:
                try:
                    control.setblocking(False)  # a worker that reads nothing cannot hold us
                    protocol.send(control, {"op": "stop"})
                except OSError:
                    pass
            control.close()
        if process is not None:
            if not hurry:
                try:
                    process.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
            launcher.kill_session(process)
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        if self._workdir_lock is not None:
            os.close(self._workdir_lock)
            self._workdir_lock = None
        _started.discard(self)


class RunReader:
    """Reads one run's output and result pipes and the worker's events until the run is
    over, enforcing the output and result caps and the wall-clock deadline as it goes."""

    def __init__(self, sandbox: Sandbox, out_fd: int, result_fd: int, deadline: float):
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self.out_fd, self.result_fd = out_fd, result_fd
        self.deadline = deadline
        self.output = bytearray()
        self.result = bytearray()
        self.exit: dict[str, object] | None = None
        self.timed_out = self.cancelled = self.worker_lost = False
        self.output_overflow = self.result_overflow = False
        self.kill_sent_at: float | None = None

    def collect(self) -> None:
        control = cast(socket.socket, self.sandbox._control)  # (mid-run: the worker is up)
        with selectors.DefaultSelector() as selector:
            for fileobj in (self.out_fd, self.result_fd, control, self.sandbox._cancel_read):
                selector.register(fileobj, selectors.EVENT_READ)
            open_pipes = {self.out_fd, self.result_fd}
            while open_pipes or self.exit is None:
                now = time.monotonic()
                if self.kill_sent_at is not None and now > self.kill_sent_at + KILL_GRACE_SECONDS:
                    self.worker_lost = True
                    return
                if now >= self.deadline and self.kill_sent_at is None:
                    self.timed_out = True
                    self.kill()
                wait = (
                    self.kill_sent_at + KILL_GRACE_SECONDS if self.kill_sent_at else self.deadline
                ) - now
                for key, _ in selector.select(timeout=max(wait, 0.01)):
                    fd = key.fileobj
                    if fd is control:
                        self.read_event(control, selector)
                    elif fd == self.sandbox._cancel_read:
                        drain(fd)
                        self.cancelled = True
                        self.kill()
                    elif not self.read_pipe(cast(int, fd)):  # one of the two pipes
                        selector.unregister(fd)
                        open_pipes.discard(fd)
                if self.worker_lost:
                    return

    def read_event(self, control: socket.socket, selector: selectors.BaseSelector) -> None:
        try:
            event, _ = protocol.receive(control, max_bytes=64 * 1024)
        except (OSError, protocol.ProtocolError):
            self.worker_lost = True
            return
        if event.get("event") == "exit":
            self.exit = event
            selector.unregister(control)

    def read_pipe(self, fd: int) -> bool:
        """Read what is there, within the cap; False at end of file."""
        chunk = os.read(fd, 65536)
        if not chunk:
            return False
        if fd == self.out_fd:
            room = self.limits.raw_output_bytes - len(self.output)
            self.output += chunk[: max(room, 0)]
            if len(chunk) > room and not self.output_overflow:
                self.output_overflow = True
                self.kill()
        else:
            self.result += chunk
            if len(self.result) > self.limits.result_bytes and not self.result_overflow:
                self.result_overflow = True
                del self.result[:]
                self.kill()
        return True

    def kill(self) -> None:
        if self.kill_sent_at is None:
            self.kill_sent_at = time.monotonic()
            if not self.sandbox._send_kill():
                self.worker_lost = True


def close_fds(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


WORKDIR_PREFIX = "grill-sandbox-"
_WORKDIR_NAME = re.compile(rf"{WORKDIR_PREFIX}(\d+)-[0-9a-f]{{16}}")
"""`grill-sandbox-<the owner's process id>-<16 hex digits>`: the only names a sweep touches."""


def _claim(folder: str) -> int | None:
    """Hold a lock on the work folder for as long as this process lives: the kernel lets go
    of it however the process ends (SIGKILL included), which is how a sweep tells a folder
    whose owner is gone. The descriptor is closed on exec, so no worker inherits the lock."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a file system without locks: the process id in the name still guards it
        pass
    return descriptor


def sweep_stale_workdirs(folder: str | None = None) -> list[str]:
    """Remove the work folders in the temporary folder whose owning process is gone, and say
    which. A folder is stale only when all of these hold: its name is one a sandbox makes
    (`_WORKDIR_NAME`), it is a real folder (not a link) owned by this user (or by a
    user of a root worker's own, `private_ids`), no process holds its lock, and the process its
    name carries no longer exists. Anything else is left alone."""
    folder = folder or tempfile.gettempdir()
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        named = _WORKDIR_NAME.fullmatch(entry.name)
        if named is None:
            continue
        try:
            status = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(status.st_mode) or not _ours(status.st_uid):
            continue
        if _alive(int(named.group(1))) or not _unlocked(entry.path):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        if not os.path.lexists(entry.path):
            removed.append(entry.path)
    return removed


def _ours(uid: int) -> bool:
    """This user's, or (for root) a user of a worker's own (`private_ids`)."""
    return uid == os.geteuid() or (os.geteuid() == 0 and uid in isolation_layer.PRIVATE_IDS)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or an id past any real one
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _unlocked(path: str) -> bool:
    """True when no process holds the folder's lock (taking and dropping it at once)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # no locks here: the process id decides alone
        return True
    finally:
        os.close(descriptor)
    return True


_started: set[Sandbox] = set()
"""The sandboxes with a worker or a work folder now: closed at exit by `_close_started`."""


@atexit.register
def _close_started() -> None:
    """However the program ends (an app torn down by a signal never unmounts, so its own close
    never comes), no work folder outlives it; the worker itself dies with its parent. The
    process is ending: no thread starts a worker now, and each is killed without a grace."""
    begin_ending()
    for sandbox in list(_started):
        sandbox.close()


@at_once
def _kill_started_now() -> None:
    """A second signal: kill every worker's process group and remove its folder, no waits."""
    for sandbox in list(_started):
        process, workdir = sandbox._process, sandbox._workdir
        if process is not None:
            launcher.kill_session(process, wait_s=0)
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
