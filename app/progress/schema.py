"""The history database's schema, as the ordered list of migrations that builds it.

`MIGRATIONS[n]` takes a database from version n to n + 1; the version lives in SQLite's
`user_version`, and `application_id` marks the file as grill's. A fresh file runs them all.
Never edit a shipped step: add a new one, and keep the old version's SQL as a test fixture.
"""

from __future__ import annotations

import sqlite3

from app.progress.transaction import write_transaction

APPLICATION_ID = 0x6772696C  # "gril"

V1_TABLES = """
CREATE TABLE attempts (
    id TEXT PRIMARY KEY,
    card_id TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('practice', 'mock')),
    rating TEXT NOT NULL CHECK (rating IN ('again', 'hard', 'good', 'easy')),
    tier TEXT NOT NULL,
    started_at TEXT NOT NULL,          -- ISO 8601, UTC, microseconds
    phase_seconds TEXT NOT NULL,       -- JSON object
    key_points_hit TEXT NOT NULL,      -- JSON list
    key_points_missed TEXT NOT NULL,   -- JSON list
    red_flags_said TEXT NOT NULL,      -- JSON list
    answer_text TEXT NOT NULL,
    code TEXT,                         -- JSON CodeResult, or NULL
    session_id TEXT
);
CREATE INDEX attempts_by_card ON attempts (card_id, started_at);
CREATE TABLE card_state (
    card_id TEXT PRIMARY KEY,
    memory TEXT NOT NULL,              -- fsrs Card.to_dict() as JSON
    due TEXT NOT NULL,
    reps INTEGER NOT NULL,
    lapses INTEGER NOT NULL,
    last_rating TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    introduced_at TEXT NOT NULL
);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL                -- JSON
);
"""

# v2: the statistics must stay SQL aggregates at 100,000 attempts, so what they group by
# moves out of JSON: the answer time and "seen before" become columns, misses a table.
V2_STATS_COLUMNS = """
ALTER TABLE attempts ADD COLUMN answer_seconds REAL;
ALTER TABLE attempts ADD COLUMN is_review INTEGER NOT NULL DEFAULT 0;
UPDATE attempts SET answer_seconds = json_extract(phase_seconds, '$.answer');
UPDATE attempts SET is_review = EXISTS (
    SELECT 1 FROM attempts AS earlier
    WHERE earlier.card_id = attempts.card_id
      AND (earlier.started_at < attempts.started_at
           OR (earlier.started_at = attempts.started_at AND earlier.id < attempts.id))
);
CREATE INDEX attempts_by_time ON attempts (started_at);
CREATE TABLE misses (
    attempt_id TEXT NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
    card_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('key_point', 'red_flag')),
    text TEXT NOT NULL
);
CREATE INDEX misses_by_text ON misses (kind, card_id, text);
INSERT INTO misses (attempt_id, card_id, kind, text)
    SELECT a.id, a.card_id, 'key_point', j.value FROM attempts AS a, json_each(a.key_points_missed) AS j;
INSERT INTO misses (attempt_id, card_id, kind, text)
    SELECT a.id, a.card_id, 'red_flag', j.value FROM attempts AS a, json_each(a.red_flags_said) AS j;
"""

# v3: a card can be taken out of the queues without a rating: suspended until the candidate
# brings it back, or buried until a given time (the start of the next day).
V3_CARD_FLAGS = """
CREATE TABLE card_flags (
    card_id TEXT PRIMARY KEY,
    suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    buried_until TEXT                  -- ISO 8601, UTC: out of the queues until then
);
"""

# v4: an attempt remembers whether the code task's reference solution was shown before it, and
# how (earned, asked for before it was earned, or pasted back), since the last two cap it.
V4_SOLUTION_VIEWED = """
ALTER TABLE attempts ADD COLUMN solution_viewed TEXT
    CHECK (solution_viewed IS NULL OR solution_viewed IN ('earned', 'asked', 'copied'));
"""

MIGRATIONS: tuple[str, ...] = (
    f"PRAGMA application_id = {APPLICATION_ID};\n{V1_TABLES}",
    V2_STATS_COLUMNS,
    V3_CARD_FLAGS,
    V4_SOLUTION_VIEWED,
)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(connection: sqlite3.Connection) -> int:
    return connection.execute("PRAGMA user_version").fetchone()[0]


def statements(script: str) -> list[str]:
    """Split a migration into statements, so a step can run inside one explicit transaction
    (`executescript` would commit whatever transaction is open first)."""
    found, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"unterminated SQL statement in migration: {pending.strip()[:60]}")
    return found


def migrate(connection: sqlite3.Connection) -> list[int]:
    """Bring the database up to `SCHEMA_VERSION`, one transaction per step.

    Returns the versions reached. The version is read again under the write lock, so two
    processes opening a fresh file at once do not both run a step. A step that fails rolls
    back whole, leaving the file at the last version that completed. The connection must be
    in autocommit mode (`isolation_level=None`).
    """
    reached: list[int] = []
    while schema_version(connection) < SCHEMA_VERSION:
        with write_transaction(connection):
            version = schema_version(connection)
            if version < SCHEMA_VERSION:
                for statement in statements(MIGRATIONS[version]):
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {version + 1}")
                reached.append(version + 1)
    return reached
