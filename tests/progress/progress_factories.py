"""Builders for progress tests: attempts with plausible defaults."""

from __future__ import annotations

from datetime import datetime, timezone

from app.progress.attempt import Attempt

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def attempt(card_id: str = "autograd-basics", rating: str = "good", at: datetime = T0, **fields) -> Attempt:
    """An attempt on `card_id`; tests override only the fields they are about."""
    fields.setdefault("mode", "practice")
    fields.setdefault("tier", "middle")
    fields.setdefault("phase_seconds", {"answer": 30.0, "review": 10.0})
    return Attempt(card_id=card_id, rating=rating, started_at=at, **fields)
