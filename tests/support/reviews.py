"""Stored sessions in a known state, for review, API and export tests (no workflow run)."""

from __future__ import annotations

from typing import Any

from annotations.models import (
    AgentStepRecord,
    AnnotationSession,
    Iteration,
    LLMCallRecord,
    SessionStatus,
    ValidationIssueRecord,
)

VALID_HED = "Sensory-event, Visual-presentation, (Image, Face)"
OTHER_VALID_HED = "Agent-action, Participant-response, (Press, Push-button)"
INVALID_HED = "Sensory-event, Blorp-invented-tag"


def make_session(user: Any = None, *, description: str = "A face appears on the screen",
                 annotation: str = VALID_HED, status: str = SessionStatus.SUCCEEDED,
                 is_valid: bool | None = True, **fields: Any) -> AnnotationSession:
    fields.setdefault("schema_version", "8.4.0")
    fields.setdefault("options", {"schema_version": fields["schema_version"], "no_extend": False})
    fields.setdefault("iteration_count", 1 if annotation else 0)
    return AnnotationSession.objects.create(
        user=user, description=description, status=status, machine_annotation=annotation,
        final_annotation=annotation, is_valid=is_valid, **fields)


def add_run_details(session: AnnotationSession) -> AnnotationSession:
    """One iteration with an issue, a step and an LLM call, as a real run would leave."""
    first = Iteration.objects.create(session=session, number=1, annotation=INVALID_HED, is_valid=False,
                                     feedback="Blorp-invented-tag is not a tag")
    ValidationIssueRecord.objects.create(iteration=first, code="TAG_INVALID", message="not a valid tag",
                                         hint="use a schema tag", tag="Blorp-invented-tag")
    Iteration.objects.create(session=session, number=2, annotation=session.machine_annotation, is_valid=True)
    AgentStepRecord.objects.create(session=session, seq=1, agent="annotation", iteration=1, action="annotate",
                                   output=INVALID_HED)
    LLMCallRecord.objects.create(session=session, iteration=1, agent="annotation", model="scripted",
                                 request="[...]", response=INVALID_HED, prompt_tokens=10, completion_tokens=5)
    session.iteration_count = 2
    session.save(update_fields=["iteration_count"])
    return session
