"""The evaluation table of a scope, computed from the stored runs and reviews (nothing derived is stored).

Each finished run (cancelled ones aside) is read once, in one query, as :class:`~.table.RunFacts`:

- its **configuration** (provider, model, constrained decoding, prompt version, schema) as it recorded it; a
  run from before configurations were recorded is named by who produced its annotation;
- its **gold**, the annotation it is scored against: a reviewer's correction of the run itself; else, for an
  evaluation run, its item's gold (the CSV's HED, or the annotation reviewers stand by for the reviewed run the
  item is: a later correction of that run moves it); else the run's own annotation where reviewers accepted it
  as is. A run with none counts for validity only;
- what went wrong: the model failed (or the offline annotator stood in for it), a call timed out or was
  refused, a reply had no HED to read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet, Subquery

from agents.llm.configuration import OFFLINE_MODEL, OFFLINE_PROVIDER, ModelConfiguration
from annotations.evaluation.scope import Scope, runs_in
from annotations.evaluation.table import ModelRow, RunFacts, model_rows
from annotations.models import (
    AnnotationSession,
    Iteration,
    LLMCallRecord,
    SessionStatus,
    SetSource,
    ValidationIssueRecord,
)
from annotations.review_rules import corrected, review_outcome, reviewed_annotation
from annotations.runs.execution import model_failure

MAX_RUNS = 20000
"""The newest runs one table reads; a scope with more says so (narrow it by dates or project)."""

COUNTED = (SessionStatus.SUCCEEDED, SessionStatus.INVALID, SessionStatus.FAILED)
_FIELDS = (
    "pk", "status", "machine_annotation", "final_annotation", "iteration_count", "prompt_tokens",
    "completion_tokens", "cost_usd", "started_at", "finished_at", "is_faithful", "review_count", "accept_count",
    "reject_count", "mean_rating", "notes", "producer", "llm_provider", "llm_model", "llm_constraint",
    "prompt_version", "schema_version", "evaluation_batch_id", "evaluation_item_id", "evaluation_item__gold",
    "evaluation_item__set__source", "evaluation_item__source__final_annotation",
    "evaluation_item__source__machine_annotation", "evaluation_item__source__review_count",
    "evaluation_item__source__accept_count", "evaluation_item__source__reject_count",
)


def _with_facts(qs: QuerySet[AnnotationSession]) -> QuerySet[AnnotationSession]:
    run = OuterRef("pk")
    return qs.annotate(
        first_valid=Subquery(Iteration.objects.filter(session=run).order_by("number").values("is_valid")[:1]),
        timed_out=Exists(LLMCallRecord.objects.filter(session=run, error_kind="timeout")),
        refused=Exists(LLMCallRecord.objects.filter(session=run, error_kind="refused")),
        unreadable=Exists(ValidationIssueRecord.objects.filter(iteration__session=run, code="PARSE_ERROR")),
    )


def configuration_of_row(row: dict[str, Any]) -> ModelConfiguration:
    """The configuration a run recorded; for a run from before they were, who produced its annotation."""
    if row["llm_provider"] or row["llm_model"]:
        return ModelConfiguration(row["llm_provider"], row["llm_model"], row["llm_constraint"], row["prompt_version"],
                                  row["schema_version"])
    if row["producer"] in ("", OFFLINE_MODEL):
        return ModelConfiguration(OFFLINE_PROVIDER, OFFLINE_MODEL, "", "", row["schema_version"])
    return ModelConfiguration("", row["producer"], "", "", row["schema_version"])


def _item_gold(row: dict[str, Any]) -> str | None:
    if row["evaluation_item_id"] is None:
        return None
    if row["evaluation_item__set__source"] == SetSource.GOLD:
        return row["evaluation_item__gold"] or ""
    if row["evaluation_item__source__review_count"] is None:
        return None  # the reviewed run is gone
    return reviewed_annotation(row["evaluation_item__source__final_annotation"],
                               row["evaluation_item__source__machine_annotation"],
                               row["evaluation_item__source__review_count"] or 0,
                               row["evaluation_item__source__accept_count"] or 0,
                               row["evaluation_item__source__reject_count"] or 0)


def gold_of(row: dict[str, Any]) -> str | None:
    """The annotation a run is scored against (module docstring), None when it has none."""
    final, machine = row["final_annotation"], row["machine_annotation"]
    if corrected(final, machine):
        return final
    item = _item_gold(row)
    if item is not None:
        return item
    if row["evaluation_item_id"] is not None:
        return None  # an evaluation run is scored on its item alone (or a correction of its own)
    return reviewed_annotation(final, machine, row["review_count"], row["accept_count"], row["reject_count"])


def facts_of(row: dict[str, Any]) -> RunFacts:
    failed = row["status"] == SessionStatus.FAILED or bool(model_failure(row["notes"]))
    started, finished = row["started_at"], row["finished_at"]
    return RunFacts(
        session_id=str(row["pk"]), configuration=configuration_of_row(row), failed=failed,
        first_valid=bool(row["first_valid"]) and not failed,
        final_valid=row["status"] == SessionStatus.SUCCEEDED and not failed, attempts=row["iteration_count"],
        prediction="" if failed else row["machine_annotation"], gold=gold_of(row),
        outcome=review_outcome(row["final_annotation"], row["machine_annotation"], row["review_count"],
                               row["accept_count"], row["reject_count"]),
        rating=row["mean_rating"], faithful=row["is_faithful"],
        tokens=row["prompt_tokens"] + row["completion_tokens"], cost=float(row["cost_usd"]),
        seconds=(finished - started).total_seconds() if started and finished else None,
        timed_out=row["timed_out"], refused=row["refused"], unreadable=row["unreadable"],
        item_id=row["evaluation_item_id"],
        batch_id=str(row["evaluation_batch_id"]) if row["evaluation_batch_id"] else None)


def run_facts(qs: QuerySet[AnnotationSession], limit: int = MAX_RUNS) -> list[RunFacts]:
    """The facts of the newest *limit* finished runs of *qs* (cancelled runs say nothing of a model)."""
    rows = _with_facts(qs.filter(status__in=COUNTED)).order_by("-created_at", "-pk").values(
        *_FIELDS, "first_valid", "timed_out", "refused", "unreadable")[:limit]
    return [facts_of(row) for row in rows]


@dataclass(frozen=True)
class Table:
    scope: Scope
    rows: list[ModelRow]
    runs: int  # runs read
    truncated: bool  # more than MAX_RUNS in the scope: the newest were read

    def as_dict(self) -> dict[str, Any]:
        return {"scope": {**self.scope.query, "label": self.scope.label}, "runs": self.runs,
                "truncated": self.truncated, "models": [row.as_dict() for row in self.rows]}


def evaluation_table(scope: Scope, user: Any) -> Table:
    """The table of *scope* for *user* (None: the command line, which sees every run)."""
    facts = run_facts(runs_in(scope, user), MAX_RUNS + 1)
    truncated = len(facts) > MAX_RUNS
    facts = facts[:MAX_RUNS]
    return Table(scope=scope, rows=model_rows(facts), runs=len(facts), truncated=truncated)
