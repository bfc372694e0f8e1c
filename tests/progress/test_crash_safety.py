"""A process killed with SIGKILL in the middle of writing loses nothing it had committed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from app.progress.history import History

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from datetime import datetime, timedelta, timezone
from app.progress.attempt import Attempt
from app.progress.history import History

history = History.open()
start = datetime(2026, 1, 1, tzinfo=timezone.utc)
for n in range(100_000):
    card = f"card-{n % 40}"
    item = Attempt(card_id=card, mode="practice", rating=("good", "again", "hard")[n % 3], level="middle",
                   phase_seconds={"answer": 20.0}, key_points_missed=("a point",),
                   started_at=start + timedelta(hours=n))
    history.record(item)
    print(item.id, flush=True)   # printed only once record() has committed
"""


def test_sigkill_mid_writes_leaves_every_committed_attempt_readable(home):
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    committed = [writer.stdout.readline().strip() for _ in range(60)]
    writer.send_signal(signal.SIGKILL)
    committed += [line.strip() for line in writer.stdout if line.strip()]
    writer.wait()
    assert writer.returncode == -signal.SIGKILL

    with History.open() as history:
        stored = {a.id for a in history.attempts()}
        assert history.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        states = history.connection.execute("SELECT sum(reps) FROM card_state").fetchone()[0]
    assert set(committed) <= stored
    assert len(stored) - len(committed) <= 1  # at most the attempt being written when killed
    assert states == len(stored)  # each stored attempt was scheduled in the same transaction
