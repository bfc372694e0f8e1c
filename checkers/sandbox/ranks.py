"""The parent's side of a ranked run: N ranks forked together from the warm worker, the way
`torchrun --nproc-per-node N` starts them, read together, and ended together.

Each rank has three pipes: its output, its signed result, and a watch pipe on which it writes
its stack when asked (faulthandler, `child.DUMP_SIGNAL`). The worker sends, four times a
second, how much CPU time and memory each rank has used. From those the reader tells a run
that makes progress from one that has stalled: when no rank has used CPU or answered for
`Limits.stall_seconds`, it asks every rank for its stack, and a caller-given judge (`stuck`)
says from the stacks whether every rank still going waits inside a collective; if so the run
is ended as a stall. A rank that fails (raises, is refused, crashes, passes its own limit)
ends the others, as torchrun's agent does, after their stacks are taken for the report; so
does the wall clock. A rank that finishes waits (`child.answerer(linger=True)`) until all
have, so its peers never lose it in the middle of a collective.

Nothing here knows what a collective is: the stacks are text, judged by the caller.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from checkers.sandbox import protocol
from checkers.sandbox.outcome import EndedBy, Outcome, RankedOutcome
from checkers.sandbox.run_outcome import outcome_of
from checkers.verdict import ErrorInfo

if TYPE_CHECKING:
    from checkers.sandbox.limits import Limits
    from checkers.sandbox.parent import Sandbox

MASTER_ADDR = "127.0.0.1"
MASTER_PORT = 29500
"""torchrun's defaults; the ranks' network namespace is theirs alone, so no port is taken."""

DUMP_WAIT_S = 0.4
"""How long the ranks get to write their stacks once asked."""
PROGRESS_TICKS = 3
"""CPU time (clock ticks, 1/100 s) a rank must use to count as making progress."""
WATCH_BYTES = 256 * 1024
"""The most of a rank's stack dumps kept (the latest)."""

Stuck = Callable[[Mapping[int, str]], bool]
"""Given the stacks of the ranks still going (by rank), whether they all wait on each other."""

CANCEL_GRACE_S = 3.0
"""After a cancel's kill: the worker's word on its ranks, within the stop's bound."""
END_GRACE_S = 15.0
"""After the kill that ends a hung or failed run: generous for a busy machine."""


def torchrun_environment(rank: int, world: int) -> dict[str, str]:
    """What `torchrun --nproc-per-node WORLD` puts in rank RANK's environment (one node), and
    the loopback interface for gloo, the only one the ranks' network has."""
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(world),
        "GROUP_RANK": "0",
        "GROUP_WORLD_SIZE": "1",
        "ROLE_RANK": str(rank),
        "ROLE_WORLD_SIZE": str(world),
        "ROLE_NAME": "default",
        "MASTER_ADDR": MASTER_ADDR,
        "MASTER_PORT": str(MASTER_PORT),
        "TORCHELASTIC_RUN_ID": "grill",
        "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": "0",
        "GLOO_SOCKET_IFNAME": "lo",
    }


@dataclass
class RankRun:
    """One rank as the reader sees it; shaped as `parent.RunReader` is, for `run_outcome.outcome_of`."""

    rank: int
    limits: Limits
    out_fd: int
    result_fd: int
    watch_fd: int
    output: bytearray = field(default_factory=bytearray)
    result: bytearray = field(default_factory=bytearray)
    watch: bytearray = field(default_factory=bytearray)
    exit: dict[str, object] | None = None
    output_overflow: bool = False
    result_overflow: bool = False
    timed_out: bool = False
    cancelled: bool = False
    worker_lost: bool = False
    result_done: bool = False
    status: str | None = None
    """The decoded status of its answer (`ok`, `error`...), once it answered."""
    cpu_mark: int = 0
    died_alone: bool = False
    """It exited before the reader ended anything (a crash, its CPU limit, the system)."""

    @property
    def answered(self) -> bool:
        return self.result_done and bool(self.result)

    @property
    def gone(self) -> bool:
        """Exited, or answered: nothing more will come from it."""
        return self.exit is not None or self.result_done


