"""Suite-wide fixtures."""

import pytest

from checkers.api import close_shared_sandboxes


@pytest.fixture(autouse=True, scope="module")
def stop_shared_grading_workers():
    """Commands run in-process (`grill check`, `grill lint --run`) keep a warm sandbox worker
    for the life of the process; stop it after each module, so tests that count child
    processes only see their own."""
    yield
    close_shared_sandboxes()
