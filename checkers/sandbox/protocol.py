"""Messages between the parent and the warm worker: length-prefixed JSON over a Unix socket,
with file descriptors (a run's output and result pipes) passed alongside.

Both ends use it; it imports nothing heavy. Every message is size-checked before it is read,
and anything that is not a JSON object is rejected rather than trusted.
"""

from __future__ import annotations

import hmac
import json
import os
import socket
import struct
from collections.abc import Mapping
from typing import NotRequired, TypedDict

from checkers.sandbox.limits import LimitValues

HEADER = struct.Struct("!I")
MAX_CONTROL_BYTES = 64 * 1024 * 1024
"""A request carries the candidate's source and the grader's payload; generous but bounded."""


class ProtocolError(Exception):
    """The other end sent something malformed, too large, or hung up."""


class MessageTooLarge(ProtocolError):
    """A message this end was asked to send is over `MAX_CONTROL_BYTES`: nothing was sent (the
    other end would refuse it and the connection be lost)."""


class RunRequest(TypedDict):
    """The parent's `run` request, as the worker and the run's child read it."""

    op: str
    job: str
    """`module:function` of the job."""
    payload: Mapping[str, object]
    """The job's own arguments (JSON); each job reads its own."""
    device: str | None
    limits: LimitValues
    readable: list[str]
    shared_user: bool
    ranks: NotRequired[int]
    """A ranked run: how many ranks (the parent sends `payloads` and `environments`, one
    each; the worker hands each rank its own as `payload`, `rank`, `environment`)."""
    payloads: NotRequired[list[dict[str, object]]]
    environments: NotRequired[list[dict[str, str]]]
    rank: NotRequired[int]
    environment: NotRequired[dict[str, str]]


def send(sock: socket.socket, message: Mapping[str, object], fds: tuple[int, ...] = ()) -> None:
    """Send one message; MessageTooLarge, with nothing sent, for one over `MAX_CONTROL_BYTES`."""
    body = json.dumps(message).encode()
    if len(body) > MAX_CONTROL_BYTES:
        raise MessageTooLarge(
            f"a message of {len(body):,} bytes is over the sandbox's cap of "
            f"{MAX_CONTROL_BYTES:,} bytes; nothing was sent"
        )
    if fds:
        socket.send_fds(sock, [HEADER.pack(len(body))], list(fds))
    else:
        sock.sendall(HEADER.pack(len(body)))
    sock.sendall(body)


def receive(
    sock: socket.socket, max_bytes: int = MAX_CONTROL_BYTES, max_fds: int = 0
) -> tuple[dict[str, object], list[int]]:
    """One message and the descriptors that came with it; raises ProtocolError on EOF."""
    fds: list[int] = []
    if max_fds:
        head, fds, _flags, _addr = socket.recv_fds(sock, HEADER.size, max_fds)
    else:
        head = sock.recv(HEADER.size)
    if not head:
        raise ProtocolError("the other end closed the connection")
    head += read_exactly(sock, HEADER.size - len(head))
    (length,) = HEADER.unpack(head)
    if length > max_bytes:
        raise ProtocolError(f"message of {length} bytes exceeds {max_bytes}")
    return decode(read_exactly(sock, length)), fds


def read_exactly(sock: socket.socket, count: int) -> bytes:
    chunks = []
    while count > 0:
        chunk = sock.recv(min(count, 1 << 20))
        if not chunk:
            raise ProtocolError("the connection closed in the middle of a message")
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def decode(data: bytes) -> dict[str, object]:
    """A JSON object or ProtocolError; NaN and infinities are accepted (losses can be NaN)."""
    try:
        message = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"not valid JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {type(message).__name__}")
    return message


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send_keys(sock: socket.socket, keys: list[bytes]) -> None:
    """The run's signing keys (one per rank), sent right after its request: the worker reads
    them only once it has forked the run, so no copy of a key is in the run's memory."""
    send(sock, {"op": "keys", "keys": [key.hex() for key in keys]})


def receive_keys(sock: socket.socket, count: int) -> list[bytes]:
    """The keys `send_keys` sent; ProtocolError for anything else."""
    message, _ = receive(sock, max_bytes=64 * 1024)
    keys = message.get("keys")
    if message.get("op") != "keys" or not isinstance(keys, list) or len(keys) != count:
        raise ProtocolError("expected the run's keys")
    try:
        return [bytes.fromhex(key) for key in keys]
    except (TypeError, ValueError):
        raise ProtocolError("malformed keys") from None


def signed(message: Mapping[str, object], key: bytes) -> bytes:
    """A run's result as it travels: JSON, a newline, and its HMAC under the run's key."""
    return sign(json.dumps(message, allow_nan=False).encode(), key)


def sign(body: bytes, key: bytes) -> bytes:
    """`body`, a newline, and its HMAC under the run's key (the worker signs a run's answer)."""
    return body + b"\n" + hmac.new(key, body, "sha256").hexdigest().encode()


def verified(data: bytes, key: bytes) -> bytes | None:
    """The JSON body of `data` when its signature is this run's; None otherwise."""
    body, _, signature = data.rpartition(b"\n")
    expected = hmac.new(key, body, "sha256").hexdigest().encode()
    return body if hmac.compare_digest(signature, expected) else None
