"""The evaluation figures: the referee's F1, shares, percentiles, and seeded bootstrap intervals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.scoring import INTERVAL_BELOW, Tally, f1, f1_change, f1_interval, percentile, share_interval, shows_interval

rows = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=40)


def test_f1_is_the_referees():
    # score_hed.py: micro P and R over summed counts, F1 = 2PR / (P + R), 0 when nothing matched.
    assert f1(12, 0, 4) == pytest.approx(2 * 1.0 * 0.75 / 1.75)
    assert f1(0, 3, 2) == 0.0 and f1(0, 0, 0) == 0.0
    tally = Tally()
    tally.add({"a", "b", "c"}, {"a", "b", "d"})
    tally.add({"e"}, set())
    assert (tally.tp, tally.fp, tally.fn, tally.rows) == (2, 1, 2, 2)
    assert (tally.precision, tally.recall) == (2 / 3, 2 / 4)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_the_f1_interval_holds_the_figure_and_stays_the_same(found):
    tally = Tally()
    for row in found:
        tally.add_counts(row)
    interval = f1_interval(found)
    assert interval is not None and 0.0 <= interval.low <= interval.high <= 1.0
    assert interval == f1_interval(found)  # a fixed seed: the page shows the same interval each time
    if len(set(found)) == 1:  # every resample is the same rows: no spread
        assert interval.low == pytest.approx(tally.f1) and interval.high == pytest.approx(tally.f1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_the_share_interval_lies_around_the_share(outcomes):
    interval = share_interval(outcomes)
    share = sum(outcomes) / len(outcomes)
    assert 0.0 <= interval.low <= interval.high <= 1.0
    if all(outcomes) or not any(outcomes):
        assert interval.low == interval.high == share


def test_no_rows_no_interval_and_intervals_only_below_the_threshold():
    assert f1_interval([]) is None and share_interval([]) is None
    assert shows_interval(1) and shows_interval(INTERVAL_BELOW - 1)
    assert not shows_interval(0) and not shows_interval(INTERVAL_BELOW)


def test_a_paired_change_resamples_items_together():
    before = [(4, 0, 0), (3, 0, 1), (2, 0, 1)]
    same, interval = f1_change(before, before)
    assert same == 0.0 and interval.low == interval.high == 0.0  # the same rows: no change in any resample
    worse, interval = f1_change(before, [(1, 0, 3), (0, 1, 4), (1, 0, 2)])
    assert worse < 0 and interval.high < 0
    with pytest.raises(ValueError):
        f1_change(before, before[:2])


def test_percentiles_interpolate_between_ranks():
    assert percentile([], 50) is None
    assert percentile([1.0, 2.0, 3.0, 10.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 10.0], 95) == pytest.approx(8.95)
    assert percentile([4.0], 95) == 4.0
