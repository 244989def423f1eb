"""Executing a run: claim it, run the workflow with a recorder, store the outcome.

The task (:mod:`annotations.runs.tasks`) calls this; starting a run (:mod:`annotations.runs.services`)
only enqueues the task, so the two never import each other.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

from asgiref.sync import sync_to_async
from django.db import DatabaseError
from django.db.models import Max
from django.utils import timezone

from agents.llm.base import ChatModel
from agents.state import AnnotationState, Draft, WorkflowOptions
from agents.workflow import StimulusImage, run_workflow
from annotations.llm.client import run_model_for
from annotations.models import FINISHED_STATUSES, AgentStepRecord, AnnotationSession, Iteration, SessionStatus
from annotations.runs.broadcasts import broadcast
from annotations.runs.images import sniff_image_type
from annotations.runs.lease import (
    NO_LEASE,
    TRANSIENT_DATABASE_ERRORS,
    Attempt,
    LeaseLost,
    held,
    lease_seconds,
    renew,
)
from annotations.runs.lease import claim as lease_claim
from annotations.runs.memory import examples_for
from annotations.runs.producer import OFFLINE_PRODUCER, producer_of, record_configuration
from annotations.runs.recorder import SessionRecorder

logger = logging.getLogger(__name__)

_FELL_BACK = ("The language model failed (", "); the offline annotator wrote this annotation.")


def model_failed_note(reason: str) -> str:
    """The note of a dataset level's run the offline annotator wrote because the model failed with *reason*."""
    return f"{_FELL_BACK[0]}{reason}{_FELL_BACK[1]}"


def model_failure(notes: Any) -> str:
    """The model's failure a run's *notes* name (:func:`model_failed_note`), or ``""``."""
    for note in notes if isinstance(notes, list) else []:
        if isinstance(note, str) and note.startswith(_FELL_BACK[0]) and note.endswith(_FELL_BACK[1]):
            return note[len(_FELL_BACK[0]):-len(_FELL_BACK[1])]
    return ""


def _image_of(session: AnnotationSession) -> StimulusImage | None:
    if not session.image:
        return None
    with session.image.open("rb") as fh:
        data = fh.read()
    return StimulusImage(data=data, mime_type=sniff_image_type(data))


def finish(session_id: Any, state: AnnotationState, attempt: Attempt = NO_LEASE, *,
           producer: str | None = None) -> AnnotationSession:
    """Store the outcome; raises :class:`LeaseLost` when *attempt* no longer holds the run."""
    fields = {
        "status": state.status or SessionStatus.FAILED, "error": state.error,
        "machine_annotation": state.annotation, "final_annotation": state.annotation,
        "is_valid": state.is_valid if state.iterations else None, "is_faithful": state.is_faithful,
        "is_complete": state.assessment.is_complete if state.assessment else None,
        "evaluation_feedback": state.evaluation.feedback if state.evaluation else "",
        "assessment_feedback": state.assessment.feedback if state.assessment else "",
        "iteration_count": attempt.iteration(len(state.iterations)), "finished_at": timezone.now(),
        "lease_expires_at": None,
        "producer": (producer or producer_of(session_id)) if state.annotation else "",
        **_evaluation_fields(state),
    }
    runs = held(session_id, attempt.number) if attempt.number else AnnotationSession.objects.filter(pk=session_id)
    if not runs.update(**fields):
        raise LeaseLost(f"session {session_id} attempt {attempt.number} lost its lease before it finished")
    return AnnotationSession.objects.get(pk=session_id)


def _after_stored(session_id: Any, attempt: Attempt) -> Attempt:
    """*attempt* numbering its steps and iterations after those already stored (a second workflow on the run)."""
    steps = AgentStepRecord.objects.filter(session_id=session_id).aggregate(last=Max("seq"))["last"] or 0
    iterations = Iteration.objects.filter(session_id=session_id).aggregate(last=Max("number"))["last"] or 0
    return replace(attempt, seq_base=steps, iteration_base=iterations)


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


def fail(session_id: Any, message: str, *, interrupted: bool = False, attempt: Attempt = NO_LEASE) -> None:
    runs = held(session_id, attempt.number) if attempt.number else AnnotationSession.objects.filter(pk=session_id)
    runs.exclude(status__in=FINISHED_STATUSES).update(
        status=SessionStatus.FAILED, error=message, interrupted=interrupted, finished_at=timezone.now(),
        lease_expires_at=None)


