"""Fixtures for the sandbox suites: warm sandboxes shared by the whole session (closed at its
end, so no worker outlives the tests), and a `witness` that sets traps (canary
directory, loopback listener, a secret in our environment) and checks afterwards that none
was touched and that no process of the run is left."""

from __future__ import annotations

import os
import secrets
import socket

import pytest
from sandbox_witness import JOBS, SECRET_NAME, TEST_LIMITS, Witness

from checkers.sandbox import Sandbox


@pytest.fixture(scope="session")
def secret() -> str:
    """A secret in the parent's environment before any worker starts."""
    token = "grill-secret-" + secrets.token_hex(8)
    os.environ[SECRET_NAME] = token
    yield token
    os.environ.pop(SECRET_NAME, None)


def start(secret: str, isolation: str) -> Sandbox:
    return Sandbox(
        device="cpu", limits=TEST_LIMITS, isolation=isolation, job_paths=(str(JOBS),)
    ).start()


@pytest.fixture(scope="session")
def sandbox(secret):
    """The sandbox as users get it: bubblewrap where it works."""
    box = start(secret, "auto")
    yield box
    box.close()


@pytest.fixture(scope="session")
def process_sandbox(secret):
    """The fallback without bubblewrap: process isolation and rlimits only."""
    box = start(secret, "process")
    yield box
    box.close()


@pytest.fixture(params=["auto", "process"])
def either_sandbox(request):
    """Layers 3 and 4 must hold with and without bubblewrap."""
    return request.getfixturevalue("sandbox" if request.param == "auto" else "process_sandbox")


@pytest.fixture
def witness(tmp_path, secret):
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    canary_dir = tmp_path / "canaries"
    canary_dir.mkdir()
    yield Witness(canary_dir, secret, listener)
    listener.close()
