"""The figures of an evaluation: micro precision, recall and F1 of tag sets, shares, percentiles, and their
95% bootstrap intervals.

F1 is computed as the referee computes it (``shared/eval/score_hed.py``): micro precision and recall over
the summed true positives, false positives and false negatives of every row, and F1 = 2PR / (P + R), 0 when
nothing matched. The intervals resample rows with replacement (percentile bootstrap) from a fixed seed, so
a table shows the same interval each time it is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# Below this many rows a figure carries its 95% interval; from it on the interval is narrow and not shown.
INTERVAL_BELOW = 200
RESAMPLES = 2000
SEED = 39
Counts = tuple[int, int, int]  # one row's true positives, false positives, false negatives


def precision(tp: float, fp: float) -> float:
    return tp / (tp + fp) if tp + fp else 0.0


def recall(tp: float, fn: float) -> float:
    return tp / (tp + fn) if tp + fn else 0.0


def f1(tp: float, fp: float, fn: float) -> float:
    """The referee's F1 of summed counts: 2PR / (P + R), 0 when P + R is 0."""
    p, r = precision(tp, fp), recall(tp, fn)
    return 2 * p * r / (p + r) if p + r else 0.0


def counts(gold: frozenset[str] | set[str], predicted: frozenset[str] | set[str]) -> Counts:
    """One row's counts: tags both have, tags only the prediction has, tags only the gold has."""
    return len(gold & predicted), len(predicted - gold), len(gold - predicted)


@dataclass
class Tally:
    """Summed counts of some rows."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    rows: int = 0

    def add(self, gold: frozenset[str] | set[str], predicted: frozenset[str] | set[str]) -> None:
        self.add_counts(counts(gold, predicted))

    def add_counts(self, row: Counts) -> None:
        self.tp += row[0]
        self.fp += row[1]
        self.fn += row[2]
        self.rows += 1

    @property
    def precision(self) -> float:
        return precision(self.tp, self.fp)

    @property
    def recall(self) -> float:
        return recall(self.tp, self.fn)

    @property
    def f1(self) -> float:
        return f1(self.tp, self.fp, self.fn)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def as_list(self, digits: int = 4) -> list[float]:
        return [round(self.low, digits), round(self.high, digits)]


def shows_interval(n: int) -> bool:
    """Whether a figure over *n* rows carries its interval."""
    return 0 < n < INTERVAL_BELOW


def _resampled(n: int, seed: int) -> np.ndarray:
    """Row indices of every resample: RESAMPLES rows of *n* draws with replacement."""
    return np.random.default_rng(seed).integers(0, n, size=(RESAMPLES, n))


def _f1s(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """The referee's F1 for each resample's summed counts (vectorised :func:`f1`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        r = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        return np.where(p + r > 0, 2 * p * r / (p + r), 0.0)


def _interval(values: np.ndarray) -> Interval:
    low, high = np.percentile(values, [2.5, 97.5])
    return Interval(float(low), float(high))


def f1_interval(rows: Sequence[Counts], *, seed: int = SEED) -> Interval | None:
    """The 95% bootstrap interval of the micro F1 of *rows*; None without rows."""
    if not rows:
        return None
    table = np.asarray(rows, dtype=float).reshape(len(rows), 3)
    picks = _resampled(len(rows), seed)
    sums = table[picks].sum(axis=1)
    return _interval(_f1s(sums[:, 0], sums[:, 1], sums[:, 2]))


def share_interval(outcomes: Sequence[bool], *, seed: int = SEED) -> Interval | None:
    """The 95% bootstrap interval of the share of true *outcomes*; None without any."""
    if not outcomes:
        return None
    values = np.asarray(outcomes, dtype=float)
    return _interval(values[_resampled(len(values), seed)].mean(axis=1))


def f1_change(before: Sequence[Counts], after: Sequence[Counts], *,
              seed: int = SEED) -> tuple[float, Interval | None]:
    """How the micro F1 moved from *before* to *after*, rows paired (the same item in both, in order), with the
    95% interval of the change from resampling the pairs together; the interval is None without pairs."""
    if len(before) != len(after):
        raise ValueError("a paired change needs the same rows before and after")
    old, new = Tally(), Tally()
    for row in before:
        old.add_counts(row)
    for row in after:
        new.add_counts(row)
    change = new.f1 - old.f1
    if not before:
        return change, None
    picks = _resampled(len(before), seed)
    a = np.asarray(before, dtype=float).reshape(len(before), 3)[picks].sum(axis=1)
    b = np.asarray(after, dtype=float).reshape(len(after), 3)[picks].sum(axis=1)
    return change, _interval(_f1s(b[:, 0], b[:, 1], b[:, 2]) - _f1s(a[:, 0], a[:, 1], a[:, 2]))


def percentile(values: Sequence[float], q: float) -> float | None:
    """The *q*-th percentile (0-100) of *values* by linear interpolation between ranks; None without values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
