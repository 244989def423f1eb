"""The evaluation table's figures, one row per model configuration, from the facts of each run.

Plain computation over :class:`RunFacts` (read by :mod:`.selectors`); the tags are scored by
:mod:`agents.scoring`, as the referee scores them. What each figure means is said once, in
:mod:`.columns` (the page, the downloads and the README read it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.llm.configuration import ModelConfiguration
from agents.scoring import (
    Counts,
    Interval,
    Tally,
    counts,
    f1_interval,
    percentile,
    scorer_for,
    share_interval,
    shows_interval,
    uses_definitions,
)
from agents.scoring import mean as mean_of
from annotations.review_rules import ACCEPTED, CORRECTED, REJECTED


@dataclass(frozen=True)
class RunFacts:
    """What the table needs of one finished run."""

    session_id: str
    configuration: ModelConfiguration
    failed: bool  # the run (or its model) failed: no annotation of the model's counts
    first_valid: bool
    final_valid: bool
    attempts: int
    prediction: str  # the model's annotation ("" when it failed)
    gold: str | None  # the annotation reviewers stand by, or the set's gold; None: counts for validity only
    outcome: str | None  # accepted, corrected, rejected (own reviews), None when unreviewed
    rating: float | None
    faithful: bool | None
    tokens: int
    cost: float
    seconds: float | None
    timed_out: bool = False
    refused: bool = False
    unreadable: bool = False  # a reply no HED could be read from
    item_id: int | None = None
    batch_id: str | None = None


@dataclass(frozen=True)
class TagFigures:
    """Micro precision, recall and F1 over the runs with gold (n), with F1's interval below the threshold."""

    n: int
    precision: float | None
    recall: float | None
    f1: float | None
    interval: Interval | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "precision": _round(self.precision, 6), "recall": _round(self.recall, 6),
                "f1": _round(self.f1, 6), "f1_interval": self.interval.as_list() if self.interval else None}


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _share(hits: int, n: int) -> float | None:
    return hits / n if n else None


def tag_counts(facts: RunFacts, *, expand: bool = False) -> Counts:
    """One run's counts against its gold (the run's schema reads both); call only for runs with gold."""
    scorer = scorer_for(facts.configuration.schema_version)
    return counts(scorer.tags(facts.gold or "", expand=expand), scorer.tags(facts.prediction, expand=expand))


def tag_figures(rows: Sequence[Counts]) -> TagFigures:
    if not rows:
        return TagFigures(0, None, None, None)
    tally = Tally()
    for row in rows:
        tally.add_counts(row)
    interval = f1_interval(rows) if shows_interval(len(rows)) else None
    return TagFigures(len(rows), tally.precision, tally.recall, tally.f1, interval)


@dataclass(frozen=True)
class ModelRow:
    configuration: ModelConfiguration
    runs: int
    first_valid: float | None
    final_valid: float | None
    mean_attempts: float | None
    tags: TagFigures  # definitions kept (the referee's reading, over every run with gold)
    tags_expanded: TagFigures
    tags_referee: TagFigures  # only gold without definitions: what score_hed.py scores by default
    reviewed: int
    accepted: float | None
    corrected: float | None
    rejected: float | None
    acceptance_interval: Interval | None
    rated: int
    mean_rating: float | None
    judged: int
    faithful: float | None
    mean_tokens: float | None
    total_tokens: int
    mean_cost: float | None
    total_cost: float
    latency_p50: float | None
    latency_p95: float | None
    failed: int
    timeouts: int
    invalid_replies: int
    refusals: int
    session_ids: tuple[str, ...] = field(default=(), repr=False)

    @property
    def key(self) -> str:
        return self.configuration.key

    def as_dict(self) -> dict[str, Any]:
        """The row as the JSON download, the API and ``evaluate --json`` give it."""
        return {
            "model": self.configuration.model, "configuration": self.configuration.as_dict(),
            "label": self.configuration.label, "runs": self.runs,
            "first_attempt_valid": _round(self.first_valid), "final_valid": _round(self.final_valid),
            "mean_attempts": _round(self.mean_attempts, 3),
            "tags": self.tags.as_dict(), "tags_definitions_expanded": self.tags_expanded.as_dict(),
            "tags_without_definition_rows": self.tags_referee.as_dict(),
            "review": {"n": self.reviewed, "accepted": _round(self.accepted), "corrected": _round(self.corrected),
                       "rejected": _round(self.rejected),
                       "accepted_interval": self.acceptance_interval.as_list() if self.acceptance_interval else None,
                       "rated": self.rated, "mean_rating": _round(self.mean_rating, 3)},
            "faithful": {"n": self.judged, "share": _round(self.faithful)},
            "tokens": {"mean": _round(self.mean_tokens, 1), "total": self.total_tokens},
            "cost_usd": {"mean": _round(self.mean_cost, 6), "total": round(self.total_cost, 6)},
            "latency_seconds": {"p50": _round(self.latency_p50, 3), "p95": _round(self.latency_p95, 3)},
            "failures": {"failed_runs": self.failed, "timeouts": self.timeouts,
                         "invalid_replies": self.invalid_replies, "refusals": self.refusals},
        }


