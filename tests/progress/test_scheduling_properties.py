"""Properties of scheduling that must hold for any sequence of ratings and gaps."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from progress_factories import T0, attempt

from app.progress.attempt import CodeResult
from app.progress.rating import RATINGS
from app.progress.scheduler import replay, review

gaps = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400))
histories = st.lists(st.tuples(st.sampled_from(RATINGS), gaps), min_size=1, max_size=25)
distinct_times = st.lists(
    st.tuples(
        st.sampled_from(RATINGS),
        st.timedeltas(min_value=timedelta(minutes=1), max_value=timedelta(days=400)),
    ),
    min_size=1,
    max_size=25,
)


def walk(steps):
    """Yield (schedule before, rating, schedule after) along a card's life."""
    schedule, at = None, T0
    for rating, gap in steps:
        at += gap
        after = review(schedule, rating, at)
        yield schedule, rating, after
        schedule = after


@settings(max_examples=300, deadline=None)
@given(histories)
def test_intervals_are_never_negative(steps):
    for _, _, after in walk(steps):
        assert after.interval >= timedelta(0)
        assert after.due >= after.last_seen


@settings(max_examples=300, deadline=None)
@given(histories)
def test_an_again_never_lengthens_the_interval(steps):
    for before, rating, after in walk(steps):
        if rating == "again" and before is not None:
            assert after.interval <= before.interval


@settings(max_examples=200, deadline=None)
@given(histories)
def test_reps_count_every_attempt_and_lapses_never_exceed_the_agains(steps):
    *_, (_, _, last) = walk(steps)
    assert last.reps == len(steps)
    assert last.lapses <= sum(1 for rating, _ in steps if rating == "again")


@settings(max_examples=200, deadline=None)
@given(distinct_times)
def test_replaying_attempts_in_any_order_gives_the_state_recording_them_live_gave(steps):
    *_, (_, _, live) = walk(steps)
    at, timed = T0, []
    for rating, gap in steps:
        at += gap
        timed.append((rating, at))
    assert replay(list(reversed(timed))) == live


@given(st.sampled_from(RATINGS), st.sampled_from(["leak", "refused", "error", "timeout", "limit"]))
def test_code_that_is_not_clean_never_rates_above_hard(rating, verdict):
    code = CodeResult(
        verdict=verdict, pattern=None, growth_bytes_per_step=0.0, retained_paths=(), code=""
    )
    assert attempt(rating=rating, code=code).rating in ("again", "hard")
