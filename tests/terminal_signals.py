"""A child process started as from a terminal, whatever started the suite.

A shell starts a background job with SIGINT ignored, and `nohup` ignores SIGHUP; a child
inherits both, and Python then keeps them ignored (as grill does, on purpose, for `nohup
grill`). A test that sends Ctrl-C or a hang-up to a grill it started must start it with both
at their defaults, or it tests how the suite was launched instead of grill.
"""

from __future__ import annotations

import signal


def as_from_a_terminal() -> None:
    """`preexec_fn` for subprocess.Popen: SIGINT and SIGHUP back to their defaults."""
    for number in (signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
