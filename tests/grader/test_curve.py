"""The memory-curve classifier names shapes robustly under noise."""

import random

import pytest

from checkers.judge.curve import FLOOR_BYTES, classify, classify_cuda, trend

KB = 1024


def noisy(values, amplitude, seed=0):
    rng = random.Random(seed)
    return [v + rng.uniform(-amplitude, amplitude) for v in values]


@pytest.mark.parametrize("seed", range(5))
def test_a_clean_loop_with_allocator_noise_is_flat(seed):
    shape = classify(noisy([5_000_000.0] * 60, 200, seed))
    assert shape.pattern == "flat"
    assert abs(shape.growth_per_step) < 100


@pytest.mark.parametrize("seed", range(5))
def test_the_smallest_leak_grows_monotonically_at_its_rate(seed):
    series = noisy([3 * KB * i for i in range(60)], 400, seed)
    shape = classify(series)
    assert shape.pattern == "monotonic"
    assert shape.growth_per_step == pytest.approx(3 * KB, rel=0.1)


def test_random_batch_sizes_make_a_sawtooth_not_a_leak():
    rng = random.Random(1)
    series = [rng.choice([4, 64, 256, 1024]) * 32 * 4 * 3.0 for _ in range(60)]
    assert classify(series).pattern == "sawtooth"


def test_a_per_epoch_buffer_that_resets_is_a_sawtooth():
    series = [(i % 12) * 20 * KB for i in range(60)]
    assert classify(series).pattern == "sawtooth"


def test_a_single_late_spike_does_not_make_a_trend():
    series = [1_000_000.0] * 59 + [1_000_000.0 + 500 * KB]
    shape = classify(series)
    assert shape.pattern != "monotonic"
    assert shape.growth_per_step == 0


def test_growth_below_the_floor_is_flat():
    series = [i * (FLOOR_BYTES / 120) for i in range(60)]
    assert classify(series).pattern == "flat"


def test_too_few_samples_have_no_shape():
    assert classify([float(i * 100_000) for i in range(8)]).pattern is None
    assert classify([float(i * 100_000) for i in range(12)]).pattern == "monotonic"


def test_cuda_reserved_pool_growing_under_flat_allocation_is_fragmentation():
    allocated = noisy([50 * KB * KB] * 60, 1000)
    reserved = [60 * KB * KB + i * 2 * KB * KB for i in range(60)]
    shape = classify_cuda(allocated, reserved)
    assert shape.pattern == "fragmentation"
    assert shape.growth_per_step == pytest.approx(2 * KB * KB)


def test_cuda_allocated_growth_is_monotonic_even_if_reserved_grows_too():
    allocated = [i * 512 * KB for i in range(60)]
    reserved = [i * 2 * KB * KB for i in range(60)]
    assert classify_cuda(allocated, reserved).pattern == "monotonic"


def test_trend_ignores_a_few_outliers():
    values = [float(i) for i in range(40)]
    values[5] = values[30] = 10_000.0
    assert trend(values) == pytest.approx(1.0)
