"""One way to write to the history: a transaction that no exception, wherever it lands, leaves open."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """`BEGIN IMMEDIATE` … `COMMIT`, rolled back on any exception. Ctrl+C (or SIGTERM's
    SystemExit) is raised at the first bytecode after a statement returns, so the `BEGIN`
    sits inside the `try`: one raised just after it would otherwise leave the connection in
    a transaction that holds the write lock and makes every later write fail ("cannot start
    a transaction within a transaction"). A transaction still open when a new one begins can
    only be one an exception cut short (a second Ctrl+C during the rollback): nothing of it
    was committed, so it is rolled back first. The connection must be in autocommit mode
    (`isolation_level=None`)."""
    if connection.in_transaction:
        connection.rollback()
    try:
        connection.execute("BEGIN IMMEDIATE")
        yield connection
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.rollback()
        raise
