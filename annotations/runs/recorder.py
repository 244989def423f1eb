"""The workflow observer that stores each step as it happens and tells live pages."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F

from agents.state import AgentStep, AnnotationState, LLMCall
from annotations.models import (
    AgentStepRecord,
    AnnotationSession,
    FeedbackMessage,
    Iteration,
    LLMCallRecord,
    ValidationIssueRecord,
)

logger = logging.getLogger(__name__)


def session_group(session_id: Any) -> str:
    return f"session_{session_id}"


async def broadcast(session_id: Any, kind: str, **payload: Any) -> None:
    """Tell every live page of this session that something new is stored."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(session_group(session_id), {"type": "session.event", "kind": kind, **payload})
    except Exception:
        # A live page missing an update must never fail the run; a reload replays from the database.
        logger.warning("could not broadcast %s for session %s", kind, session_id, exc_info=True)


def _issue_dict(issue: Any) -> dict[str, str]:
    return {"code": issue.code, "severity": issue.severity, "message": issue.message, "hint": issue.hint,
            "tag": issue.tag}


def store_step(session_id: Any, step: AgentStep, state: AnnotationState) -> int:
    """Write one step and what it changed, in one transaction."""
    with transaction.atomic():
        record = AgentStepRecord.objects.create(
            session_id=session_id, seq=step.seq, agent=step.agent, iteration=step.iteration,
            action=step.action, input_summary=step.input_summary, output=step.output, feedback=step.feedback,
            issues=[_issue_dict(i) for i in step.issues], ok=step.ok, duration_ms=step.duration_ms)
        current = state.current
        if step.agent == "annotation" and current is not None:
            Iteration.objects.create(session_id=session_id, number=current.number,
                                     annotation=current.annotation)
            AnnotationSession.objects.filter(pk=session_id).update(iteration_count=current.number)
        elif step.agent == "validation" and current is not None:
            iteration = Iteration.objects.get(session_id=session_id, number=current.number)
            iteration.is_valid = current.is_valid
            iteration.save(update_fields=["is_valid"])
            ValidationIssueRecord.objects.bulk_create(
                ValidationIssueRecord(iteration=iteration, code=i.code, severity=i.severity, message=i.message,
                                      hint=i.hint, tag=i.tag[:255]) for i in current.issues)
        elif step.agent == "feedback" and current is not None:
            Iteration.objects.filter(session_id=session_id, number=current.number).update(
                feedback=current.feedback)
        elif step.agent == "evaluation" and current is not None and current.evaluation is not None:
            evaluation = current.evaluation
            Iteration.objects.filter(session_id=session_id, number=current.number).update(
                is_faithful=evaluation.is_faithful, evaluation_feedback=evaluation.feedback,
                confidence=evaluation.confidence, low_confidence=evaluation.low_confidence,
                unknown_terms=list(evaluation.unknown_terms))
        elif step.agent == "vision":
            AnnotationSession.objects.filter(pk=session_id).update(image_description=state.image_description)
        if step.feedback:
            FeedbackMessage.objects.create(session_id=session_id, iteration=step.iteration, source=step.agent,
                                           text=step.feedback)
    return record.pk


def store_llm_call(session_id: Any, call: LLMCall, iteration: int) -> int:
    with transaction.atomic():
        record = LLMCallRecord.objects.create(
            session_id=session_id, iteration=iteration, agent=call.agent, model=call.model, request=call.request,
            response=call.response, prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
            cost_usd=Decimal(str(round(call.cost_usd, 6))), latency_ms=call.latency_ms, cache_hit=call.cache_hit,
            error=call.error)
        AnnotationSession.objects.filter(pk=session_id).update(
            llm_call_count=F("llm_call_count") + 1, prompt_tokens=F("prompt_tokens") + call.prompt_tokens,
            completion_tokens=F("completion_tokens") + call.completion_tokens,
            cost_usd=F("cost_usd") + Decimal(str(round(call.cost_usd, 6))))
    return record.pk


def cancel_requested(session_id: Any) -> bool:
    return AnnotationSession.objects.filter(pk=session_id, cancel_requested=True).exists()


class SessionRecorder:
    """Observer for :func:`agents.workflow.run_workflow` bound to one stored session."""

    def __init__(self, session_id: Any) -> None:
        self.session_id = session_id

    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        pk = await sync_to_async(store_step)(self.session_id, step, state)
        await broadcast(self.session_id, "step", step_id=pk)

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        pk = await sync_to_async(store_llm_call)(self.session_id, call, iteration)
        await broadcast(self.session_id, "usage", llm_call_id=pk)

    async def should_cancel(self) -> bool:
        return await sync_to_async(cancel_requested)(self.session_id)
