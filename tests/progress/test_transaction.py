"""Every write to the history is one transaction that an exception, landing anywhere (Ctrl+C
is raised at the first bytecode after a statement returns), never leaves open."""

from __future__ import annotations

import sqlite3

import pytest

from app.progress.history import History
from app.progress.transaction import write_transaction


class InterruptedAfter(sqlite3.Connection):
    """A connection on which Ctrl+C comes the moment one chosen statement has run."""

    interrupt_after: str | None = None

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
        cursor = super().execute(sql, *args)
        if sql == self.interrupt_after:
            self.interrupt_after = None
            raise KeyboardInterrupt
        return cursor


@pytest.fixture
def connection(tmp_path):
    connection = sqlite3.connect(tmp_path / "t.db", isolation_level=None, factory=InterruptedAfter)
    connection.execute("CREATE TABLE notes (text TEXT)")
    yield connection
    connection.close()


def notes(connection: sqlite3.Connection) -> list[str]:
    return [text for (text,) in connection.execute("SELECT text FROM notes ORDER BY rowid")]


@pytest.mark.parametrize(
    "statement", ["BEGIN IMMEDIATE", "INSERT INTO notes VALUES ('cut')"], ids=["begin", "body"]
)
def test_ctrl_c_anywhere_in_a_transaction_rolls_it_back_and_leaves_none_open(connection, statement):
    connection.interrupt_after = statement
    with pytest.raises(KeyboardInterrupt), write_transaction(connection):
        connection.execute("INSERT INTO notes VALUES ('cut')")
    assert not connection.in_transaction
    with write_transaction(connection):
        connection.execute("INSERT INTO notes VALUES ('kept')")
    assert notes(connection) == ["kept"]


def test_ctrl_c_after_commit_keeps_what_was_committed(connection):
    connection.interrupt_after = "COMMIT"
    with pytest.raises(KeyboardInterrupt), write_transaction(connection):
        connection.execute("INSERT INTO notes VALUES ('committed')")
    assert not connection.in_transaction
    assert notes(connection) == ["committed"]


def test_a_transaction_an_exception_left_open_is_rolled_back_by_the_next(connection):
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("INSERT INTO notes VALUES ('never committed')")
    with write_transaction(connection):
        connection.execute("INSERT INTO notes VALUES ('kept')")
    assert notes(connection) == ["kept"]


def test_ctrl_c_as_a_record_begins_leaves_the_history_writable(tmp_path, monkeypatch):
    """What `grill task watch` met: Ctrl+C as the first clean verdict was being recorded, then
    the attempt recorded at the end failed."""
    from progress_factories import attempt

    plain = sqlite3.connect

    def connect(*args: object, **options: object) -> sqlite3.Connection:
        return plain(*args, **options, factory=InterruptedAfter)  # type: ignore[misc]

    monkeypatch.setattr(sqlite3, "connect", connect)
    history = History.open(tmp_path / "history.db")
    history.connection.interrupt_after = "BEGIN IMMEDIATE"  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        history.record(attempt(card_id="interrupted"))
    history.record(attempt(card_id="recorded"))
    assert [a.card_id for a in history.attempts()] == ["recorded"]
