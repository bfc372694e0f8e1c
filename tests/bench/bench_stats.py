"""How long the stats and home's due queue take with 100,000 attempts in the history.

Prints figures; asserts nothing (timings on a shared machine are noisy). Goal: stats under
0.5 s. Also prints the v1-style JSON aggregate next to the v2 table it was replaced by.
Run: .venv/bin/python tests/bench/bench_stats.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "progress"))

from progress_factories import loaded_card  # noqa: E402

from app.progress.attempt import Attempt  # noqa: E402
from app.progress.history import History  # noqa: E402
from app.progress.stats import compute_stats  # noqa: E402
from app.progress.transfer import export_document, import_file  # noqa: E402

ATTEMPTS, PACKS, CARDS_PER_PACK, REPEAT = 100_000, 8, 50, 5
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


def timed(action, repeat: int = REPEAT) -> tuple[float, object]:
    """Median wall time of `repeat` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def fake_attempts(card_ids: list[str], rng: random.Random):
    span = timedelta(days=730).total_seconds()
    for _ in range(ATTEMPTS):
        yield Attempt(
            card_id=rng.choice(card_ids),
            mode=rng.choice(("practice", "mock")),
            rating=rng.choice(("again", "hard", "good", "good", "easy")),
            level=rng.choice(("junior", "middle", "senior", "principal")),
            phase_seconds={"answer": rng.uniform(5, 90), "review": rng.uniform(5, 40)},
            key_points_missed=tuple(f"point {rng.randrange(5)}" for _ in range(rng.randrange(3))),
            red_flags_said=(f"flag {rng.randrange(3)}",) if rng.random() < 0.1 else (),
            started_at=NOW - timedelta(seconds=rng.uniform(0, span)),
        )


def main() -> None:
    cards = [
        loaded_card(f"card-{p}-{n}", f"pack-{p}")
        for p in range(PACKS)
        for n in range(CARDS_PER_PACK)
    ]
    card_ids = [c.card.id for c in cards]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.db"
        with History.open(path) as history:
            start = time.perf_counter()
            added = history.merge(fake_attempts(card_ids, random.Random(7)))
            fill = time.perf_counter() - start
        print(
            f"fill: {added:,} attempts, {len(cards)} cards, merged in one transaction: {fill:.2f} s "
            f"({path.stat().st_size / 1e6:.1f} MB)"
        )

        with History.open(path) as history:
            stats_time, stats = timed(lambda: compute_stats(history, cards, now=NOW))
            print(
                f"compute_stats: {stats_time * 1000:.0f} ms median of {REPEAT} (goal < 500 ms); "
                f"{stats.attempts:,} attempts, {stats.cards_seen} seen, {stats.due_today} due"
            )

            db = history.connection
            table_time, _ = timed(
                lambda: db.execute(
                    "SELECT card_id, text, count(*) AS n FROM misses WHERE kind = 'key_point' "
                    "GROUP BY card_id, text ORDER BY n DESC LIMIT 10"
                ).fetchall()
            )
            json_time, _ = timed(
                lambda: db.execute(
                    "SELECT a.card_id, j.value, count(*) AS n FROM attempts AS a, json_each(a.key_points_missed) AS j "
                    "GROUP BY a.card_id, j.value ORDER BY n DESC LIMIT 10"
                ).fetchall()
            )
            print(
                f"most-missed key points: v2 misses table {table_time * 1000:.1f} ms vs v1 json_each "
                f"{json_time * 1000:.1f} ms ({json_time / table_time:.1f}x)"
            )

        def open_home() -> list[str]:
            with History.open(path) as fresh:
                return fresh.due_queue(card_ids, now=NOW)

        home_time, queue = timed(open_home)
        print(
            f"open history + due queue for home: {home_time * 1000:.0f} ms median of {REPEAT}; "
            f"{len(queue)} cards queued"
        )

        exported = Path(folder) / "export.json"
        with History.open(path) as history:
            export_time, _ = timed(
                lambda: exported.write_text(json.dumps(export_document(history, now=NOW))), 1
            )
        with History.open(Path(folder) / "imported.db") as fresh:
            import_time, result = timed(lambda: import_file(fresh, exported), 1)
            again_time, again = timed(lambda: import_file(fresh, exported), 1)
        print(
            f"export JSON: {export_time:.2f} s ({exported.stat().st_size / 1e6:.1f} MB); import into an empty "
            f"history: {import_time:.2f} s ({result.added:,} added); same file again: {again_time:.2f} s "
            f"({again.added} added)"
        )


if __name__ == "__main__":
    main()
