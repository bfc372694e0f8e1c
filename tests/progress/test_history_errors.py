"""A history grill cannot use is refused with a clear message, and never touched."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from progress_factories import attempt

from app.progress.history import History, HistoryError


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every plain file's bytes (what is not one would never end a read)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def sqlite_file(path: Path, script: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(script)
    connection.close()
    return path


BAD_FILES = {
    "not a database": lambda path: path.write_bytes(
        b"these are my interview notes, not SQLite\n" * 200
    ),
    "from a newer grill": lambda path: sqlite_file(
        path,
        "PRAGMA application_id = 1735551340; CREATE TABLE attempts (id); PRAGMA user_version = 99;",
    ),
    "a negative version": lambda path: sqlite_file(
        path,
        "PRAGMA application_id = 1735551340; CREATE TABLE attempts (id); PRAGMA user_version = -1;",
    ),
    "version 0 with tables": lambda path: sqlite_file(
        path, "PRAGMA application_id = 1735551340; CREATE TABLE attempts (id);"
    ),
    "another program's database": lambda path: sqlite_file(
        path, "CREATE TABLE songs (title TEXT);"
    ),
}
EXPECTED = {
    "not a database": "not a readable grill history",
    "from a newer grill": "written by a newer grill (schema version 99",
    "a negative version": "its schema version -1 is not one grill ever wrote",
    "version 0 with tables": "its schema version 0 is not one grill ever wrote",
    "another program's database": "not one grill wrote",
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_file_gets_a_clear_message_and_is_left_byte_for_byte(home, case):
    path = home / "history.db"
    home.mkdir()
    BAD_FILES[case](path)
    before = snapshot(home)
    with pytest.raises(HistoryError) as raised:
        History.open()
    assert EXPECTED[case] in raised.value.message
    assert raised.value.path == path
    assert snapshot(home) == before


def test_the_message_is_one_sentence_naming_the_file_and_what_to_do(home):
    home.mkdir()
    (home / "history.db").write_bytes(b"\x00garbage" * 100)
    with pytest.raises(HistoryError) as raised:
        History.open()
    text = str(raised.value)
    assert str(home / "history.db") in text
    assert raised.value.what_to_do in text
    assert text.endswith(".") and "\n" not in text


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


SPECIAL = {
    "folder": (Path.mkdir, "a folder"),
    "pipe": (os.mkfifo, "a named pipe (FIFO)"),
    "device": (_dev_zero, "a character device"),
}


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_history_path_that_is_not_a_file_is_refused_clearly(home, kind):
    """SQLite would say 'disk I/O error' for a folder, and could wait forever on a pipe."""
    make, what = SPECIAL[kind]
    home.mkdir()
    make(home / "history.db")
    with pytest.raises(HistoryError) as raised:
        History.open()
    assert raised.value.message == f"it is {what}, not a history file"
    assert "move it aside" in raised.value.what_to_do
    assert (home / "history.db").exists() or (home / "history.db").is_symlink()


@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
@pytest.mark.parametrize("kind", SPECIAL)
def test_a_journal_beside_the_history_that_is_not_a_file_is_refused_before_sqlite_opens_it(
    home, kind, suffix
):
    """SQLite opens its journal, log and index beside the file and reads them: on a pipe it
    waits for ever, and its reads retry through any signal, SIGTERM too. The history, new or
    old, is left as it was, and so is the file in the way."""
    make, what = SPECIAL[kind]
    with History.open() as history:
        history.set_setting("welcomed", True)
    before = snapshot(home)
    companion = home / f"history.db{suffix}"
    make(companion)
    with pytest.raises(HistoryError) as raised:
        History.open()
    assert raised.value.message == (
        f"history.db{suffix} beside it, where SQLite keeps the file's journal, is {what}, "
        "not a plain file"
    )
    assert f"move history.db{suffix} aside" in raised.value.what_to_do
    assert companion.exists() or companion.is_symlink()
    assert snapshot(home) == before


def test_a_folder_that_cannot_be_created_is_reported(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv("GRILL_HOME", str(blocker / "grill"))
    with pytest.raises(HistoryError, match="folder cannot be created"):
        History.open()


def test_damage_inside_a_valid_file_surfaces_as_history_error_not_sqlite(home):
    with History.open() as history:
        history.merge(attempt(f"card-{n}", answer_text="x" * 500) for n in range(200))
    path = home / "history.db"
    data = bytearray(path.read_bytes())
    page = 4096  # keep page 1 (header and schema), trash every table and index page
    data[page:] = b"\xff" * (len(data) - page)
    path.write_bytes(bytes(data))
    with pytest.raises(HistoryError, match="not a readable grill history"):
        with History.open() as damaged:
            damaged.attempts()


def test_an_empty_file_is_taken_as_a_fresh_history(home):
    home.mkdir()
    (home / "history.db").touch()
    with History.open() as history:
        assert history.attempts() == []


def test_a_history_another_process_keeps_locked_is_waited_for_then_refused(home, monkeypatch):
    """A write waits out a short lock; one held past the busy timeout is a HistoryError, and nothing is half-written."""
    monkeypatch.setattr("app.progress.history.BUSY_TIMEOUT_S", 0.2)
    with History.open() as history:
        history.record(attempt("a1"))
    other = sqlite3.connect(home / "history.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with History.open() as history:
            with pytest.raises(HistoryError) as raised:
                history.record(attempt("a2"))
    finally:
        other.rollback()
        other.close()
    assert (
        raised.value.message == "another program (another grill?) has held it locked for over 0.2 s"
    )
    assert "nothing was written" in raised.value.what_to_do
    with History.open() as history:
        assert [a.card_id for a in history.attempts()] == ["a1"]


@pytest.mark.parametrize(
    "command", [["stats"], ["stats", "--json"], ["export"], ["import", "elsewhere.json"]]
)
def test_a_grill_home_the_user_cannot_enter_is_one_line_naming_it(tmp_path, unprivileged, command):
    """`path.exists()` raises PermissionError inside a mode-000 folder; the user gets one located line."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o000)
    done = unprivileged.grill(*command, env={"GRILL_HOME": str(home), "GRILL_PACKS": ""})
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"grill {command[0]}: Cannot use the history file {home / 'history.db'}: its folder cannot be read "
        f"(Permission denied); check the folder's permissions, or set GRILL_HOME to a folder you can use."
    ]


def test_an_export_file_inside_a_folder_the_user_cannot_enter_is_one_line(tmp_path, unprivileged):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "export.json").write_text("{}")
    locked.chmod(0o000)
    done = unprivileged.grill(
        "import", str(locked / "export.json"), env={"GRILL_HOME": str(tmp_path / "home")}
    )
    assert done.returncode == 1
    assert (
        done.stderr
        == f"grill import: {locked / 'export.json'}: cannot be read (Permission denied)\n"
    )
