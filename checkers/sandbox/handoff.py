"""How a run's answer reaches the worker once the snippet's code has ended, and nothing sooner.

While the snippet runs, its process holds no key and no result pipe: only the hand-off
socket, which carries exactly one thing, a pipe passed with SCM_RIGHTS. grill's answer path
makes that pipe after the snippet's code has ended, in a single-threaded process forked for
it (`child.answerer`), and writes the answer into it framed by its length. The worker takes
the first pipe, reads it to its end, and signs what it read with the run's key, which it is
given only after the run was forked, so no copy of it is in the run's memory either. Bytes
written to the socket without a pipe, a second pipe, or a frame cut short make the run
`tampered`: a snippet that writes to every descriptor it can find forges nothing.

Both ends use this module; it imports nothing heavy.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from dataclasses import dataclass, field

from checkers.sandbox.protocol import sign

FRAME = struct.Struct("!Q")
"""The answer's length, ahead of it in the pipe: a pipe that ends early is not an answer."""
ANSWER_FAILED = 86
"""The exit status of a run whose own answer path failed (`child.answerer`): `tampered`."""
TAMPERED = (
    "the run's answer did not come intact from grill's own answer path after the snippet"
    " ended (something else wrote to the hand-off, or the answer path was broken), so it was"
    " thrown away: not graded"
)


def send(sock: socket.socket, data: bytes) -> None:
    """The run's side: a fresh pipe, passed to the worker, then the framed answer into it."""
    read_end, write_end = os.pipe()
    try:
        socket.send_fds(sock, [b"a"], [read_end])
    finally:
        os.close(read_end)
    try:
        view = memoryview(FRAME.pack(len(data)) + data)
        while view:
            view = view[os.write(write_end, view) :]
    finally:
        os.close(write_end)


@dataclass
class Receiver:
    """The worker's side of one run's hand-off: `on_socket` and `on_pipe` when readable;
    `answer()` once the pipe has ended. `cap`: the most bytes kept; an answer past it is
    read to its end (so the run is not left blocked) and comes back as `overflow`."""

    sock: socket.socket
    cap: int
    pipe: int | None = None
    data: bytearray = field(default_factory=bytearray)
    broken: bool = False
    overflow: bool = False
    ended: bool = False
    socket_closed: bool = False

    def on_socket(self) -> int | None:
        """Read what came on the socket; the pipe passed on it, the first time one comes
        (read to its end even when the hand-off is broken, so no writer is left blocked).
        Anything but one pipe alone, once, breaks the hand-off."""
        try:
            message, fds, _flags, _address = socket.recv_fds(self.sock, 64, 4)
        except BlockingIOError:
            raise
        except OSError:
            message, fds = b"", []
        if not message and not fds:
            self.socket_closed = True
            return None
        if message != b"a" or len(fds) != 1 or self.pipe is not None or self.ended:
            self.broken = True
        if fds and self.pipe is None and not self.ended:
            self.pipe, fds = fds[0], fds[1:]
            for fd in fds:
                os.close(fd)
            return self.pipe
        for fd in fds:
            os.close(fd)
        return None

    def on_pipe(self) -> bool:
        """Read what is there; True once the pipe has ended (then it is closed)."""
        assert self.pipe is not None
        try:
            chunk = os.read(self.pipe, 1 << 16)
        except BlockingIOError:
            raise
        except OSError:
            chunk = b""
        if chunk:
            if len(self.data) + len(chunk) > self.cap + FRAME.size:
                self.overflow = True
            else:
                self.data += chunk
            return False
        os.close(self.pipe)
        self.pipe = None
        self.ended = True
        return True

    def reply(self, key: bytes, run_exit_code: int | None) -> bytes | None:
        """What the worker sends the parent for this run: the answer signed with the run's
        key; past the cap, more bytes than the parent takes; `tampered`, signed, when the
        hand-off was broken or the run's own answer path failed; None when the run never
        answered (the parent judges it by how it ended)."""
        body = self.answer()
        if self.overflow:
            return bytes(self.cap + 1)
        if body is not None:
            return sign(body, key)
        if self.broken or self.ended or run_exit_code == ANSWER_FAILED:
            tampered = {"status": "error", "error": {"kind": "tampered", "message": TAMPERED}}
            return sign(json.dumps(tampered).encode(), key)
        return None

    def answer(self) -> bytes | None:
        """The answer, when one came whole through a single pipe; None otherwise."""
        if self.broken or self.overflow or not self.ended or len(self.data) < FRAME.size:
            return None
        (length,) = FRAME.unpack_from(self.data)
        body = bytes(self.data[FRAME.size :])
        return body if len(body) == length else None

    def finish(self) -> None:
        """Once the run's processes are gone: read what is left, without waiting."""
        self.sock.setblocking(False)
        if self.pipe is not None:
            os.set_blocking(self.pipe, False)
        while not self.socket_closed:
            try:
                fd = self.on_socket()
            except BlockingIOError:
                break
            if fd is not None:
                os.set_blocking(fd, False)
        while self.pipe is not None:
            try:
                self.on_pipe()
            except BlockingIOError:
                break

    def close(self) -> None:
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None
        self.sock.close()
