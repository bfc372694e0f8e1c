"""Recording attempts: what is stored, what is scheduled, and what is idempotent."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from progress_factories import T0, attempt

from app.progress.attempt import CodeResult
from app.progress.history import History


@pytest.fixture
def history():
    with History.open() as opened:
        yield opened


def test_open_creates_the_file_under_grill_home(home):
    with History.open() as history:
        assert history.path == home / "history.db"
    assert (home / "history.db").is_file()


def test_the_database_is_in_wal_mode(history):
    assert history.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_attempt_comes_back_as_it_was_recorded(history):
    code = CodeResult(
        verdict="clean",
        pattern="flat",
        growth_bytes_per_step=0.0,
        retained_paths=(),
        code="loss.item()",
    )
    recorded = attempt(
        mode="mock",
        rating="easy",
        level="senior",
        key_points_hit=("a", "b"),
        key_points_missed=("c",),
        red_flags_said=("d",),
        answer_text="why",
        code=code,
        session_id="s1",
        phase_seconds={"answer": 12.5},
    )
    history.record(recorded)
    assert history.attempts() == [recorded]


def test_recording_the_same_attempt_twice_changes_nothing(history):
    once = attempt()
    history.record(once)
    before = history.progress(once.card_id)
    history.record(once)
    assert history.attempts() == [once]
    assert history.progress(once.card_id) == before


def test_attempts_can_be_filtered_by_card_and_come_oldest_first(history):
    late, early, other = attempt(at=T0 + timedelta(days=2)), attempt(at=T0), attempt("other-card")
    for item in (late, other, early):
        history.record(item)
    assert history.attempts("autograd-basics") == [early, late]


def test_progress_counts_reviews_lapses_and_the_last_rating(history):
    for day, rating in enumerate(["good", "good", "again", "good"]):
        history.record(attempt(rating=rating, at=T0 + timedelta(days=10 * day)))
    progress = history.progress("autograd-basics")
    assert (progress.reps, progress.lapses, progress.last_rating) == (4, 1, "good")
    assert progress.last_seen == T0 + timedelta(days=30)
    assert progress.state == "review" and progress.due > progress.last_seen


def test_an_unseen_card_has_no_progress(history):
    assert history.progress("never-seen") is None


def test_due_dates_read_every_practised_cards_due_at_once_as_progress_has_it(history):
    history.record(attempt(rating="good", at=T0))
    history.record(attempt(card_id="other-card", rating="again", at=T0 + timedelta(days=1)))
    assert history.due_dates() == {
        card_id: history.progress(card_id).due for card_id in ("autograd-basics", "other-card")
    }


def test_a_leak_caps_an_easy_self_grade_at_hard(history):
    leak = CodeResult(
        verdict="leak",
        pattern="monotonic",
        growth_bytes_per_step=4096.0,
        retained_paths=("losses[3]",),
        code="losses.append(loss)",
    )
    history.record(attempt(rating="easy", code=leak))
    assert history.attempts()[0].rating == "hard"
    assert history.progress("autograd-basics").last_rating == "hard"


def test_code_that_could_not_be_graded_counts_as_again(history):
    broken = CodeResult(
        verdict="error", pattern=None, growth_bytes_per_step=0.0, retained_paths=(), code="x"
    )
    history.record(attempt(rating="good", code=broken))
    assert history.progress("autograd-basics").last_rating == "again"


def test_an_attempt_recorded_out_of_order_schedules_as_if_recorded_in_order(tmp_path):
    ratings = [("good", 0), ("hard", 3), ("again", 9), ("good", 12)]
    items = [attempt(rating=r, at=T0 + timedelta(days=d)) for r, d in ratings]
    with (
        History.open(tmp_path / "in-order.db") as in_order,
        History.open(tmp_path / "shuffled.db") as shuffled,
    ):
        for item in items:
            in_order.record(item)
        for index in (2, 0, 3, 1):
            shuffled.record(items[index])
        assert shuffled.progress("autograd-basics") == in_order.progress("autograd-basics")


def test_merge_adds_only_unknown_attempts_and_reports_how_many(history):
    first, second = attempt(), attempt(at=T0 + timedelta(days=1))
    history.record(first)
    assert history.merge([first, second]) == 1
    assert history.merge([first, second]) == 0
    assert history.attempts() == [first, second]


def test_settings_round_trip_as_json_and_fall_back_to_the_default(history):
    assert history.get_setting("tier", "middle") == "middle"
    history.set_setting("tier", "senior")
    history.set_setting("theme", {"name": "dark", "contrast": 2})
    assert history.get_setting("tier", "middle") == "senior"
    assert history.get_setting("theme") == {"name": "dark", "contrast": 2}


def test_a_setting_that_is_not_json_is_refused_with_its_key(history):
    with pytest.raises(ValueError, match="'device'"):
        history.set_setting("device", object())


def test_settings_and_attempts_persist_across_reopening(home):
    with History.open() as history:
        history.record(attempt())
        history.set_setting("new_per_day", 3)
    with History.open() as reopened:
        assert len(reopened.attempts()) == 1
        assert reopened.get_setting("new_per_day") == 3


def test_worker_threads_can_record_through_one_shared_history(history):
    workers = [
        threading.Thread(target=history.record, args=(attempt(f"card-{n}"),)) for n in range(8)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(history.attempts()) == 8


def test_an_attempt_with_an_unknown_rating_is_refused_by_name_and_nothing_is_stored(history):
    with pytest.raises(ValueError, match="rating 'great' is not one of again, hard, good, easy"):
        history.record(attempt(rating="great"))
    assert history.attempts() == []