async def _keep_lease(recorder: SessionRecorder) -> None:
    """Renew the lease a few times per term while the workflow runs (an LLM call may outlast a term)."""
    interval = max(0.05, lease_seconds() / 3)
    while True:
        await asyncio.sleep(interval)
        try:
            held_still = await sync_to_async(renew)(recorder.session_id, recorder.attempt.number)
        except TRANSIENT_DATABASE_ERRORS:
            # The database may come back within the term; if not, the lease lapses and the run moves on.
            logger.warning("could not renew the lease of session %s", recorder.session_id, exc_info=True)
            continue
        if not held_still:
            logger.warning("session %s was taken from this worker; stopping it", recorder.session_id)
            recorder.lost = True
            return


async def execute_session(session_id: Any, *, llm: ChatModel | None = None, use_configured_llm: bool = True,
                          worker_id: str = "", draft: Draft | None = None) -> AnnotationSession | None:
    """Run the workflow for a queued session under a lease, storing every step as it happens.

    A *draft* (a dataset level's, written with its column) is the run's first attempt: no annotate request.
    """
    claim = await sync_to_async(lease_claim)(session_id, worker_id)
    if claim is None:
        logger.info("session %s is not queued; nothing to run", session_id)
        return None
    session, attempt = claim.session, claim.attempt
    await broadcast(session_id, "status")
    recorder = SessionRecorder(session_id, attempt)
    heartbeat = asyncio.create_task(_keep_lease(recorder))
    owned: ChatModel | None = None
    try:
        choice = str((session.options or {}).get("model") or "")  # an evaluation run's model, chosen by name
        if llm is None and use_configured_llm:
            llm = owned = await sync_to_async(run_model_for)(session.user, choice)
        options = WorkflowOptions.from_dict(session.options)
        await sync_to_async(record_configuration)(session_id, llm, options.schema_version, model=choice)
        image = await sync_to_async(_image_of)(session)
        # An evaluation run draws on no memory: the reviewed annotation it is scored against would be in it.
        examples = [] if session.evaluation_batch_id else await sync_to_async(_memory_for)(session)
        state = await run_workflow(session.description, options, llm=llm, observer=recorder,
                                   should_cancel=recorder.should_cancel, image=image, examples=examples, draft=draft)
        reason = ""
        if state.status == SessionStatus.FAILED and llm is not None and session.dataset_level_id:
            # A dataset level falls back to the offline annotator (as its column's draft does): the level gets
            # valid HED and the job names the model's failure, instead of a level left with nothing.
            reason = state.error
            logger.warning("session %s: the model failed (%s); the offline annotator writes it", session_id, reason)
            recorder.attempt = await sync_to_async(_after_stored)(session_id, attempt)
            state = await run_workflow(session.description, options, llm=None, observer=recorder,
                                       should_cancel=recorder.should_cancel, image=image, examples=examples)
        if reason and state.status != SessionStatus.CANCELLED:
            note = model_failed_note(reason)
            state.notes[:] = [note, *(n for n in state.notes if n != note)]
        session = await sync_to_async(finish)(session_id, state, recorder.attempt,
                                              producer=OFFLINE_PRODUCER if reason else None)
    except LeaseLost:
        # Someone else owns the run now (a new attempt, a cancel, a re-run): leave it to them.
        logger.warning("session %s attempt %d stopped: it no longer holds the run", session_id, attempt.number)
        session = await AnnotationSession.objects.aget(pk=session_id)
    except TRANSIENT_DATABASE_ERRORS:
        # Nothing can be stored now; the lease lapses and a worker runs it again once the database is back.
        logger.warning("session %s attempt %d lost its database; it will be retried", session_id,
                       attempt.number, exc_info=True)
        raise
    except Exception as exc:
        # Whatever broke, the session must not stay "running" and the user gets one line.
        logger.exception("run of session %s failed", session_id)
        await sync_to_async(fail)(session_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0],
                                  attempt=attempt)
        session = await AnnotationSession.objects.aget(pk=session_id)
    finally:
        heartbeat.cancel()
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
