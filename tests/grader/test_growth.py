"""Bounded windows repeat; growth climbs once. The rule, on plain series."""

from checkers.judge.growth import MIN_CLIMB, analyse


def judge(series: list[int]):
    return analyse(series, series)


def test_a_flat_series_has_no_window():
    growth = judge([0, 1, 1, 0, 1, 1, 0] * 10)
    assert (growth.growing, growth.bounded) == (None, None)


def test_a_climb_that_runs_to_the_end_of_the_run_is_growth():
    growth = judge(list(range(60)))
    assert growth.growing is not None and not growth.growing.released
    assert growth.growing.height >= 50


def test_a_late_climb_is_growth_though_most_of_the_run_was_flat():
    growth = judge([1] * 90 + list(range(1, 60)))
    assert growth.growing is not None
    assert growth.growing.climb_start >= 89


def test_a_few_graphs_kept_near_the_end_of_one_loop_are_not_a_trend():
    """The last ten steps' losses kept for a final report: bounded, whatever the run's length."""
    assert judge([0] * 60 + list(range(1, 11))).growing is None


def test_a_climb_that_fills_a_loop_from_its_first_iteration_to_the_end_is_a_trend():
    """An evaluation pass after training that keeps every output, however short the pass."""
    series = [0] * 80 + list(range(1, 16))
    loops = [5] * 80 + [30] * 15
    assert analyse(series, series, (), loops).growing is not None
    assert analyse(series, series, (), [5] * 95).growing is None


def test_a_kept_set_that_lets_old_graphs_go_as_new_ones_come_is_bounded():
    """A deque(maxlen=8) in a short run: it climbs for 40% of it, then rotates."""
    series = list(range(9)) + [8] * 12
    releases = [0] * 9 + [1] * 12
    assert analyse(series, series, releases).growing is None
    assert analyse(series, series).growing is not None  # the same climb, nothing let go: kept


def test_a_climb_released_once_is_still_growth():
    """A phase that kept its losses until the phase ended."""
    growth = judge(list(range(50)) + [0] * 50)
    assert growth.growing is not None and growth.growing.released


def test_windows_that_climb_to_the_same_height_again_and_again_are_bounded():
    """An epoch total reset every epoch, a list cleared every ten steps."""
    growth = judge(list(range(12)) * 10)
    assert growth.growing is None
    assert growth.bounded is not None and growth.repeats >= 9


def test_a_plateau_reached_early_is_bounded_not_growth():
    """A cache filled from a fixed dataset of five batches, then kept as it is."""
    assert judge(list(range(6)) + [5] * 200).growing is None


def test_a_final_window_higher_than_every_earlier_one_is_growth():
    assert judge(list(range(12)) * 4 + list(range(40))).growing is not None


def test_a_climb_below_the_minimum_is_not_a_window():
    assert judge([0, 1, MIN_CLIMB - 1, 0] * 20).bounded is None


def test_coarse_buckets_that_hold_whole_windows_are_windows_of_their_own():
    lows, highs = [0] * 30, [12] * 30
    growth = analyse(lows, highs)
    assert growth.growing is None and growth.repeats == 30


def test_a_climb_and_its_release_in_the_next_bucket_are_one_window():
    lows = [0, 0, 5, 10, 15, 0, 0, 0, 0, 0]
    highs = [0, 4, 9, 14, 19, 19, 0, 0, 0, 0]
    growth = analyse(lows, highs)
    assert growth.growing is not None and growth.repeats == 1