class RankedReader:
    """Reads every rank's pipes and the worker's events until the ranked run is over."""

    def __init__(
        self,
        sandbox: Sandbox,
        ranks: list[RankRun],
        keys: list[bytes],
        deadline: float,
        stuck: Stuck | None,
    ):
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self.ranks = ranks
        self.keys = keys
        self.deadline = deadline
        self.stuck = stuck
        self.by_fd: dict[int, tuple[RankRun, str]] = {}
        for run in ranks:
            self.by_fd[run.out_fd] = (run, "out")
            self.by_fd[run.result_fd] = (run, "result")
            self.by_fd[run.watch_fd] = (run, "watch")
        self.exit: dict[str, object] | None = None
        self.ending: EndedBy | None = None
        self.failed_rank: int | None = None
        self.kill_sent_at: float | None = None
        self.dump_until: float | None = None
        self.dump_purpose = ""
        self.dumps: dict[int, str] = {}
        self.last_progress = time.monotonic()
        self.worker_lost = False
        self.limit_reason: str | None = None
        """The limit of the whole run the worker ended it for ("memory", "scratch")."""

    def collect(self) -> None:
        control = cast(socket.socket, self.sandbox._control)  # (mid-run: the worker is up)
        with selectors.DefaultSelector() as selector:
            selector.register(control, selectors.EVENT_READ)
            selector.register(self.sandbox._cancel_read, selectors.EVENT_READ)
            for pipe in self.by_fd:
                selector.register(pipe, selectors.EVENT_READ)
            open_fds = set(self.by_fd)
            while open_fds or self.exit is None:
                now = time.monotonic()
                if self.kill_sent_at is not None and now > self.kill_sent_at + self.grace():
                    self.worker_lost = True
                    return
                self.advance(now)
                if self.worker_lost:
                    return
                for key, _ in selector.select(timeout=self.wait(now)):
                    fd = key.fileobj
                    if fd is control:
                        if not self.read_event(control):
                            selector.unregister(control)
                    elif fd == self.sandbox._cancel_read:
                        drain(self.sandbox._cancel_read)
                        if self.ending is None:
                            self.ending = "cancel"
                            for run in self.ranks:
                                run.cancelled = not run.answered
                        self.kill()
                    elif not self.read_pipe(cast(int, fd)):
                        selector.unregister(fd)
                        open_fds.discard(cast(int, fd))
                if self.worker_lost:
                    return

    def wait(self, now: float) -> float:
        moments = [self.deadline, self.last_progress + self.limits.stall_seconds]
        if self.dump_until is not None:
            moments.append(self.dump_until)
        if self.kill_sent_at is not None:
            moments.append(self.kill_sent_at + self.grace())
        return max(min(moments) - now, 0.01)

    def grace(self) -> float:
        """How long the worker may take to report its killed ranks' exits before it is taken
        for lost. A cancel (Ctrl+C, a signal) keeps the stop's bound; a run's own end (a hang, a
        failed rank, its deadline) waits longer, since a loaded machine took over 3 s to reap
        ranks stuck in a rendezvous and the run was then misread as a lost worker."""
        return CANCEL_GRACE_S if self.ending == "cancel" else END_GRACE_S

    # -- what ends the run -------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Act on the clock: the end of a dump, a stall, the deadline; and end the run once
        every rank has answered."""
        if self.kill_sent_at is not None:
            return
        if self.dump_until is not None:
            if now < self.dump_until:
                return
            self.dump_until = None
            self.dumps = {
                run.rank: run.watch.decode("utf-8", errors="replace") for run in self.ranks
            }
            if self.dump_purpose == "check":
                going = {r: text for r, text in self.dumps.items() if not self.ranks[r].gone}
                if self.stuck is None or self.stuck(going):
                    self.ending = "stall"
                    self.kill()
                else:
                    self.last_progress = now  # idle but not waiting on each other: look again later
                return
            self.kill()  # the stacks for the report are in: end it
            return
        if self.ending is not None:
            return
        if all(run.gone for run in self.ranks):
            self.ending = "finished" if all(run.answered for run in self.ranks) else "failure"
            self.kill()
        elif now >= self.deadline:
            self.ending = "timeout"
            for run in self.ranks:
                run.timed_out = not run.answered
            self.dump("final")
        elif now >= self.last_progress + self.limits.stall_seconds:
            self.dump("check")

    def dump(self, purpose: str) -> None:
        for run in self.ranks:
            run.watch.clear()
        self.dump_purpose = purpose
        self.dump_until = time.monotonic() + DUMP_WAIT_S
        if not self.send({"op": "dump"}):
            self.worker_lost = True

    def fail(self, run: RankRun) -> None:
        """One rank failed: take the others' stacks, then end them all (torchrun's rule)."""
        if self.ending is None:
            self.ending = "failure"
            self.failed_rank = run.rank
            self.dump("final")

    def kill(self) -> None:
        if self.kill_sent_at is None:
            self.kill_sent_at = time.monotonic()
            self.dump_until = None
            if not self.send({"op": "kill"}):
                self.worker_lost = True

    def send(self, message: Mapping[str, object]) -> bool:
        try:
            protocol.send(cast(socket.socket, self.sandbox._control), message)
            return True
        except OSError:
            return False

    # -- reading -----------------------------------------------------------------------------

    def read_event(self, control: socket.socket) -> bool:
        """One event from the worker; False once the final `exit` came (or the worker went)."""
        try:
            event, _ = protocol.receive(control, max_bytes=64 * 1024)
        except (OSError, protocol.ProtocolError):
            self.worker_lost = True
            return False
        kind = event.get("event")
        if kind in ("limit", "exit"):
            if kind == "exit":
                self.exit = event
            reason = event.get("reason")
            if reason in ("memory", "scratch") and self.ending in (None, "stall"):
                self.ending = "limit"
                self.limit_reason = reason
            return kind != "exit"
        if kind == "sample":
            self.sampled(event.get("cpu"))
        elif kind == "rank_exit":
            rank = event.get("rank")
            if type(rank) is int and 0 <= rank < len(self.ranks):
                run = self.ranks[rank]
                run.exit = event
                signal_number = event.get("signal")
                own_signal = type(signal_number) is int and signal_number != signal.SIGKILL
                if (
                    not run.answered
                    and self.ending != "limit"
                    and (self.kill_sent_at is None or own_signal)  # SIGKILL may be the reader's
                ):
                    run.died_alone = True
                    self.fail(run)  # it died without answering (a crash, its own limit)
        return True

    def sampled(self, cpu: object) -> None:
        if not isinstance(cpu, list) or len(cpu) != len(self.ranks):
            return
        moved = False
        for run, ticks in zip(self.ranks, cpu, strict=True):
            if type(ticks) is not int:
                continue
            if not run.gone and ticks - run.cpu_mark >= PROGRESS_TICKS:
                moved = True
        if moved:
            self.progress()
            for run, ticks in zip(self.ranks, cpu, strict=True):
                if type(ticks) is int:
                    run.cpu_mark = ticks

    def progress(self) -> None:
        self.last_progress = time.monotonic()

    def read_pipe(self, fd: int) -> bool:
        """Read what is there, within the caps; False at end of file."""
        run, kind = self.by_fd[fd]
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if kind == "result":
                run.result_done = True
                self.answered(run)
            return False
        if kind == "out":
            self.progress()
            room = self.limits.raw_output_bytes - len(run.output)
            run.output += chunk[: max(room, 0)]
            if len(chunk) > room and not run.output_overflow:
                run.output_overflow = True
                self.fail(run)
        elif kind == "result":
            run.result += chunk
            if len(run.result) > self.limits.result_bytes and not run.result_overflow:
                run.result_overflow = True
                del run.result[:]
                self.fail(run)
        else:
            run.watch += chunk
            del run.watch[:-WATCH_BYTES]
        return True

    def answered(self, run: RankRun) -> None:
        """A rank's result is complete: read its status now, to end the run early on failure.
        A rank that closed its result without one died: its `rank_exit` says so, on the
        worker's channel, after any `limit` event that killed it (the pipes keep no order with
        that channel, so failing it here could blame one rank for the whole run's limit)."""
        if not run.result:
            return
        self.progress()
        body = protocol.verified(bytes(run.result), self.keys[run.rank])
        status = None
        if body is not None:
            try:
                status = protocol.decode(body).get("status")
            except protocol.ProtocolError:
                status = None
        run.status = status if isinstance(status, str) else "error"
        if run.status != "ok":
            self.fail(run)


