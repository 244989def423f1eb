"""Stored sessions and steps, written straight to the database (history, pages, sockets, exports)."""

from __future__ import annotations

from typing import Any

from annotations.models import AgentStepRecord, AnnotationSession


def make_session(user: Any = None, description: str = "A red circle appears.", **fields: Any) -> AnnotationSession:
    fields.setdefault("schema_version", "8.4.0")
    fields.setdefault("options", {"schema_version": fields["schema_version"], "max_validation_attempts": 3,
                                  "max_total_iterations": 5, "run_assessment": False, "no_extend": False})
    return AnnotationSession.objects.create(user=user, description=description, **fields)


def add_steps(session: AnnotationSession, count: int = 3) -> list[AgentStepRecord]:
    script = [("annotation", "Wrote attempt 1", "Sensory-event, Blorp-tag", [], True),
              ("validation", "Found 1 error", "TAG_INVALID",
               [{"code": "TAG_INVALID", "severity": "error", "message": "'Blorp-tag' is not a valid tag.",
                 "hint": "Use a tag that exists in the schema.", "tag": "Blorp-tag"}], False),
              ("feedback", "Summarised the errors for the next attempt", "Replace Blorp-tag.", [], True),
              ("annotation", "Wrote attempt 2", "Sensory-event, (Red, Circle)", [], True),
              ("validation", "Valid", "no errors", [], True)]
    steps = []
    for seq in range(1, count + 1):
        agent, action, output, issues, ok = script[(seq - 1) % len(script)]
        steps.append(AgentStepRecord.objects.create(
            session=session, seq=seq, agent=agent, action=action, output=output, issues=issues, ok=ok,
            iteration=1 + (seq - 1) // 3, feedback=output if agent == "feedback" else ""))
    return steps
