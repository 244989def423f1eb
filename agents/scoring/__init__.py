"""Scoring annotations against reviewed ones: the tags compared (:mod:`.tags`) and the figures with their
intervals (:mod:`.figures`). Plain Python (hedtools, numpy): the ``evaluate`` command and the evaluation
pages both score through here, the way ``shared/eval/score_hed.py`` scores."""

from agents.scoring.figures import (
    INTERVAL_BELOW,
    Counts,
    Interval,
    Tally,
    counts,
    f1,
    f1_change,
    f1_interval,
    mean,
    percentile,
    share_interval,
    shows_interval,
)
from agents.scoring.tags import TagScorer, scorer_for, uses_definitions

__all__ = [
    "INTERVAL_BELOW",
    "Counts",
    "Interval",
    "TagScorer",
    "Tally",
    "counts",
    "f1",
    "f1_change",
    "f1_interval",
    "mean",
    "percentile",
    "scorer_for",
    "share_interval",
    "shows_interval",
    "uses_definitions",
]
