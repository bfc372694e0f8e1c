"""Every numeric option is one `checkers.inputs.Range`: whatever text or
value it is given, it hands back a finite number inside its range, or refuses with
`OutOfRange` saying the range; nothing else gets through, and nothing else is raised (`nan`
used to reach `int()` and exit 4; `--steps 10**30` was accepted)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.mock.limits import MINUTES, QUESTIONS, SEED
from app.ui.settings import NEW_PER_DAY
from checkers.inputs import SECONDS, STEPS, OutOfRange, Range

RANGES = [SECONDS, STEPS, QUESTIONS, MINUTES, SEED, NEW_PER_DAY]
NUMBER_TEXT = st.one_of(
    st.text(max_size=40),
    st.floats().map(repr),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.sampled_from(["nan", "-nan", "inf", "+Infinity", "1e309", "-1e309", "1_000", " 7 ", "0x10"]),
)
VALUES = st.one_of(
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, 10**30, -0.0]),
    st.floats(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.booleans(),
    st.none(),
)


def inside(rule: Range, value: float) -> bool:
    low_ok = value > rule.low if rule.above_low else value >= rule.low
    return math.isfinite(value) and low_ok and value <= rule.high


@pytest.mark.parametrize("rule", RANGES, ids=lambda rule: rule.label)
@given(text=NUMBER_TEXT)
def test_parsed_then_checked_text_is_a_number_in_range_or_refused_with_the_range(rule, text):
    try:
        value = rule.check(rule.parse(text))
    except OutOfRange as refusal:
        assert rule.rule in str(refusal), refusal
        return
    assert inside(rule, value), (text, value)
    assert not rule.whole or isinstance(value, int)


@pytest.mark.parametrize("rule", RANGES, ids=lambda rule: rule.label)
@given(value=VALUES)
def test_a_checked_value_is_in_range_or_refused_with_the_range(rule, value):
    try:
        checked = rule.check(value)
    except OutOfRange as refusal:
        assert rule.rule in str(refusal), refusal
        return
    assert checked is value and not isinstance(value, bool)
    assert inside(rule, checked)
    assert not rule.whole or isinstance(checked, int)
