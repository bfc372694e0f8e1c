"""Histories as faults leave them: each function turns the file at a path into one kind of damage."""

from __future__ import annotations

import atexit
import functools
import hashlib
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from progress_factories import T0, attempt

from app.progress.history import History
from app.progress.schema import MIGRATIONS, statements

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
PAGE = 4096
V1_ATTEMPTS = 400


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def real_history(path: Path, attempts: int = 300) -> Path:
    """A history grill wrote, spread over a few hundred pages (tables, indexes, overflow): a copy
    of one written once per process, as writing it takes a second of CPU and every test damages
    its own copy."""
    shutil.copyfile(_written_history(attempts), path)
    return path


@functools.cache
def _written_history(attempts: int) -> Path:
    path = _process_folder() / f"history-{attempts}.db"
    with History.open(path) as history:
        history.merge(
            attempt(
                f"card-{n % 40}",
                at=T0 + timedelta(hours=n),
                answer_text=f"answer {n} " * 40,
                key_points_missed=("detach",) * (n % 2),
            )
            for n in range(attempts)
        )
    return path


@functools.cache
def _process_folder() -> Path:
    """Where this process keeps the files it copies, removed when it exits."""
    folder = Path(tempfile.mkdtemp(prefix="grill-damaged-history-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def damage_one_page(path: Path, seed: int) -> Path:
    """One page past the first (header and schema) overwritten with noise, as a bad sector leaves it."""
    data = bytearray(real_history(path).read_bytes())
    rng = random.Random(seed)
    page = rng.randrange(1, len(data) // PAGE)
    data[page * PAGE : (page + 1) * PAGE] = rng.randbytes(PAGE)
    path.write_bytes(bytes(data))
    return path


def truncate(path: Path) -> Path:
    """Cut in half, as a copy interrupted by a full disk leaves it."""
    data = real_history(path).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def with_version(version: int):
    def build(path: Path) -> Path:
        connection = sqlite3.connect(real_history(path))
        connection.execute(f"PRAGMA user_version = {version}")
        connection.close()
        return path

    build.__name__ = f"version_{version}"
    return build


def index_out_of_step(path: Path) -> Path:
    """An index whose entries no longer match their rows, as a few damaged bytes inside an index
    page leave it: every page is still well formed, so `quick_check` passes, and only the
    queries that use the index go wrong (here the index is redeclared over other columns)."""
    connection = sqlite3.connect(real_history(path))
    connection.execute("PRAGMA writable_schema = ON")
    connection.execute(
        "UPDATE sqlite_master SET sql = 'CREATE INDEX attempts_by_card ON attempts (started_at, card_id)' "
        "WHERE name = 'attempts_by_card'"
    )
    connection.commit()
    connection.close()
    return path


INTERRUPTED_MIGRATION = """
import os, signal, sqlite3, sys
from app.progress.schema import MIGRATIONS, statements
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA cache_size = 1")  # changed pages spill into the file before commit
connection.execute("BEGIN IMMEDIATE")
for statement in statements(MIGRATIONS[1]):
    connection.execute(statement)
os.kill(os.getpid(), signal.SIGKILL)
"""


def hot_journal(path: Path) -> Path:
    """A v1 history (rollback-journal mode, as v1 files can be) whose v1 -> v2 migration was
    killed mid-way: `history.db-journal` holds the pages as they were, the file holds half the
    migration. Returns the path; the v1 attempts number V1_ATTEMPTS plus the fixture's three.
    Both files are copies of a pair made once per process (a journal names no path, so the copy
    is as hot as the original, which nothing ever opens)."""
    made = _interrupted_migration()
    shutil.copyfile(made, path)
    shutil.copyfile(f"{made}-journal", f"{path}-journal")
    return path


@functools.cache
def _interrupted_migration() -> Path:
    path = _process_folder() / "hot-journal.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript((FIXTURES / "history_v1.sql").read_text())
    connection.executemany(
        "INSERT INTO attempts VALUES (?, 'filler', 'practice', 'good', 'middle', ?, '{\"answer\": 20.0}', "
        "'[]', '[\"detach\"]', '[]', ?, NULL, NULL)",
        [
            (f"v1-{n}", f"2026-02-{1 + n % 28:02d}T10:00:00.{n:06d}+00:00", "typed " * 60)
            for n in range(V1_ATTEMPTS)
        ],
    )
    connection.close()
    subprocess.run([sys.executable, "-c", INTERRUPTED_MIGRATION, str(path)], cwd=ROOT, check=False)
    assert Path(f"{path}-journal").stat().st_size > 0, (
        "the interrupted migration must leave its journal"
    )
    assert len(statements(MIGRATIONS[1])) > 1
    return path
