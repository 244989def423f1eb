"""Read-side queries and plain-data views of stored sessions."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from annotations.models import AnnotationSession, Iteration


def visible_sessions(user: Any) -> QuerySet[AnnotationSession]:
    """Sessions *user* may see: their own; reviewers and staff see everyone's."""
    qs = AnnotationSession.objects.all()
    if user is None or not user.is_authenticated:
        return qs.none()
    if can_see_all(user):
        return qs
    return qs.filter(user=user)


def may_see(user: Any, session: AnnotationSession) -> bool:
    """The same rule as :func:`visible_sessions`, for a session already loaded: no query for its owner."""
    if user is None or not user.is_authenticated:
        return False
    return session.user_id == user.pk or can_see_all(user)


def can_see_all(user: Any) -> bool:
    """Reviewers and staff. Asked several times per page (the view, its queryset, the menu): the answer
    is kept on the user object, which lives for one request or one socket."""
    cached = getattr(user, "_hedit_sees_all", None)
    if cached is None:
        cached = bool(user.is_staff or user.is_superuser or user.groups.filter(name="reviewers").exists())
        user._hedit_sees_all = cached
    return cached


def with_record_relations(qs: QuerySet[AnnotationSession], *, llm_calls: bool = True) -> QuerySet[AnnotationSession]:
    """Everything a session's full record shows; *llm_calls* off where they are not shown (their prompts are
    the largest rows a session has)."""
    return qs.select_related("user", "dataset_level__column__task").prefetch_related(
        Prefetch("iterations", queryset=Iteration.objects.prefetch_related("issues")),
        "steps", *(["llm_calls"] if llm_calls else []), "reviews__reviewer", "revisions__author")


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


def session_record(session: AnnotationSession, *, full: bool = False) -> dict[str, Any]:
    """The session as plain data: the CLI's JSON, and with *full* the JSONL export's record."""
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
        # A reviewer's correction is the final annotation: is_faithful and is_complete judged the machine's.
        "corrected": bool(session.final_annotation) and session.final_annotation != session.machine_annotation,
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
