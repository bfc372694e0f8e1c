"""Builders for progress tests: attempts with plausible defaults."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from app.progress.attempt import Attempt
from questions.library import LoadedCard
from questions.model import Card

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def attempt(
    card_id: str = "autograd-basics", rating: str = "good", at: datetime = T0, **fields
) -> Attempt:
    """An attempt on `card_id`; tests override only the fields they are about."""
    fields.setdefault("mode", "practice")
    fields.setdefault("level", "middle")
    fields.setdefault("phase_seconds", {"answer": 30.0, "review": 10.0})
    return Attempt(card_id=card_id, rating=rating, started_at=at, **fields)


def loaded_card(
    card_id: str, pack: str = "autograd", *, level: str = "middle", basic: int = 20, solid: int = 50
) -> LoadedCard:
    """A valid card with the given budgets; its text is filler the stats never read."""
    card = Card.model_validate(
        {
            "id": card_id,
            "question": f"Question {card_id}?",
            "level": level,
            "importance": "must know",
            "frequency": 50,
            "tags": ["autograd"],
            "key_points": [{"point": f"point {n}"} for n in range(3)],
            "basic": {"text": "short answer", "seconds": basic},
            "solid": {"text": "longer answer", "seconds": solid},
            "tiers": {
                name: f"{name} answer" for name in ("junior", "middle", "senior", "principal")
            },
            "deep_dive": "More.",
            "examples": [{"language": "python", "code": "x = 1", "note": "an example"}],
            "follow_ups": [{"question": "And then?", "answer": "Then this."}],
            "red_flags": [{"flag": "a wrong claim"}],
        }
    )
    return LoadedCard(card=card, path=Path(f"/packs/{pack}/{card_id}.yaml"), pack=pack)
