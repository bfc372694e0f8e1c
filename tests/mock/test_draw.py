"""The draw: reproducible by seed, weighted toward due and weak cards, level-filtered, with code."""

import random
from collections import Counter
from datetime import UTC

import pytest

from app.mock.draw import Standing, draw, weight


def ids(drawn):
    return [c.card.id for c in drawn]


def test_the_same_seed_gives_the_same_draw_whatever_the_load_order(cards):
    loaded = list(cards.values())
    first = draw(loaded, 3, level="principal", rng=random.Random(7))
    second = draw(list(reversed(loaded)), 3, level="principal", rng=random.Random(7))
    assert ids(first) == ids(second)


def test_different_seeds_can_give_different_draws(cards):
    draws = {
        tuple(ids(draw(list(cards.values()), 2, level="principal", rng=random.Random(s))))
        for s in range(20)
    }
    assert len(draws) > 1


def test_cards_above_the_level_are_left_out(cards):
    for seed in range(20):
        drawn = draw(list(cards.values()), 4, level="middle", rng=random.Random(seed))
        assert "memory-metrics" not in ids(drawn)
        assert len(drawn) == 3


def test_a_code_task_is_always_included_when_a_pack_has_one(cards):
    for seed in range(30):
        drawn = draw(list(cards.values()), 1, level="principal", rng=random.Random(seed))
        assert ids(drawn) == ["loss-accumulation"]
        drawn = draw(list(cards.values()), 2, level="principal", rng=random.Random(seed))
        assert "loss-accumulation" in ids(drawn) and len(set(ids(drawn))) == 2


def test_without_code_tasks_the_draw_is_just_weighted(cards):
    plain = [c for c in cards.values() if c.card.code_task is None]
    drawn = draw(plain, 2, level="principal", rng=random.Random(1))
    assert len(drawn) == 2 and all(c.card.code_task is None for c in drawn)


def test_due_and_weak_cards_weigh_more_than_well_known_ones():
    known = weight(Standing(seen=True, last_rating="easy"))
    assert weight(Standing(seen=True, due=True, last_rating="good")) > known
    assert (
        weight(Standing(seen=True, last_rating="again"))
        > weight(Standing(seen=True, last_rating="hard"))
        > known
    )
    assert weight(Standing(seen=False)) > known


def test_weak_cards_come_up_more_often(cards):
    plain = [c for c in cards.values() if c.card.code_task is None]
    standings = {c.card.id: Standing(seen=True, last_rating="easy") for c in plain}
    standings["no-grad-eval"] = Standing(seen=True, due=True, last_rating="again", lapses=3)
    counts = Counter()
    for seed in range(300):
        counts.update(
            ids(draw(plain, 1, level="principal", rng=random.Random(seed), standings=standings))
        )
    assert counts["no-grad-eval"] > counts["retain-graph-error"] * 2
    assert counts["no-grad-eval"] > counts["memory-metrics"] * 2


def test_asking_for_no_questions_is_an_error(cards):
    with pytest.raises(ValueError, match="at least 1"):
        draw(list(cards.values()), 0, level="middle", rng=random.Random(0))


def test_standings_come_from_the_history(cards, history):
    from datetime import datetime, timedelta

    from app.mock.draw import standings_from
    from app.progress.attempt import Attempt

    history.record(
        Attempt(
            card_id="no-grad-eval",
            mode="mock",
            rating="again",
            level="junior",
            phase_seconds={"answer": 30.0},
        )
    )
    later = datetime.now(UTC) + timedelta(days=30)
    standings = standings_from(history, ["no-grad-eval", "retain-graph-error"], later)
    assert standings == {
        "no-grad-eval": Standing(seen=True, due=True, last_rating="again", lapses=0)
    }
