"""The workflow observer that stores each step as it happens and tells live pages (annotations.runs.broadcasts)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async
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
from annotations.runs.broadcasts import broadcast
from annotations.runs.lease import NO_LEASE, Attempt, renew_or_raise

# A step's texts are excerpts of what the model said: its reply is stored once, whole, on the call's row (within
# HEDIT_LLM_MAX_REPLY_BYTES); steps, iterations and feedback rows keep at most this much of it. An annotation
# (at most 20,000 characters, agents.annotation.parse) fits whole.
STEP_TEXT_CHARS = 20_000
MAX_STEP_ISSUES = 100  # as many as validation lists (agents.validation.agent.MAX_ISSUES)


def excerpt(text: str, limit: int = STEP_TEXT_CHARS) -> str:
    """*text*, or its first *limit* characters and how many more there were."""
    text = text or ""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters; the call's reply holds them]"


def _issue_dict(issue: Any) -> dict[str, str]:
    return {"code": issue.code, "severity": issue.severity, "message": issue.message, "hint": issue.hint,
            "tag": issue.tag}


def store_step(session_id: Any, step: AgentStep, state: AnnotationState, attempt: Attempt = NO_LEASE) -> int:
    """Write one step and what it changed, in one transaction, if *attempt* still holds the run."""
    current = state.current
    number = attempt.iteration(current.number) if current is not None else 0
    with transaction.atomic():
        if attempt.number:
            # Renewing the lease here fences the write: a worker that lost the run stores nothing more.
            renew_or_raise(session_id, attempt.number)
        record = AgentStepRecord.objects.create(
            session_id=session_id, seq=attempt.seq(step.seq), attempt=max(1, attempt.number), agent=step.agent,
            iteration=attempt.iteration(step.iteration), action=step.action[:255],
            input_summary=excerpt(step.input_summary), output=excerpt(step.output), feedback=excerpt(step.feedback),
            issues=[_issue_dict(i) for i in step.issues[:MAX_STEP_ISSUES]], ok=step.ok,
            duration_ms=step.duration_ms)
        if step.agent == "annotation" and current is not None:
            # A failed call's step (agents.workflow) reports under the attempt already stored: no second row.
            Iteration.objects.get_or_create(session_id=session_id, number=number,
                                            defaults={"annotation": current.annotation})
            AnnotationSession.objects.filter(pk=session_id).update(iteration_count=number)
        elif step.agent == "validation" and current is not None:
            iteration = Iteration.objects.get(session_id=session_id, number=number)
            iteration.is_valid = current.is_valid
            iteration.save(update_fields=["is_valid"])
            ValidationIssueRecord.objects.bulk_create(
                ValidationIssueRecord(iteration=iteration, code=i.code, severity=i.severity, message=i.message,
                                      hint=i.hint, tag=i.tag[:255]) for i in current.issues)
        elif step.agent == "feedback" and current is not None:
            Iteration.objects.filter(session_id=session_id, number=number).update(feedback=excerpt(current.feedback))
        elif step.agent == "evaluation" and current is not None and current.evaluation is not None:
            evaluation = current.evaluation
            Iteration.objects.filter(session_id=session_id, number=number).update(
                is_faithful=evaluation.is_faithful, evaluation_feedback=excerpt(evaluation.feedback),
                confidence=evaluation.confidence, low_confidence=evaluation.low_confidence,
                unknown_terms=list(evaluation.unknown_terms))
        elif step.agent == "vision":
            AnnotationSession.objects.filter(pk=session_id).update(image_description=excerpt(state.image_description))
        if step.feedback:
            FeedbackMessage.objects.create(session_id=session_id, iteration=attempt.iteration(step.iteration),
                                           source=step.agent, text=excerpt(step.feedback))
    return record.pk


def store_llm_call(session_id: Any, call: LLMCall, iteration: int) -> int:
    with transaction.atomic():
        record = LLMCallRecord.objects.create(
            session_id=session_id, iteration=iteration, agent=call.agent, model=call.model, request=call.request,
            response=call.response, prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
            cost_usd=Decimal(str(round(call.cost_usd, 6))), latency_ms=call.latency_ms, cache_hit=call.cache_hit,
            error=call.error, error_kind=call.error_kind)
        AnnotationSession.objects.filter(pk=session_id).update(
            llm_call_count=F("llm_call_count") + 1, prompt_tokens=F("prompt_tokens") + call.prompt_tokens,
            completion_tokens=F("completion_tokens") + call.completion_tokens,
            cost_usd=F("cost_usd") + Decimal(str(round(call.cost_usd, 6))))
    return record.pk


def cancel_requested(session_id: Any) -> bool:
    return AnnotationSession.objects.filter(pk=session_id, cancel_requested=True).exists()


class SessionRecorder:
    """Observer for :func:`agents.workflow.run_workflow` bound to one stored session and attempt."""

    def __init__(self, session_id: Any, attempt: Attempt = NO_LEASE) -> None:
        self.session_id = session_id
        self.attempt = attempt
        # Set when the lease is found taken: the workflow then stops at its next cancel check.
        self.lost = False

    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        pk = await sync_to_async(store_step)(self.session_id, step, state, self.attempt)
        await broadcast(self.session_id, "step", step_id=pk)

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        pk = await sync_to_async(store_llm_call)(
            self.session_id, call, self.attempt.iteration(iteration))
        await broadcast(self.session_id, "usage", llm_call_id=pk)

    async def should_cancel(self) -> bool:
        return self.lost or await sync_to_async(cancel_requested)(self.session_id)
