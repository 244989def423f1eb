"""Executing a run: claim it, run the workflow with a recorder, store the outcome.

The task (:mod:`annotations.runs.tasks`) calls this; starting a run (:mod:`annotations.runs.services`)
only enqueues the task, so the two never import each other.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.db import DatabaseError
from django.utils import timezone

from agents.llm.base import ChatModel
from agents.state import AnnotationState, WorkflowOptions
from agents.workflow import StimulusImage, run_workflow
from annotations.llm.client import chat_model_for
from annotations.models import FINISHED_STATUSES, AnnotationSession, SessionStatus
from annotations.runs.images import sniff_image_type
from annotations.runs.memory import examples_for
from annotations.runs.producer import producer_of
from annotations.runs.recorder import SessionRecorder, broadcast

logger = logging.getLogger(__name__)


def _claim(session_id: Any) -> AnnotationSession | None:
    """Mark a queued session running; None when another worker has it or it is gone."""
    claimed = AnnotationSession.objects.filter(pk=session_id, status=SessionStatus.QUEUED).update(
        status=SessionStatus.RUNNING, started_at=timezone.now())
    if not claimed:
        return None
    # The user comes along: the async caller cannot load a lazy relation.
    return AnnotationSession.objects.select_related("user").get(pk=session_id)


def _image_of(session: AnnotationSession) -> StimulusImage | None:
    if not session.image:
        return None
    with session.image.open("rb") as fh:
        data = fh.read()
    return StimulusImage(data=data, mime_type=sniff_image_type(data))


def finish(session_id: Any, state: AnnotationState) -> AnnotationSession:
    session = AnnotationSession.objects.get(pk=session_id)
    session.status = state.status or SessionStatus.FAILED
    session.error = state.error
    session.machine_annotation = state.annotation
    session.final_annotation = state.annotation
    session.is_valid = state.is_valid if state.iterations else None
    session.is_faithful = state.is_faithful
    session.is_complete = state.assessment.is_complete if state.assessment else None
    session.evaluation_feedback = state.evaluation.feedback if state.evaluation else ""
    session.assessment_feedback = state.assessment.feedback if state.assessment else ""
    session.iteration_count = len(state.iterations)
    session.producer = producer_of(session_id) if state.annotation else ""
    for name, value in _evaluation_fields(state).items():
        setattr(session, name, value)
    session.finished_at = timezone.now()
    session.save()
    return session


def _evaluation_fields(state: AnnotationState) -> dict[str, Any]:
    """Confidence, unknown words, notes and the memory a run used, as stored on its session."""
    evaluation = state.evaluation
    return {
        "confidence": evaluation.confidence if evaluation else None,
        "low_confidence": bool(evaluation and evaluation.low_confidence),
        "unknown_terms": list(evaluation.unknown_terms) if evaluation else [],
        "notes": list(state.notes), "events_count": len(state.events),
        "examples_used": list(state.examples_used),
    }


def _memory_for(session: AnnotationSession) -> list[Any]:
    """The reviewed annotations most like this run's description; a run goes on without them if that fails."""
    try:
        return examples_for(session)
    except DatabaseError:
        raise  # the database is the problem, not the memory: the run's own handling applies
    except Exception:
        logger.warning("could not read the memory for session %s; running without it", session.pk, exc_info=True)
        return []


def fail(session_id: Any, message: str, *, interrupted: bool = False) -> None:
    AnnotationSession.objects.filter(pk=session_id).exclude(status__in=FINISHED_STATUSES).update(
        status=SessionStatus.FAILED, error=message, interrupted=interrupted, finished_at=timezone.now())


async def execute_session(session_id: Any, *, llm: ChatModel | None = None,
                          use_configured_llm: bool = True) -> AnnotationSession | None:
    """Run the workflow for a queued session, storing every step as it happens."""
    session = await sync_to_async(_claim)(session_id)
    if session is None:
        logger.info("session %s is not queued; nothing to run", session_id)
        return None
    await broadcast(session_id, "status")
    recorder = SessionRecorder(session_id)
    owned: ChatModel | None = None
    try:
        if llm is None and use_configured_llm:
            llm = owned = await sync_to_async(chat_model_for)(session.user)
        image = await sync_to_async(_image_of)(session)
        examples = await sync_to_async(_memory_for)(session)
        state = await run_workflow(session.description, WorkflowOptions.from_dict(session.options), llm=llm,
                                   observer=recorder, should_cancel=recorder.should_cancel, image=image,
                                   examples=examples)
        session = await sync_to_async(finish)(session_id, state)
    except Exception as exc:
        # Whatever broke, the session must not stay "running" and the user gets one line.
        logger.exception("run of session %s failed", session_id)
        await sync_to_async(fail)(session_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        session = await AnnotationSession.objects.aget(pk=session_id)
    if owned is not None:
        await _close(owned)
    await broadcast(session_id, "status")
    return session


async def _close(model: ChatModel) -> None:
    """Release the model's connection pool: in the embedded server, runs share one long-lived loop."""
    close = getattr(model, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:
        logger.warning("closing the LLM client failed", exc_info=True)