def _tag_fields(runs: Sequence[RunFacts]) -> dict[str, TagFigures]:
    """The tag F1 figures of the runs with a gold annotation: as written, definitions expanded, and the referee's
    (rows whose gold uses no definition)."""
    scored = [r for r in runs if r.gold is not None]
    kept = [tag_counts(r) for r in scored]
    return {"tags": tag_figures(kept), "tags_expanded": tag_figures([tag_counts(r, expand=True) for r in scored]),
            "tags_referee": tag_figures([c for r, c in zip(scored, kept, strict=True)
                                         if not uses_definitions(r.gold or "")])}


def _review_fields(runs: Sequence[RunFacts]) -> dict[str, Any]:
    """What people made of the runs: reviewers' outcomes (with the acceptance interval), ratings, and the
    evaluation agent's faithfulness judgements."""
    reviewed = [r.outcome for r in runs if r.outcome is not None]
    accepted = [o == ACCEPTED for o in reviewed]
    rated = [r.rating for r in runs if r.rating is not None]
    judged = [r.faithful for r in runs if r.faithful is not None]
    return {"reviewed": len(reviewed), "accepted": _share(sum(accepted), len(reviewed)),
            "corrected": _share(reviewed.count(CORRECTED), len(reviewed)),
            "rejected": _share(reviewed.count(REJECTED), len(reviewed)),
            "acceptance_interval": share_interval(accepted) if shows_interval(len(reviewed)) else None,
            "rated": len(rated), "mean_rating": mean_of(rated),
            "judged": len(judged), "faithful": _share(sum(bool(j) for j in judged), len(judged))}


def _cost_fields(runs: Sequence[RunFacts]) -> dict[str, Any]:
    """What the runs cost and how they failed: tokens, dollars, latency percentiles, failure kinds."""
    seconds = [r.seconds for r in runs if r.seconds is not None]
    return {"mean_tokens": mean_of([r.tokens for r in runs]), "total_tokens": sum(r.tokens for r in runs),
            "mean_cost": mean_of([r.cost for r in runs]), "total_cost": sum(r.cost for r in runs),
            "latency_p50": percentile(seconds, 50), "latency_p95": percentile(seconds, 95),
            "failed": sum(r.failed for r in runs), "timeouts": sum(r.timed_out for r in runs),
            "invalid_replies": sum(r.unreadable for r in runs), "refusals": sum(r.refused for r in runs)}


def model_row(configuration: ModelConfiguration, runs: Sequence[RunFacts]) -> ModelRow:
    """The figures of one configuration's runs: validity, then tags, people's verdicts, and cost, each read by
    its own helper."""
    n = len(runs)
    return ModelRow(
        configuration=configuration, runs=n,
        first_valid=_share(sum(r.first_valid for r in runs), n),
        final_valid=_share(sum(r.final_valid for r in runs), n),
        mean_attempts=mean_of([r.attempts for r in runs]),
        **_tag_fields(runs), **_review_fields(runs), **_cost_fields(runs),
        session_ids=tuple(r.session_id for r in runs))


def model_rows(facts: Iterable[RunFacts]) -> list[ModelRow]:
    """One row per configuration, in the order of their labels (the page sorts them as asked)."""
    grouped: dict[ModelConfiguration, list[RunFacts]] = defaultdict(list)
    for fact in facts:
        grouped[fact.configuration].append(fact)
    return [model_row(configuration, runs) for configuration, runs in sorted(grouped.items())]
