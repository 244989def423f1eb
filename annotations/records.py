"""The record of a run: what the API, the JSONL and CSV exports, the CLI and the run page say about a session.

The rules every reader shares live here once: the review summary (counts, mean rating, agreement), usage,
the dataset level, and the plain-data record itself (whether a reviewer corrected the annotation is
:mod:`annotations.review_rules`'). Readers format it (DRF fields, JSON lines, spreadsheet cells, HTML); none
recomputes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotations.models import AnnotationSession, Verdict
from annotations.review_rules import corrected, is_corrected

# --- review summary -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewSummary:
    count: int
    mean_rating: float | None
    accept: int
    needs_fix: int
    reject: int

    @property
    def majority_verdict(self) -> str | None:
        """The most common verdict; None without reviews or when the top verdicts tie."""
        counts = sorted(self.verdict_counts().items(), key=lambda kv: -kv[1])
        if not counts or counts[0][1] == 0 or (len(counts) > 1 and counts[0][1] == counts[1][1]):
            return None
        return counts[0][0]

    @property
    def agreement(self) -> float | None:
        """Share of reviewers whose verdict is the most common one (1.0 = unanimous).

        None below two reviews: one reviewer always "agrees" with themself, which says nothing.
        """
        if self.count < 2:
            return None
        return max(self.accept, self.needs_fix, self.reject) / self.count

    def verdict_counts(self) -> dict[str, int]:
        return {Verdict.ACCEPT.value: self.accept, Verdict.NEEDS_FIX.value: self.needs_fix,
                Verdict.REJECT.value: self.reject}

    def as_dict(self) -> dict[str, Any]:
        """The summary as the API and the JSONL record carry it."""
        return {"count": self.count, "mean_rating": self.mean_rating, "accept": self.accept,
                "needs_fix": self.needs_fix, "reject": self.reject, "agreement": self.agreement}


def summary_of(session: AnnotationSession) -> ReviewSummary:
    """The stored review summary of *session* (no query)."""
    return ReviewSummary(count=session.review_count, mean_rating=session.mean_rating,
                         accept=session.accept_count, needs_fix=session.needs_fix_count,
                         reject=session.reject_count)


def summary_of_row(row: Mapping[str, Any]) -> ReviewSummary:
    """The same summary from a ``values()`` row holding the stored fields."""
    return ReviewSummary(count=row["review_count"], mean_rating=row["mean_rating"], accept=row["accept_count"],
                         needs_fix=row["needs_fix_count"], reject=row["reject_count"])


# --- parts of the record --------------------------------------------------------------------


def usage_of(session: AnnotationSession) -> dict[str, Any]:
    return {"llm_calls": session.llm_call_count, "prompt_tokens": session.prompt_tokens,
            "completion_tokens": session.completion_tokens, "cost_usd": float(session.cost_usd)}


def dataset_level_of(session: AnnotationSession) -> dict[str, Any] | None:
    """The dataset level a run annotates (project, task, column, level), or None."""
    if session.dataset_level_id is None:
        return None
    level = session.dataset_level
    task = level.column.task
    return {"project": str(task.project_id), "task": task.name, "column": level.column.name, "level": level.value,
            "level_id": level.pk}


# An example's description in a model's prompt is cut at this length (agents.annotation.llm_annotator).
_PROMPT_EXAMPLE_CHARS = 400
REDACTED_EXAMPLE = "[description of another user's reviewed run]"


def _others_examples(session: AnnotationSession) -> list[str]:
    """Descriptions of other users' runs this run's prompts carried as examples (the portal's memory)."""
    if not session.examples_used or not session.llm_call_count:
        return []
    own = " ".join(session.description.split())
    sources = AnnotationSession.objects.filter(pk__in=session.examples_used).exclude(user_id=session.user_id)
    texts = (" ".join(d.split()) for d in sources.values_list("description", flat=True))
    return [t for t in texts if t and t != own]


def _redacted(request: str, hidden: list[str]) -> str:
    """*request* without the descriptions in *hidden*: its owner may not be allowed to see them."""
    for text in hidden:
        shown = text if len(text) <= _PROMPT_EXAMPLE_CHARS else text[: _PROMPT_EXAMPLE_CHARS - 1].rstrip()
        request = request.replace(shown, REDACTED_EXAMPLE)
    return request


# --- the record -----------------------------------------------------------------------------


def session_record(session: AnnotationSession, *, full: bool = False) -> dict[str, Any]:
    """The session as plain data: the CLI's JSON, and with *full* the steps, calls, reviews and revisions.

    Load *session* with :func:`annotations.selectors.with_record_relations` (one query per relation).
    """
    iterations = [
        {"number": it.number, "annotation": it.annotation, "is_valid": it.is_valid, "feedback": it.feedback,
         "is_faithful": it.is_faithful, "confidence": it.confidence, "low_confidence": it.low_confidence,
         "unknown_terms": it.unknown_terms,
         "errors": [{"code": i.code, "message": i.message, "hint": i.hint, "tag": i.tag}
                    for i in it.issues.all() if i.severity == "error"],
         "warnings": [{"code": i.code, "message": i.message, "hint": i.hint, "tag": i.tag}
                      for i in it.issues.all() if i.severity != "error"]}
        for it in session.iterations.all()
    ]
    record: dict[str, Any] = {
        "session_id": str(session.pk),
        "created": session.created_at.isoformat() if session.created_at else None,
        "user": session.user.get_username() if session.user else None,
        "description": session.description,
        "status": session.status,
        "error": session.error,
        "interrupted": session.interrupted,
        "annotation": session.final_annotation,
        "machine_annotation": session.machine_annotation,
        "producer": session.producer,
        "corrected": is_corrected(session),
        "is_valid": session.is_valid,
        "is_faithful": session.is_faithful,
        "is_complete": session.is_complete,
        "evaluation_feedback": session.evaluation_feedback,
        # How much of the description the evaluation understood, and the words no HED tag is known for.
        "confidence": session.confidence,
        "low_confidence": session.low_confidence,
        "unknown_terms": session.unknown_terms,
        "notes": session.notes,
        "events_count": session.events_count,
        # Reviewed sessions (the portal's memory) this run used as examples.
        "examples_used": session.examples_used,
        "assessment_feedback": session.assessment_feedback,
        "schema_version": session.schema_version,
        "options": session.options,
        "iterations": iterations,
        "usage": usage_of(session),
    }
    if full:
        record["steps"] = [
            {"seq": s.seq, "agent": s.agent, "iteration": s.iteration, "action": s.action,
             "input_summary": s.input_summary, "output": s.output, "feedback": s.feedback, "issues": s.issues,
             "ok": s.ok, "duration_ms": s.duration_ms, "created": s.created_at.isoformat()}
            for s in session.steps.all()]
        hidden = _others_examples(session)
        record["llm_calls"] = [
            {"agent": c.agent, "model": c.model, "iteration": c.iteration, "request": _redacted(c.request, hidden),
             "response": c.response, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
             "cost_usd": float(c.cost_usd), "latency_ms": c.latency_ms, "cache_hit": c.cache_hit,
             "error": c.error}
            for c in session.llm_calls.all()]
        record["reviews"] = [
            {"reviewer": r.reviewer.get_username(), "rating": r.rating, "verdict": r.verdict,
             "comment": r.comment, "created": r.created_at.isoformat()}
            for r in session.reviews.all()]
        record["revisions"] = [
            {"author": v.author.get_username(), "before": v.before, "after": v.after, "is_valid": v.is_valid,
             "is_draft": v.is_draft, "issues": v.issues, "created": v.created_at.isoformat()}
            for v in session.revisions.all()]
    return record


def export_record(session: AnnotationSession) -> dict[str, Any]:
    """The JSONL export's record: the full session record plus its review summary and dataset level."""
    record = session_record(session, full=True)
    record["review_summary"] = summary_of(session).as_dict()
    record["dataset_level"] = dataset_level_of(session)
    return record


# --- the flat record (one CSV row) ----------------------------------------------------------

FLAT_COLUMNS = ("id", "created", "user", "description", "annotation", "corrected", "schema_version", "valid",
                "status", "iterations", "tokens", "cost_usd", "mean_rating", "reviews", "accept", "needs_fix",
                "reject", "producer")

# The stored fields (beside id and created_at) :func:`flat_record` reads from a ``values()`` row.
FLAT_FIELDS = ("user__username", "description", "final_annotation", "machine_annotation", "schema_version",
               "is_valid", "status", "iteration_count", "prompt_tokens", "completion_tokens", "cost_usd",
               "mean_rating", "review_count", "accept_count", "needs_fix_count", "reject_count", "producer")


def _flag(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def flat_record(row: Mapping[str, Any]) -> list[str]:
    """One session as text cells under :data:`FLAT_COLUMNS`, from a ``values()`` row of :data:`FLAT_FIELDS`."""
    summary = summary_of_row(row)
    mean = summary.mean_rating
    return [
        str(row["id"]),
        row["created_at"].isoformat() if row["created_at"] else "",
        row["user__username"] or "",
        row["description"],
        row["final_annotation"] or "",
        _flag(corrected(row["final_annotation"], row["machine_annotation"])),
        row["schema_version"],
        _flag(row["is_valid"]),
        row["status"],
        str(row["iteration_count"]),
        str(row["prompt_tokens"] + row["completion_tokens"]),
        f"{row['cost_usd']:.6f}",
        "" if mean is None else f"{mean:.2f}",
        str(summary.count),
        str(summary.accept),
        str(summary.needs_fix),
        str(summary.reject),
        row["producer"] or "",
    ]