def ranked_outcome(
    reader: RankedReader, device: str, wall_s: float, timeout_s: float
) -> RankedOutcome:
    """Each rank's Outcome, read as a single run's is (`run_outcome.outcome_of`), except for the
    ranks the reader itself ended, and how the whole run ended."""
    ending: EndedBy = "lost" if reader.worker_lost else (reader.ending or "finished")
    limit = None
    reason = reader.limit_reason
    if ending == "limit":
        limit = (
            ErrorInfo(
                "memory",
                "the ranks together added more than"
                f" {reader.limits.ranked_memory_bytes // (1024 * 1024)} MiB of memory",
            )
            if reason == "memory"
            else ErrorInfo(
                "disk",
                f"the ranks wrote more than {reader.limits.scratch_bytes // (1024 * 1024)} MiB"
                " of files",
            )
        )
    outcomes = []
    for run in reader.ranks:
        run.worker_lost = reader.worker_lost
        if run.answered:
            run.exit = {"code": 0, "signal": None}  # ended by the reader once it answered
            outcomes.append(outcome_of(run, reader.keys[run.rank], device, wall_s, timeout_s))
            continue
        if (
            ending in ("stall", "failure", "limit")
            and not run.died_alone
            and not run.output_overflow
        ):
            why = {
                "stall": "the ranks stopped making progress",
                "failure": f"rank {reader.failed_rank} failed",
                "limit": limit.message if limit else "a limit of the whole run",
            }[ending]
            outcomes.append(
                Outcome(
                    status="error",
                    result=None,
                    output=run.output.decode("utf-8", errors="replace"),
                    error=ErrorInfo("ended", f"ended before it finished: {why}"),
                    device=device,
                    wall_s=wall_s,
                )
            )
            continue
        outcomes.append(outcome_of(run, reader.keys[run.rank], device, wall_s, timeout_s))
    return RankedOutcome(
        ranks=tuple(outcomes),
        ended_by=ending,
        device=device,
        wall_s=wall_s,
        failed_rank=reader.failed_rank,
        answered=tuple(run.answered for run in reader.ranks),
        dumps=tuple(reader.dumps.get(run.rank, "") for run in reader.ranks),
        limit=limit,
    )


def drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass
