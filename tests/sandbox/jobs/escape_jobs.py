"""A test-only mode: the snippet's process with a complete escape from the policy.

`graded_with_escape` grades a leaking loop with grill's own grading job, in a process where
an attacker holds the real builtins, the real `os`, `sys`, `gc`, `socket`, and every frame:
what code that got past the policy entirely would hold. The attack named in the payload
hunts the run's key and result channel while the snippet runs (in `print`, through a
`sys.stdout` of its own), leaves code to run after the snippet has ended (that stdout's
`flush`, a gc callback, a thread, a timer's signal handler, a finalizer), and tries to break
grill's own answer path. Every forged answer carries `"forged": true`, so the test can tell a
forgery that got through from grill's verdict.
"""

from __future__ import annotations

import gc
import hmac
import json
import os
import signal
import stat
import sys
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from checkers.measure.grade import grade_job

FORGED = json.dumps({"status": "ok", "result": {"forged": True}}).encode()


def key_candidates() -> list[bytes]:
    """Everything in this process's reachable memory that could be a run's key: 32 bytes,
    or 64 hex digits, in any object the collector tracks, any cell, any frame's locals."""
    found: set[bytes] = set()

    def consider(value: object) -> None:
        if isinstance(value, (bytes, bytearray)) and len(value) == 32:
            found.add(bytes(value))
        elif isinstance(value, str) and len(value) == 64:
            try:
                found.add(bytes.fromhex(value))
            except ValueError:
                pass

    frames = list(sys._current_frames().values())
    for objects in (gc.get_objects(), frames):
        for obj in objects:
            try:
                if type(obj).__name__ == "cell":
                    consider(obj.cell_contents)
                elif isinstance(obj, dict):
                    for value in list(obj.values()):
                        consider(value)
                elif isinstance(obj, (list, tuple)):
                    for value in list(obj):
                        consider(value)
                elif hasattr(obj, "f_locals"):
                    frame = obj
                    while frame is not None:
                        for value in list(frame.f_locals.values()):
                            consider(value)
                        frame = frame.f_back
            except Exception:
                continue
    return sorted(found)


def channels() -> list[int]:
    """Every pipe and socket this process holds, past the standard streams."""
    held = []
    for fd in range(3, 1024):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            held.append(fd)
    return held


def forge(report: Callable[[str], None], send: bool = True, hunt: bool = True) -> None:
    """Sign a forged clean answer with every key candidate (`hunt`; and send it unsigned
    too) down every channel (`send`), and report what was found."""
    keys = key_candidates() if hunt else []
    messages = [FORGED + b"\n" + hmac.new(k, FORGED, "sha256").hexdigest().encode() for k in keys]
    messages.append(FORGED)
    held = channels() if send else []
    for fd in held:
        for message in messages:
            try:
                os.write(fd, message)
            except OSError:
                pass
    report(f"escape: {len(keys)} key candidates, {len(channels())} channels\n")


class Rebound:
    """A `sys.stdout` of the attacker's: forges on flush, and on every write unless
    `passing` (then writes go to the real stream)."""

    def __init__(self, real: Any, passing: bool = False):
        self.real = real
        self.passing = passing

    def write(self, text: str) -> int:
        if self.passing:
            return int(self.real.write(text))
        forge(lambda _: None)
        return len(text)

    def flush(self) -> None:
        forge(lambda _: None)


ATTACKS: dict[str, Callable[[Callable[[str], None]], None]] = {}


def attack(function: Callable[[Callable[[str], None]], None]) -> None:
    ATTACKS[function.__name__] = function


@attack
def hunt_while_running(report: Callable[[str], None]) -> None:
    """Forge while the snippet runs: from the snippet's own output, each step."""
    sys.stdout = Rebound(sys.stdout)
    forge(report)


@attack
def code_after_the_end(report: Callable[[str], None]) -> None:
    """Leave code that would run after the snippet ended: a collection callback, a thread,
    a timer's handler, a finalizer."""

    def quick(*_: object) -> None:  # cheap enough to run every few milliseconds
        forge(lambda _: None, hunt=False)

    gc.callbacks.append(quick)
    stop = threading.Event()

    def keep_forging() -> None:
        while not stop.wait(0.01):
            quick()

    threading.Thread(target=keep_forging, daemon=True).start()
    signal.signal(signal.SIGALRM, quick)
    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)

    class Trap:
        pass

    trap = Trap()
    weakref.finalize(trap, quick)
    gc.garbage.append(trap)  # kept for the end, when a sweep might drop it
    forge(report)


@attack
def only_after_the_end(report: Callable[[str], None]) -> None:
    """Leave code only grill's answer path would run: a `sys.stdout` and `sys.stderr` whose
    `flush` forges, and hooks for exceptions nobody catches."""
    sys.stdout = Rebound(sys.stdout, passing=True)
    sys.stderr = Rebound(sys.stderr, passing=True)
    sys.excepthook = lambda *_: forge(lambda _: None)
    sys.unraisablehook = lambda *_: forge(lambda _: None)
    forge(report, send=False)
    report("escape: flush and hooks armed\n")


@attack
def break_the_answer_path(report: Callable[[str], None]) -> None:
    """Forge at once, then close every channel so that grill's own answer fails."""
    forge(report)
    for fd in channels():
        try:
            os.close(fd)
        except OSError:
            pass
    report("escape: channels closed\n")


def graded_with_escape(
    payload: Mapping[str, object], finish: Callable[[Mapping[str, object]], NoReturn]
) -> object:
    """Arm the escape named by `payload["attack"]`, then grade `payload["source"]` as grill
    does."""

    def report(text: str) -> None:
        os.write(1, text.encode())

    ATTACKS[str(payload["attack"])](report)
    grading = {key: value for key, value in payload.items() if key != "attack"}
    return grade_job(grading, finish)  # type: ignore[arg-type]  # the test's GradePayload
